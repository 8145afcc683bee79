"""Tab completion for the REPL: commands, their arguments, ELoT operators, the domain's
predicates and the scenario's objects."""

from __future__ import annotations

import re
from typing import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from elot.lang.operators import OPERATORS, THRESHOLD_NAMES
from elot.repl.commands import SETTINGS, COMMANDS, model_parameters
from elot.session import Session

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def formula_words(session: Session) -> list[str]:
    """Every name a formula may use here: operators, predicates, objects, ``player``."""
    signature = session.signature
    words = {op for op in OPERATORS if op.isidentifier()}
    words.update(name for name, _ in signature.predicates)
    words.update(signature.domains)            # type predicates: key(K), box(B), ...
    words.update(name for name, _ in signature.objects)
    words.update(alias for alias, _ in signature.aliases)
    words.update(THRESHOLD_NAMES)
    words.add("player")
    return sorted(w for w in words if w and w != "object")


class ElotCompleter(Completer):
    """Completes ``:commands``, their arguments, and words inside formulas."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith(":") and " " not in text:
            prefix = text[1:]
            for name, cmd in COMMANDS.items():
                if name.startswith(prefix):
                    yield Completion(f":{name}", start_position=-len(text), display_meta=cmd.help)
            return
        if text.startswith(":"):
            name, _, arg = text[1:].partition(" ")
            cmd = COMMANDS.get(name)
            kind = cmd.complete if cmd else None
            if kind == "path":
                yield from self._choices(arg, [name for name, _ in self.session.examples()])
                yield from self.paths.get_completions(Document(arg, len(arg)), event)
                return
            if kind == "model":
                front = self.session.front
                yield from self._choices(arg, list(front.models) if front is not None else [])
                return
            if kind == "set":
                words = arg.split(" ")
                if len(words) == 1:
                    yield from self._choices(arg, SETTINGS + model_parameters(self.session))
                elif len(words) == 2 and words[0] == "threshold":
                    yield from self._choices(words[1], list(self.session.thresholds_dict()))
                return
            if kind != "formula":
                return
        match = _WORD.search(text)
        if not match:
            return
        yield from self._choices(match.group(0), formula_words(self.session))

    @staticmethod
    def _choices(prefix: str, options: Iterable[str]) -> Iterable[Completion]:
        for option in options:
            if option.startswith(prefix) and option != prefix:
                yield Completion(option, start_position=-len(prefix))
