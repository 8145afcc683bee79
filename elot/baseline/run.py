"""A baseline run: prompts to a backend, answers through a disk cache, results as a
study table with the language model as one more ``model``, and a manifest beside them.

**Cache.** Every answer is appended, as one JSON line, to a journal file (the cache) the
moment it arrives, keyed by the SHA-256 of the backend's description (model, endpoint
host, answer mode), the prompt (its messages and image), the temperature, the repeat and
the seed. A rerun reads the journal first and asks only for what it lacks: a finished
run costs nothing, a killed one resumes where it stopped. The journal is locked while a
run writes to it; a line torn by a kill is dropped when the journal is opened again, and
a file that is not a journal (a user's, given as ``--cache``) is refused, never cut. Every
record is checked when read (:func:`record_problem`): one edited or damaged since (a
rating off the scale, a field missing or of the wrong type, a line that is not JSON) is
refused at its line, and the cache is left byte for byte as it was.

**Table.** One row per prompt (a statement at a scenario's judgment point, in a prompt
condition), in the columns of :mod:`elot.study.tables`: ``model`` is ``LABEL/CONDITION``
(``qwen2.5-coder-1.5b/plan``), ``L`` the mean rating of the repeats mapped to [0, 1]
(1 → 0, 7 → 1; what the in-vs-out comparison, ``report`` and the storyboard read as a
model's value), ``P`` and ``pi`` empty; beyond them ``llm_rating`` (the mean on 1–7),
``answers`` (repeats that gave a rating) and ``no_rating`` (those that did not). A prompt
no repeat answered has no ``L`` and its reasons in ``error``, never a made-up value.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

from elot.baseline.endpoint import Answer
from elot.baseline.parse import STATUSES, checked, normalized
from elot.baseline.prompts import HIGH, LOW, BaselineError, Prompt
from elot.numeric import fsum
from elot.study.tables import ALL_COLUMNS, format_rows, header

#: Columns a baseline table has beyond a batch table's.
LLM_COLUMNS = ("condition", "llm_rating", "answers", "no_rating")
COLUMNS = ALL_COLUMNS + LLM_COLUMNS


class Backend(Protocol):
    """What rates a prompt: an :class:`~elot.baseline.endpoint.Endpoint` or a
    :class:`~elot.baseline.local.LocalModel` (or a test's stand-in)."""

    def describe(self) -> dict: ...

    def rate(self, prompt: Prompt, temperature: float, seed: int) -> Answer: ...


def cache_key(backend: dict, prompt: Prompt, temperature: float, repeat: int, seed: int) -> str:
    payload = json.dumps({"backend": backend, "prompt": prompt.digest(), "temperature": temperature,
                          "repeat": repeat, "seed": seed}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class CacheError(BaselineError):
    """The answer cache cannot be used (another run's, not a cache, not writable): found
    before anything is asked."""


class Journal:
    """The append-only answer cache: ``key → answer record``, one JSON line each."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.answers: dict[str, dict] = {}
        self._handle = None
        self._created = False

    def __enter__(self) -> "Journal":
        self._created = not os.path.lexists(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "a+b")
        except OSError as error:
            raise CacheError(f"cannot open the answer cache {self.path}: {error.strerror or error}",
                             hint="give --cache a file in a folder you can write to") from None
        try:
            import fcntl

            fcntl.flock(self._handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            self._handle.close()
            raise CacheError(f"{self.path}: another run is writing to this cache",
                             hint="wait for it to finish, or give this run another --cache") from None
        self._handle.seek(0)
        data = self._handle.read()
        end = data.rfind(b"\n") + 1
        for number, line in enumerate(data[:end].splitlines(), 1):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                record = None
            if not isinstance(record, dict) or not isinstance(record.get("key"), str) or "answer" not in record:
                self.__exit__()
                raise CacheError(f"{self.path}:{number}: not an answer record; not using this file as the cache",
                                 hint="give --cache a cache file an elot baseline run wrote, or a new name")
            wrong = record_problem(record["answer"])
            if wrong:
                self.__exit__()
                raise CacheError(f"{self.path}:{number}: this answer record {wrong}; not using the cache (it was "
                                 "left as it is)",
                                 hint="a cache holds what the model answered, as elot wrote it: delete this line "
                                      "(its prompt is asked again), or give --cache a new file")
            self.answers[record["key"]] = record["answer"]
        if end < len(data):
            # a line torn by a kill: drop it, so the next one starts clean; anything else
            # (a file of someone else's without a last newline) is not ours to cut
            if not data[end:].startswith(_RECORD_START):
                self.__exit__()
                raise CacheError(f"{self.path}: its last line is not an answer record; not using this file "
                                 "as the cache", hint="give --cache a cache file an elot baseline run wrote, or a new name")
            self._handle.truncate(end)
        return self

    def add(self, key: str, answer: Answer) -> None:
        record = answer.record()
        self._handle.seek(0, os.SEEK_END)
        self._handle.write((json.dumps({"key": key, "answer": record}) + "\n").encode("utf-8"))
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self.answers[key] = record

    def __exit__(self, *exc) -> None:
        self._handle.close()
        if self._created and not self.answers:   # nothing was asked: leave no empty cache behind
            try:
                if os.path.getsize(self.path) == 0:
                    os.unlink(self.path)
            except OSError:
                pass


#: How every record of the journal starts (a torn last line of another file does not).
_RECORD_START = b'{"key": '


def record_problem(answer) -> str:
    """What is wrong with an answer record read from a cache (empty: nothing), so that a
    record edited or damaged since elot wrote it is never read as a rating: it is an
    object with a text, a status that is ``ok`` with a finite rating on 1–7 or a reason
    without one, a mass that is empty or a finite number >= 0, and token counts that are
    whole numbers >= 0."""
    if not isinstance(answer, dict):
        return "is not an object"
    for name in ("text", "rating", "status"):
        if name not in answer:
            return f"has no {name!r}"
    if not isinstance(answer["text"], str):
        return "has a text that is not text"
    status, rating = answer["status"], answer["rating"]
    if status not in STATUSES:
        return f"has an unknown status {status!r}"
    if status == "ok":
        if isinstance(rating, bool) or not isinstance(rating, (int, float)):
            return f"says ok with a rating that is not a number ({rating!r})"
        if not checked(float(rating)).ok:
            return f"has a rating off the scale {LOW}-{HIGH} ({rating!r})"
    elif rating is not None:
        return f"has a rating ({rating!r}) with the status {status!r}, which gives none"
    mass = answer.get("mass")
    if mass is not None and (isinstance(mass, bool) or not isinstance(mass, (int, float))
                             or not math.isfinite(mass) or mass < 0):
        return f"has a token probability mass that is not a finite number >= 0 ({mass!r})"
    for name in ("prompt_tokens", "completion_tokens"):
        value = answer.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return f"has {name} that is not a whole number >= 0 ({value!r})"
    return ""


def check_cache(path: str | Path, *, outputs: Sequence[str | Path] = (), inputs: Sequence[str | Path] = ()) -> Path:
    """The checks on the answer cache made before anything is asked: it is not a folder or
    a device, its folder can be made, and it is none of the run's outputs or inputs (the
    journal itself checks, when opened, that an existing file is one). Returns the path."""
    from elot.output import same_file

    target = Path(path).expanduser()
    for other, what in [(o, "an output of this run") for o in outputs] + [(i, "an input of this run") for i in inputs]:
        if str(other) != "-" and same_file(target, other):
            raise CacheError(f"the answer cache {target} is {what} ({other})",
                             hint="give --cache a file of its own (the default is OUT.cache.jsonl)")
    ancestor = target.parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CacheError(f"cannot write the answer cache {target}: {ancestor} is not a folder",
                         hint="give --cache another path")
    if os.path.lexists(target):
        try:
            info = os.stat(target)
        except OSError as error:
            raise CacheError(f"cannot use the answer cache {target}: {error.strerror or error}",
                             hint="give --cache another path") from None
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise CacheError(f"the answer cache {target} is {what}",
                             hint="give --cache a file name (the default is OUT.cache.jsonl)")
    return target


@dataclass
class RunResult:
    """The table rows, the manifest, and what happened."""

    rows: list[dict]
    manifest: dict
    statuses: Counter = field(default_factory=Counter)
    #: ``(status, text)`` of the first few answers without a rating (distinct texts).
    unrated: list[tuple[str, str]] = field(default_factory=list)

    def table_text(self) -> str:
        return header(COLUMNS) + format_rows(self.rows, COLUMNS)


def order(prompts: Sequence[Prompt]) -> list[int]:
    """Prompt indices in scene order (scenario, point, condition), so a local model's KV
    cache carries each scene from one statement to the next."""
    return sorted(range(len(prompts)), key=lambda i: (prompts[i].condition, prompts[i].item.scenario,
                                                       prompts[i].item.t, prompts[i].item.mode))


def run_baseline(prompts: Sequence[Prompt], backend: Backend, cache: str | Path, *, label: str,
                 repeats: int = 1, temperature: float = 0.0, seed: int = 0, settings: dict | None = None,
                 progress: Callable[[int, int], None] | None = None) -> RunResult:
    """Rate every prompt ``repeats`` times (answers from ``cache`` where it has them) and
    return the table and the manifest. An :class:`EndpointError` (or an interrupt) stops
    the run with every answer so far in the cache."""
    if repeats < 1:
        raise BaselineError(f"--repeats must be at least 1, not {repeats}")
    description = backend.describe()
    started = time.perf_counter()
    statuses: Counter = Counter()
    tokens = Counter()
    asked = cached = 0
    answers: dict[tuple[int, int], dict] = {}
    total = len(prompts) * repeats
    with Journal(cache) as journal:
        done = 0
        for index in order(prompts):
            for repeat in range(repeats):
                key = cache_key(description, prompts[index], temperature, repeat, seed + repeat)
                record = journal.answers.get(key)
                if record is None:
                    answer = backend.rate(prompts[index], temperature, seed + repeat)
                    journal.add(key, answer)
                    record = journal.answers[key]
                    asked += 1
                else:
                    cached += 1
                answers[(index, repeat)] = record
                statuses[record["status"]] += 1
                tokens["prompt"] += record.get("prompt_tokens") or 0
                tokens["completion"] += record.get("completion_tokens") or 0
                done += 1
                if progress is not None:
                    progress(done, total)
    rows = [table_row(prompt, [answers[(i, r)] for r in range(repeats)], label) for i, prompt in enumerate(prompts)]
    masses = [a["mass"] for a in answers.values() if a.get("mass") is not None]
    expected = sum(1 for a in answers.values() if a.get("mass") is not None and a["status"] == "ok")
    manifest = {
        "label": label,
        "backend": description,
        "settings": {"repeats": repeats, "temperature": temperature, "seed": seed, **(settings or {})},
        "prompts": len(prompts),
        "answers": total,
        "asked": asked,
        "from_cache": cached,
        "rated": statuses.get("ok", 0),
        # ratings that are the expected one over 1-7 from token probabilities (the rest
        # were read from the answer's text: an endpoint may ignore --logprobs)
        "from_token_probabilities": expected,
        "no_rating": {s: n for s, n in sorted(statuses.items()) if s != "ok"},
        "tokens": {"prompt": tokens["prompt"], "completion": tokens["completion"]},
        "seconds": round(time.perf_counter() - started, 3),
        "retries": getattr(backend, "retried", 0),
    }
    if masses:
        manifest["rating_token_mass"] = {"mean": fsum(masses) / len(masses), "min": min(masses)}
    if hasattr(backend, "evaluated"):
        manifest["tokens"]["evaluated"] = backend.evaluated
    unrated = list(dict.fromkeys((a["status"], a["text"]) for a in answers.values() if a["status"] != "ok"))[:3]
    return RunResult(rows, manifest, statuses, unrated)


def table_row(prompt: Prompt, answers: Sequence[dict], label: str) -> dict:
    item = prompt.item
    ratings = [a["rating"] for a in answers if a["status"] == "ok" and a["rating"] is not None]
    failed = Counter(a["status"] for a in answers if a["status"] != "ok")
    mean = fsum(ratings) / len(ratings) if ratings else None
    row = {"scenario": item.scenario, "map": item.map, "model": f"{label}/{prompt.condition}",
           "statement_id": item.statement_id, "statement": item.statement, "formula": item.formula,
           "mode": item.mode, "t": item.t, "P": None, "L": None if mean is None else normalized(mean), "pi": None,
           "error": "" if ratings else "no rating: " + ", ".join(f"{n} {s}" for s, n in sorted(failed.items())),
           "condition": prompt.condition, "llm_rating": mean, "answers": len(ratings),
           "no_rating": sum(failed.values())}
    row.update(dict(item.factors))
    return row


def manifest_text(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, sort_keys=False) + "\n"


__all__ = ["Backend", "COLUMNS", "CacheError", "Journal", "RunResult", "cache_key", "check_cache", "run_baseline",
           "table_row"]
