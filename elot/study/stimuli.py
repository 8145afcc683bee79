"""Stimulus sets: what participants of an experiment watch, and the ``stimuli.json`` a
survey reads (SPEC §8), in any domain whose front draws frames
(:meth:`elot.domains.front.Front.frames`).

For each scenario the path is cut where its domain says (:meth:`~elot.domains.front.Front.stimulus_points`:
the gridworld at its judgment points inside the plan and at its end; food trucks at its
judgment points, else its end). Segment 0 is the start (one frame, t = 0); segment k ≥ 1
shows the steps after point k−1 up to point k, one frame a step (with ``from_start``, it
replays the path from t = 0 instead). Each segment becomes one animation (``NAME_k.gif``,
and ``NAME_k.mp4`` when ``ffmpeg`` is on the PATH). ``stimuli.json`` holds one object per
scenario in the schema of the paper's survey (:data:`SCHEMA`):

* ``name`` — the scenario's stimulus name (the gridworld: its plan id, or its name);
* ``goal`` — the goal asked about, 1-based (the gridworld: the true gem in the map's order);
* ``images`` — the animation files, one per segment;
* ``times`` — the segments' ends as 1-based step indices (steps + 1), starting with 1;
* ``statements`` — the sentences asked;
* ``relevant_colors``, ``relevant_boxes`` — the gridworld's: the colours of the keys hidden
  at the start that the shown plan (completed to the true goal when it stops short) picks
  up, in pickup order, and the boxes that held them (empty elsewhere);
* ``length`` — segments after the first, ``len(times) − 1``;

and, beyond the paper's schema (optional when read):

* ``modes`` — each statement's mode (``current`` or ``initial``); ``shown`` — each as
  participants read it (ELoT in the domain's English);
* ``scenario`` — the scenario as ``elot batch`` and ``elot fit`` name it, so ratings can
  say which scenario they rate; ``domain`` — its domain, whose words the survey's page
  speaks; ``gems`` — how many goals the survey asks participants to tick (0: none);
  ``judged`` — whether each segment's end is a judgment point; and what the domain adds
  (food trucks: the map, what spot 2 holds, the moves).

The statements are the scenario's own (the domain's questions), or the ones given (``elot
stimuli --statements``, chosen with ``elot design``).

The folder is an :class:`~elot.output.OwnedFolder`: written to a temporary folder beside
it and swapped into place when every scenario is rendered, so a failure or an interrupt
leaves nothing half-written. Its hidden manifest records every file elot wrote there:
files changed since are replaced only with ``force``, files elot never wrote are kept, and
a folder elot did not write, or a symbolic link, needs ``force``. The check is made before
rendering and again at the swap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from elot.errors import ElotError
from elot.output import OwnedFolder
from elot.study.params import StudyError
from elot.study.references import ScenarioRef

#: The file a survey reads.
INDEX = "stimuli.json"
#: What the set's manifest says it is.
_KIND = "elot stimuli"

#: ``stimuli.json`` as JSON Schema (draft 2020-12): a list of scenario objects.
SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["name", "goal", "images", "times", "statements", "relevant_colors", "relevant_boxes",
                     "length"],
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "goal": {"type": "integer", "minimum": 1},
            "images": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2},
            "times": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2},
            "statements": {"type": "array", "items": {"type": "string"}},
            "relevant_colors": {"type": "array", "items": {"type": "string"}},
            "relevant_boxes": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            "length": {"type": "integer", "minimum": 1},
            # beyond the paper's schema, optional: each statement's mode, and the scenario as
            # elot batch and elot fit name it (the ratings' scenario column)
            "modes": {"type": "array", "items": {"type": "string", "enum": ["current", "initial"]}},
            "scenario": {"type": "string", "minLength": 1},
            # each statement as participants read it, the domain, how many goals are ticked,
            # and whether each segment's end is a judgment point
            "shown": {"type": "array", "items": {"type": "string"}},
            "domain": {"type": "string", "minLength": 1},
            "gems": {"type": "integer", "minimum": 0},
            "judged": {"type": "array", "items": {"type": "boolean"}},
        },
    },
}


def check_stimuli(data, folder: str | Path | None = None) -> list[str]:
    """What is wrong with a ``stimuli.json`` document (empty when nothing): the fields of
    :data:`SCHEMA` with their types, and what the schema cannot say — ``length`` is
    ``len(times) − 1``, one image per time, times strictly increasing from 1, and (with
    ``folder``) every image present in the folder."""
    problems: list[str] = []
    if not isinstance(data, list):
        return ["the document is not a list of scenarios"]
    kinds = {"string": str, "integer": int, "array": list, "boolean": bool}
    fields = SCHEMA["items"]["properties"]
    names = set()
    for n, entry in enumerate(data):
        where = f"scenario {n + 1}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: not an object")
            continue
        where = f"scenario {entry.get('name', n + 1)!s}"
        for name, rule in fields.items():
            if name not in entry:
                if name in SCHEMA["items"]["required"]:
                    problems.append(f"{where}: no {name!r}")
                continue
            value = entry[name]
            if not isinstance(value, kinds[rule["type"]]) or isinstance(value, bool) and rule["type"] != "boolean":
                problems.append(f"{where}: {name!r} is not {_article(rule['type'])}")
                continue
            if rule["type"] == "array":
                item = kinds[rule["items"]["type"]]
                if not all(isinstance(v, item) and (not isinstance(v, bool) or item is bool) for v in value):
                    problems.append(f"{where}: {name!r} holds something that is not {_article(rule['items']['type'])}")
        if any(p.startswith(where + ":") for p in problems):
            continue
        if entry["name"] in names:
            problems.append(f"{where}: the name is used twice")
        names.add(entry["name"])
        times, images = entry["times"], entry["images"]
        if "modes" in entry and (len(entry["modes"]) != len(entry["statements"])
                                 or not set(entry["modes"]) <= {"current", "initial"}):
            problems.append(f"{where}: 'modes' must give current or initial for each statement")
        if entry["length"] != len(times) - 1:
            problems.append(f"{where}: length {entry['length']} is not len(times) - 1 = {len(times) - 1}")
        if len(images) != len(times):
            problems.append(f"{where}: {len(images)} images for {len(times)} times")
        for field in ("shown", "judged"):
            wanted = len(entry["statements"]) if field == "shown" else len(times)
            if field in entry and len(entry[field]) != wanted:
                problems.append(f"{where}: {field!r} has {len(entry[field])} values, not {wanted}")
        if not times or times[0] != 1 or any(b <= a for a, b in zip(times, times[1:])):
            problems.append(f"{where}: times must start at 1 and increase")
        if entry["goal"] < 1:
            problems.append(f"{where}: goal must be 1 or more")
        if folder is not None:
            for image in images:
                if not (Path(folder) / image).is_file():
                    problems.append(f"{where}: image {image} is missing")
    return problems


def _article(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


@dataclass(frozen=True)
class Segment:
    """One animation: the steps t it shows (segment 0 shows t = 0; segment k the steps
    after the previous point up to its own)."""

    index: int
    steps: tuple[int, ...]


def segments(points: Sequence[int], *, from_start: bool = False) -> list[Segment]:
    """The segments of a path cut at ``points`` (its domain's
    :meth:`~elot.domains.front.Front.stimulus_points`). With ``from_start`` each segment
    after the first replays the path from t = 0 up to its point (as the one animation of
    the paper's team that we have seen does: 17 frames from the start to the judgment
    point at t = 16) instead of starting after the previous point."""
    out = [Segment(0, (0,))]
    start = 0
    for k, end in enumerate(points, start=1):
        out.append(Segment(k, tuple(range(0 if from_start else start + 1, end + 1))))
        start = end
    return out


def times(points: Sequence[int]) -> list[int]:
    """The segments' ends as the survey counts them: 1-based step indices, from the start."""
    return [1, *(t + 1 for t in points)]


