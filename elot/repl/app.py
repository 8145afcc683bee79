"""The REPL loop: read a line, run it, show the result; errors never end the loop.

On a terminal the line editor is prompt_toolkit (history across sessions, tab
completion). When stdin is not a terminal (``elot repl < queries.txt``) lines are read
plainly, each echoed after the prompt so that the output reads as a transcript.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path
from typing import TextIO

from rich.console import Console

# piped input: exit EXIT_USAGE when some line failed, as the other commands do
from elot.cli import EXIT_OK, EXIT_USAGE
from elot.errors import ElotError
from elot.repl import render
from elot.repl.commands import Quit, execute
from elot.repl.session import Session



def history_path() -> Path:
    """Where the line history lives: ``$ELOT_HISTORY``, else the user's data directory
    (``$XDG_DATA_HOME/elot/history``, default ``~/.local/share/elot/history``)."""
    explicit = os.environ.get("ELOT_HISTORY")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "elot" / "history"


def banner(session: Session) -> str:
    return (f"elot REPL: {session.describe()}; model {session.model}. "
            "Type a formula or a sentence, :help for commands, :quit (or Ctrl-D) to leave.")


class Repl:
    """One REPL run over a session, printing through one rich console."""

    def __init__(self, session: Session, console: Console | None = None) -> None:
        self.session = session
        self.console = console or Console(highlight=False)
        self.failures = 0

    def handle(self, line: str) -> bool:
        """Run one line and print its result or its error; False when the user quits."""
        fresh = self.session.needs_inference()
        started = time.perf_counter()
        try:
            if fresh and _uses_inference(line):
                with self.console.status(f"running BToM inference ({self.session.model}, "
                                         f"β={self.session.beta:.3g}) ..."):
                    outputs = execute(self.session, line)
            else:
                outputs = execute(self.session, line)
            for output in outputs:
                self.console.print(output)
        except Quit:
            return False
        except ElotError as error:
            self.failures += 1
            self.console.print(render.error_view(error))
            return True
        except Exception as error:  # a bug must not end the user's session either
            self.failures += 1
            frame = traceback.extract_tb(error.__traceback__)[-1]
            self.console.print(render.message(
                f"internal error: {type(error).__name__}: {error} "
                f"(at {Path(frame.filename).name}:{frame.lineno}); please report it", "bold red"))
            return True
        if fresh and not self.session.needs_inference():
            elapsed = time.perf_counter() - started
            self.console.print(render.message(f"(inference: {elapsed:.2f} s)", "dim"))
        return True

    def run_interactive(self) -> int:
        """The prompt_toolkit loop: line editing, history, completion."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        from elot.repl.complete import ElotCompleter

        path = history_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            history = FileHistory(str(path))
        except OSError:
            history = InMemoryHistory()
        prompt = PromptSession(history=history, completer=ElotCompleter(self.session),
                               complete_while_typing=False)
        self.console.print(render.message(banner(self.session), "dim"))
        while True:
            try:
                line = prompt.prompt(self.session.prompt())
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            try:
                if not self.handle(line):
                    break
            except KeyboardInterrupt:
                # Ctrl-C cancels the command, not the session: an inference that did not
                # finish is simply not kept, and settings and history are untouched.
                self.console.print(render.message("interrupted: the command was cancelled", "yellow"))
        return EXIT_OK

    def run_piped(self, stream: TextIO, echo: bool = True) -> int:
        """Read lines from a non-terminal stream; exit status 2 if any line failed."""
        for raw in stream:
            line = raw.rstrip("\n")
            if echo and line.strip():
                self.console.print(render.message(self.session.prompt() + line), soft_wrap=True)
            if not self.handle(line):
                break
        return EXIT_USAGE if self.failures else EXIT_OK


def _uses_inference(line: str) -> bool:
    line = line.strip()
    if not line.startswith(":"):
        return True
    name = line[1:].split(" ", 1)[0]
    return name in ("goals", "worlds", "beliefs", "explain", "trace")


def run(session: Session, *, stdin: TextIO | None = None, console: Console | None = None,
        interactive: bool | None = None, echo: bool = True) -> int:
    """Run the REPL on ``session``; interactive when stdin and stdout are terminals."""
    stdin = stdin or sys.stdin
    if interactive is None:
        interactive = stdin.isatty() and sys.stdout.isatty()
    repl = Repl(session, console)
    return repl.run_interactive() if interactive else repl.run_piped(stdin, echo=echo)
