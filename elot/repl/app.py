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

from elot.errors import ElotError
from elot.output import excerpt
from elot.repl import render
from elot.repl.commands import Quit, execute
from elot.session import Session
# piped input: exit EXIT_USAGE when some line failed, as the other commands do
from elot.settings import EXIT_OK, EXIT_USAGE



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


#: The longest line the REPL takes, in characters. A formula or a sentence is at most a
#: few hundred; the bound keeps a pasted or runaway line from growing the line editor
#: (whose undo stack keeps every state of the line) and the echo without limit.
MAX_LINE = 4096


def too_long(length: int) -> ElotError:
    return ElotError(f"line too long ({length} characters; the REPL takes at most {MAX_LINE})",
                     hint="give one formula or sentence at a time; score many with "
                          "elot run --statements FILE")


class Repl:
    """One REPL run over a session, printing through one rich console."""

    def __init__(self, session: Session, console: Console | None = None) -> None:
        self.session = session
        self.console = console or Console(highlight=False)
        self.failures = 0

    def _prompt(self) -> str:
        return render.prompt(self.session.t, self.session.horizon, self.session.mode)

    def handle(self, line: str) -> bool:
        """Run one line and print its result or its error; False when the user quits."""
        fresh = self.session.needs_inference()
        started = time.perf_counter()
        try:
            if len(line) > MAX_LINE:
                raise too_long(len(line))
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
        clipped = [False]

        def bound(buffer) -> None:
            if len(buffer.text) > MAX_LINE:
                clipped[0] = True
                buffer.text = buffer.text[:MAX_LINE]

        prompt = PromptSession(history=history, completer=ElotCompleter(self.session),
                               complete_while_typing=False)
        prompt.default_buffer.on_text_changed += bound
        self.console.print(render.message(banner(self.session), "dim"))
        while True:
            try:
                clipped[0] = False
                line = prompt.prompt(self._prompt())
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if clipped[0]:
                self.console.print(render.message(
                    f"(the line was cut at {MAX_LINE} characters, the most the REPL takes)", "yellow"))
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
        for line, length in _bounded_lines(stream, MAX_LINE):
            if echo and (line is None or line.strip()):
                shown = excerpt(line) if line is not None else f"… ({length} characters)"
                self.console.print(render.message(self._prompt() + shown), soft_wrap=True)
            if line is None:
                self.failures += 1
                self.console.print(render.error_view(too_long(length)))
                continue
            if not self.handle(line):
                break
        return EXIT_USAGE if self.failures else EXIT_OK


def _bounded_lines(stream: TextIO, limit: int):
    """(line, length) for each line of ``stream``, without its newline; a line longer than
    ``limit`` is read through without being kept and comes as (None, its length)."""
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        if len(raw) <= limit or raw.endswith("\n") and len(raw) == limit + 1:
            yield raw.rstrip("\n"), len(raw.rstrip("\n"))
            continue
        length = len(raw)
        while not raw.endswith("\n"):
            raw = stream.readline(1 << 16)
            if not raw:
                break
            length += len(raw)
        yield None, length - (1 if raw.endswith("\n") else 0)


def _uses_inference(line: str) -> bool:
    line = line.strip()
    if not line.startswith(":"):
        return True
    name = line[1:].split(" ", 1)[0]
    return name in ("goals", "worlds", "beliefs", "explain", "trace", "score")


def run(session: Session, *, stdin: TextIO | None = None, console: Console | None = None,
        interactive: bool | None = None, echo: bool = True) -> int:
    """Run the REPL on ``session``; interactive when stdin and stdout are terminals."""
    stdin = stdin or sys.stdin
    if interactive is None:
        interactive = stdin.isatty() and sys.stdout.isatty()
    repl = Repl(session, console)
    return repl.run_interactive() if interactive else repl.run_piped(stdin, echo=echo)