def entry(ref: ScenarioRef, name: str, images: Sequence[str], items: Sequence | None = None) -> dict:
    """The ``stimuli.json`` object of one scenario; its statements are ``items`` (the
    ones chosen with ``elot design``), else its domain's questions."""
    front, episode = ref.front, ref.load()
    points = front.stimulus_points(episode)
    point_times = times(points)
    asked = list(items) if items is not None else list(front.questions(episode))
    signature = front.signature(episode)
    fields = front.stimulus_fields(episode)
    out = {"name": name, "goal": fields.pop("goal"), "images": list(images), "times": point_times,
           "statements": [item.text for item in asked], "modes": [item.mode for item in asked],
           "scenario": ref.name, "relevant_colors": fields.pop("relevant_colors", []),
           "relevant_boxes": fields.pop("relevant_boxes", []), "length": len(point_times) - 1,
           "shown": [front.shown(item.text, item.mode, signature) for item in asked],
           "domain": front.spec, "judged": [t - 1 in episode.judged for t in point_times]}
    out.update(fields)
    return out


@dataclass(frozen=True)
class Job:
    """One scenario to render into ``folder`` (in any worker: the scenario by reference)."""

    ref: ScenarioRef
    name: str
    folder: str
    mp4: bool
    cell_px: int = 44
    from_start: bool = False
    loop: bool = False
    items: tuple | None = None
    size_px: int | None = None      # the frame's longer side, when --size chose the cell


