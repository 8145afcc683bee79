"""Prompts: a statement about a scenario at a judgment point, rendered through a
template into chat messages.

A template is a text file (each domain's front ships its own:
:meth:`elot.domains.front.Front.prompt_template`; ``--template FILE`` replaces it) with a ``[system]`` and a ``[user]``
section and ``$scene``, ``$question``, ``$examples`` and ``$statement`` placeholders
(``string.Template``). The scene comes from the scenario's domain (its front's ``tell``
hook: the gridworld's :mod:`elot.domains.doors_keys_gems.tell`), never from hand-written text; few-shot examples are people's ratings of the *other* statements of
the same scenario and mode, never the one asked. A statement written in ELoT is shown
as English (:func:`elot.lang.english.shown`), as people read it; the table keeps the
formula.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from elot.errors import ElotError, read_text
from elot.lang.english import shown

#: The rating scale every prompt asks for, and the value a rating is mapped to in [0, 1].
LOW, HIGH = 1, 7
#: The prompt conditions: the scene told as the actions (plan), or as a story (narrative).
CONDITIONS = ("plan", "narrative")


class BaselineError(ElotError):
    """Bad input or a failure of a language-model baseline (a template, an endpoint, a key)."""

    @classmethod
    def of(cls, error: ElotError) -> "BaselineError":
        """``error`` (a file that cannot be read, say: :func:`elot.errors.read_text` calls
        it a scenario error) as a baseline's error, at the same place."""
        return cls(error.message, hint=error.hint, span=error.span, source=error.source, path=error.path,
                   notes=error.notes)


def read_input(path: str | Path, what: str) -> str:
    """The text of an input file of a baseline (a template, few-shot ratings), or a
    :class:`BaselineError` naming it."""
    try:
        return read_text(path, what)
    except ElotError as error:
        raise BaselineError.of(error) from None


#: The sections a template has; any other ``[name]`` line is refused, not taken as text.
SECTIONS = ("system", "user")
_HEADER = re.compile(r"\[\s*([A-Za-z_][A-Za-z_ -]*?)\s*\]")


@dataclass(frozen=True)
class Template:
    """A prompt template: its system and user text with ``$`` placeholders, and where it came from."""

    system: str
    user: str
    origin: str

    @classmethod
    def parse(cls, text: str, origin: str) -> "Template":
        sections: dict[str, list[str]] = {}
        current = None
        for number, line in enumerate(text.splitlines(), 1):
            if current is None and line.startswith("#"):  # comments, before the first section only
                continue
            header = _HEADER.fullmatch(line.strip())
            if header and header[1].lower() not in SECTIONS:
                raise BaselineError(f"{origin}:{number}: unknown section [{header[1]}]",
                                    hint="a template has a [system] and a [user] section only: the model's "
                                         "answer is not part of the prompt")
            if header:
                current = header[1].lower()
                if current in sections:
                    raise BaselineError(f"{origin}:{number}: a second [{current}] section",
                                        hint="a template has one [system] and one [user] section")
                sections[current] = []
            elif current is not None:
                sections[current].append(line)
            elif line.strip():
                raise BaselineError(f"{origin}:{number}: text before the [system] section",
                                    hint="start the template with [system] (comments start with '#')")
        if "user" not in sections:
            raise BaselineError(f"{origin}: no [user] section", hint="a template has a [system] and a [user] section")
        user = "\n".join(sections["user"]).strip("\n")
        for name in ("scene", "statement"):
            if f"${name}" not in user and f"${{{name}}}" not in user:
                raise BaselineError(f"{origin}: the [user] section has no ${name}",
                                    hint="a prompt must show the scene ($scene) and the statement ($statement)")
        template = cls("\n".join(sections.get("system", [])).strip("\n"), user, origin)
        try:
            template.fill(scene="", question="", examples="", statement="")
        except (KeyError, ValueError) as error:
            raise BaselineError(f"{origin}: cannot use the template: {error}",
                                hint="placeholders are $scene, $question, $examples and $statement; write $$ for a $") from None
        return template

    def fill(self, **values: str) -> tuple[str, str]:
        return (string.Template(self.system).substitute(values), string.Template(self.user).substitute(values))


def load_template(condition: str, path: str | Path | None = None, front=None) -> Template:
    """The template of ``condition`` (``plan``/``narrative``) on ``front``'s scenarios
    (None: the gridworld's), or the one in ``path``."""
    check_condition(condition)
    if path is None:
        if front is None:
            from elot.domains.registry import front_for

            front = front_for()
        text, origin = front.prompt_template(condition)     # the one elot ships for the domain
        return Template.parse(text, origin)
    return Template.parse(read_input(path, "prompt template"), str(path))


def check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise BaselineError(f"unknown prompt condition {condition!r}", hint=f"use {' or '.join(CONDITIONS)}")


@dataclass(frozen=True)
class Item:
    """One statement to rate: the scenario it is about (``scenario`` as a study table names
    it), the judgment point ``t``, the statement and its mode, and what the table carries
    along (its id, formula, factors)."""

    scenario: str
    map: str
    t: int
    statement_id: str
    statement: str
    mode: str
    formula: str = ""
    factors: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt: its chat messages (the user's may carry an image) and the
    part of the user text before the statement's own (shared across a scenario)."""

    item: Item
    condition: str
    system: str
    user: str
    image: bytes | None = field(default=None, repr=False)

    def messages(self) -> list[dict]:
        """OpenAI chat messages; an image goes as a PNG ``data:`` URL after the text."""
        out = [{"role": "system", "content": self.system}] if self.system else []
        if self.image is None:
            out.append({"role": "user", "content": self.user})
        else:
            url = "data:image/png;base64," + base64.b64encode(self.image).decode("ascii")
            out.append({"role": "user", "content": [{"type": "text", "text": self.user},
                                                    {"type": "image_url", "image_url": {"url": url}}]})
        return out

    def text(self) -> str:
        """The prompt as a person reads it (``--dry-run``)."""
        image = f"\n[image: the stimulus frame at t={self.item.t}, PNG, {len(self.image):,} bytes]" if self.image else ""
        return f"[system]\n{self.system}\n[user]\n{self.user}{image}\n"

    def digest(self) -> str:
        """SHA-256 of what the model is sent (the image by its bytes)."""
        payload = json.dumps([self.system, self.user, hashlib.sha256(self.image).hexdigest() if self.image else None])
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def examples_block(item: Item, ratings: Mapping[tuple[str, str], Sequence[tuple[str, float]]],
                   signature=None) -> str:
    """People's mean ratings of the scenario's other statements of the same mode (never
    the one asked), as the prompt shows them; '' when there are none."""
    shots = [(text, r) for text, r in ratings.get((item.scenario, item.mode), ()) if text.strip() != item.statement.strip()]
    if not shots:
        return ""
    lines = [f'- "{shown(text, item.mode, signature=signature)}": {r:.1f}' for text, r in shots]
    return ("\nFor comparison, people who watched the same scene rated these other statements "
            f"({LOW} to {HIGH}):\n" + "\n".join(lines) + "\n")


def frame_png(ref, t: int, cell_px: int = 44) -> bytes:
    """The stimulus frame at ``t`` (what participants saw at the judgment), as PNG bytes,
    as the scenario's domain draws it (``elot stimuli``'s frames)."""
    from PIL import Image

    renderer = ref.front.frames(ref.load()).renderer(cell_px)
    try:
        pixels = renderer.frame(t)
    finally:
        renderer.close()
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def render(item: Item, ref, condition: str, template: Template, *,
           ratings: Mapping[tuple[str, str], Sequence[tuple[str, float]]] | None = None,
           image: bool = False, _scenes: dict | None = None) -> Prompt:
    """The prompt for ``item`` on the scenario ``ref`` (a
    :class:`~elot.study.references.ScenarioRef`) in ``condition``: the scene told by its
    domain, the statement in its domain's English."""
    check_condition(condition)
    front, episode = ref.front, ref.load()
    if not 0 <= item.t <= episode.horizon:
        raise BaselineError(f"{item.scenario}: judgment point t={item.t} is outside the plan (0..{episode.horizon})",
                            hint="rate statements at the scenario's judgment points")
    key = (item.scenario, item.t, condition)
    scenes = {} if _scenes is None else _scenes
    if key not in scenes:
        scenes[key] = (front.tell(episode, item.t, condition), frame_png(ref, item.t) if image else None)
    scene, png = scenes[key]
    if ("signature", item.scenario) not in scenes:   # the domain's words for its objects ("the Korean truck")
        scenes[("signature", item.scenario)] = front.signature(episode)
    signature = scenes[("signature", item.scenario)]
    system, user = template.fill(scene=scene, question=front.question(item.mode),
                                 examples=examples_block(item, ratings or {}, signature),
                                 statement=shown(item.statement, item.mode, signature=signature))
    return Prompt(item, condition, system, user, png)