#: At most this many bytes of frames (RGB) are sampled for a set's GIF palette: a map
#: past it is sampled at fewer steps (:func:`palette_steps`).
PALETTE_SAMPLE_BYTES = 64 * 2 ** 20


def palette_steps(T: int, parts: Sequence[Segment], frame_bytes: int, objects_key=None) -> list[int]:
    """The steps whose frames make a scenario's GIF palette: the start, the end, every
    segment's end and eight steps between (every colour that appears is in one of them,
    and a long path is never held whole), at most :data:`PALETTE_SAMPLE_BYTES` of them
    (:func:`palette_size`). Past that, the start and the end come first, then (with
    ``objects_key``, a step's picture of the scene's things, None where a domain does not
    say) each step where that picture changes, then the others, evenly."""
    sample = sorted({0, T, *(p.steps[-1] for p in parts), *range(0, T, max(1, T // 8))})
    room = palette_size(len(sample), frame_bytes)
    if room >= len(sample):
        return sample
    first = [0, T]
    if objects_key is not None:
        keys = [objects_key(t) for t in range(T + 1)]
        first += [t for t in range(1, T + 1) if keys[t] != keys[t - 1]]
    chosen = list(dict.fromkeys(first))[:room]
    rest = [t for t in sample if t not in set(chosen)]
    left = room - len(chosen)
    if left > 0:
        chosen += rest if left >= len(rest) else [rest[n * len(rest) // left] for n in range(left)]
    return sorted(chosen)


def palette_size(sampled: int, frame_bytes: int) -> int:
    """How many of ``sampled`` frames of ``frame_bytes`` the palette is made from: as many
    as :data:`PALETTE_SAMPLE_BYTES` holds, at least the start and the end."""
    return min(sampled, max(2, PALETTE_SAMPLE_BYTES // max(frame_bytes, 1)))


def render(job: Job) -> tuple[dict, list[int]]:
    """Render one scenario's segments into ``job.folder``; returns its ``stimuli.json``
    object and the number of frames of each segment."""
    from elot.draw.animation import palette_of, write_gif, write_mp4

    front, episode = job.ref.front, job.ref.load()
    parts = segments(front.stimulus_points(episode), from_start=job.from_start)
    renderer = front.frames(episode).renderer(job.cell_px, job.size_px)
    images, counts = [], []
    try:
        width, height = renderer.size
        palette = palette_of(renderer, palette_steps(parts[-1].steps[-1], parts, width * height * 3,
                                                     renderer.objects_key))
        for part in parts:
            frames = [renderer.frame(t) for t in part.steps]
            image = f"{job.name}_{part.index}.gif"
            write_gif(frames, Path(job.folder) / image, palette=palette, loop=job.loop)
            if job.mp4:
                write_mp4(frames, Path(job.folder) / f"{job.name}_{part.index}.mp4")
            images.append(image)
            counts.append(len(frames))
    finally:
        renderer.close()
    return entry(job.ref, job.name, images, job.items), counts


@dataclass
class StimulusSet:
    """What :func:`make_stimuli` wrote."""

    folder: Path
    entries: list[dict]
    frames: dict[str, list[int]]
    mp4: bool


def owned_folder(folder: str | Path, *, force: bool = False) -> OwnedFolder:
    """The stimulus set ``folder`` as elot writes it (see the module's docstring)."""
    return OwnedFolder(folder, _KIND, what="stimulus set", force=force, error=StudyError)


def segment_bytes(frames, points: Sequence[int], cell_px: int, from_start: bool = False,
                  size_px: int | None = None) -> int:
    """Memory one worker needs to render a scenario (as measured on maps of 1 to 25
    million pixels a frame): the interpreter with matplotlib and Pillow (96 MiB), the
    figure (Agg's canvas, the layers it saves and a frame: 10 bytes a pixel), and the
    larger of the palette (:data:`~elot.draw.animation.PALETTE_BYTES_PER_PIXEL` for each
    frame of its sample, :func:`palette_steps`) and the longest segment (each frame as
    RGB while it is drawn and as a palette image while the GIF is written, since Pillow
    holds a GIF's frames until it writes them, counted twice; and the encoder's copies
    of one frame)."""
    from elot.draw.animation import PALETTE_BYTES_PER_PIXEL

    width, height = frames.frame_size(cell_px, size_px)
    pixels = width * height
    parts = segments(points, from_start=from_start)
    longest = max(len(part.steps) for part in parts)
    sampled = len(palette_steps(parts[-1].steps[-1], parts, 3 * pixels))
    return 96 * 2 ** 20 + pixels * (10 + max(sampled * PALETTE_BYTES_PER_PIXEL, longest * (3 + 1) * 2 + 4))


def check_memory(drawn: Sequence[tuple], jobs: int, from_start: bool = False, size_px: int | None = None) -> None:
    """Refuse a set whose concurrent segments would not fit in memory, with the estimate
    (``drawn``: each scenario's (frames, points, cell size))."""
    from elot.study.resources import check_fits_in_memory

    check_fits_in_memory((segment_bytes(f, p, c, from_start, size_px) for f, p, c in drawn), jobs,
                         work="rendering",
                         largest="the largest scenario",
                         hint="use a smaller --cell or fewer --jobs, or add judgment points to cut long segments")


def make_stimuli(refs: Sequence[ScenarioRef], folder: str | Path, *, jobs: int = 1, mp4: bool | None = None,
                 cell_px: int | None = None, size_px: int | None = None, loop: bool = False,
                 from_start: bool = False, force: bool = False, statements: Sequence | None = None,
                 progress: Callable[[int, int], None] | None = None) -> StimulusSet:
    """Render a stimulus set for ``refs`` (scenarios of one domain) into ``folder`` (see
    the module's docstring), in ``jobs`` processes. Frames are ``cell_px`` pixels a cell if
    given, else exactly ``size_px`` pixels (default :data:`~elot.draw.palette.FRAME_SIZE`)
    on their longer side, with cells as large as fit (a map whose cells would be under
    :data:`~elot.draw.palette.MIN_CELL` pixels is refused, naming the size it needs); the
    GIFs play once, or forever with ``loop``. ``mp4`` defaults to whether ``ffmpeg`` is on
    the PATH; ``force`` replaces a folder elot did not write (or one changed since)."""
    from elot.draw.animation import ffmpeg
    from elot.draw.palette import FRAME_SIZE, MIN_CELL
    from elot.study.executors import WorkersLost

    owned = owned_folder(folder, force=force)
    target = owned.check()
    if mp4 is None:
        mp4 = ffmpeg() is not None
    elif mp4 and ffmpeg() is None:
        raise StudyError("--mp4 needs ffmpeg on the PATH", hint="install ffmpeg, or leave --mp4 out for GIFs only")
    domains = {ref.front.name for ref in refs}
    if len(domains) > 1:
        raise StudyError(f"the scenarios are of {len(domains)} domains ({', '.join(sorted(domains))}): a stimulus set "
                         "is of one", hint="render each domain's scenarios into a set of its own")
    drawn = []
    for ref in refs:      # bad input is refused before anything is drawn
        front, episode = ref.front, ref.load()
        points = front.stimulus_points(episode)
        front.stimulus_fields(episode)
        drawn.append((front.frames(episode), points))
    size = None if cell_px else size_px or FRAME_SIZE
    cells = [cell_px or frames.cell_for_size(size) for frames, _ in drawn]
    for ref, (frames, _), cell in zip(refs, drawn, cells):
        if size is not None and cell < MIN_CELL:     # a --cell is checked where it is read
            raise too_small(ref.load().name, frames, size, cell)
    check_memory([(f, p, c) for (f, p), c in zip(drawn, cells)], jobs, from_start, size)
    names: list[str] = []
    for ref in refs:
        name = stimulus_name(ref)
        prefix = getattr(ref.key, "exp", None)
        if name in names and prefix:
            name = f"{prefix}_{name}"
        base, n = name, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.append(name)
    with owned as temporary:
        items = tuple(statements) if statements else None     # the same for every scenario
        work = [Job(ref, name, str(temporary), mp4, cell, from_start, loop, items, size)
                for ref, name, cell in zip(refs, names, cells)]
        try:
            results = _run(work, jobs, progress)
        except WorkersLost as error:
            raise error.saying(f"{target} was not written: rerun with fewer --jobs or a smaller --cell or --size if "
                               "memory ran out") from None
        entries = [r[0] for r in results]
        problems = check_stimuli(entries, temporary)
        if problems:   # a bug, not bad input: say so rather than write a set a survey cannot read
            raise ElotError("the stimulus set does not match its schema: " + "; ".join(problems))
        (temporary / INDEX).write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
        owned.commit()
    return StimulusSet(target, entries, {e["name"]: r[1] for e, r in zip(entries, results)}, mp4)


def stimulus_name(ref: ScenarioRef) -> str:
    """The ``name`` of a scenario in ``stimuli.json``: its domain's, made safe for file
    names (:func:`elot.output.file_stem`: a long one is cut)."""
    from elot.output import file_stem

    return file_stem(ref.front.stimulus_name(ref.load()))


def too_small(name: str, frames, size_px: int, cell_px: int) -> StudyError:
    """The error for a frame of ``size_px`` pixels whose cells, ``cell_px``, would be too
    small to read: what the map needs instead."""
    from elot.draw.palette import MIN_CELL

    width, height = frames.frame_size(MIN_CELL)
    return StudyError(f"{name}: a {size_px}-pixel frame of its {frames.width} × {frames.height} map gives "
                      f"cells of {cell_px} pixels, too small to read (at least {MIN_CELL})",
                      hint=f"use --cell {MIN_CELL} (frames of {width} × {height} pixels) or --size {max(width, height)} "
                      "or more")


def _run(work: Sequence[Job], jobs: int, progress) -> list[tuple[dict, list[int]]]:
    """Render every job, in order, serially or in ``jobs`` processes."""
    from elot.study.executors import mapped

    results: list = [None] * len(work)
    finished = mapped(render, [(job,) for job in work], jobs, preload=("elot.draw.animation", "elot.draw.frames"))
    for done, (n, result) in enumerate(finished, start=1):
        results[n] = result
        if progress:
            progress(done, len(work))
    return results
