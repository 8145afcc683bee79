"""Stimulus sets: what participants of an experiment watch, and the ``stimuli.json`` a
survey reads (SPEC §8).

For each scenario the plan is cut at its judgment points into segments. Segment 0 is the
start (one frame, t = 0); segment k ≥ 1 shows the actions after judgment point k−1 up to
judgment point k (or the plan's end), one frame per action, so it has as many frames as
actions (with ``from_start``, it replays the plan from t = 0 instead). Each segment becomes one animation (``NAME_k.gif``, and ``NAME_k.mp4`` when
``ffmpeg`` is on the PATH). ``stimuli.json`` holds one object per scenario in the schema
of the paper's survey (:data:`SCHEMA`):

* ``name`` — the plan id (``"1_2"``) or the scenario's name;
* ``goal`` — the true goal gem, 1-based in the map's gem order;
* ``images`` — the animation files, one per segment;
* ``times`` — the judgment points as 1-based step indices (actions + 1), starting with 1
  (the start) and ending with the plan's last step;
* ``statements`` — the sentences asked;
* ``relevant_colors`` — the colours of the keys hidden at the start that the shown plan
  (completed to the true goal when it stops short) picks up, in pickup order (see
  :func:`relevant`);
* ``relevant_boxes`` — the numbers of the boxes that held those keys; both empty when the
  plan picks up no hidden key;
* ``length`` — segments after the first, ``len(times) − 1``;

and, beyond the paper's schema (optional when read):

* ``modes`` — each statement's mode (``current`` or ``initial``);
* ``scenario`` — the scenario as ``elot batch`` and ``elot fit`` name it, so ratings can
  say which scenario they rate.

The statements are the scenario's own, or the ones given (``elot stimuli --statements``,
chosen with ``elot design``).

The folder is an :class:`~elot.output.OwnedFolder`: written to a temporary folder beside
it and swapped into place when every scenario is rendered, so a failure or an interrupt
leaves nothing half-written. Its hidden :data:`MANIFEST` records every file elot wrote
there: files changed since are replaced only with ``force``, files elot never wrote are
kept, and a folder elot did not write, or a symbolic link, needs ``force``. The check is
made before rendering and again at the swap. A temporary folder carries :data:`RUN_MARK`,
locked while its run lives; one left by a killed run is removed by the next run into the
same folder (:func:`clean_stale`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from elot.errors import ElotError
from elot.output import OwnedFolder
from elot.study.params import StudyError
from elot.study.references import ScenarioRef, scenario_items

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
    kinds = {"string": str, "integer": int, "array": list}
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
            if not isinstance(value, kinds[rule["type"]]) or isinstance(value, bool):
                problems.append(f"{where}: {name!r} is not {_article(rule['type'])}")
                continue
            if rule["type"] == "array":
                item = kinds[rule["items"]["type"]]
                if not all(isinstance(v, item) and not isinstance(v, bool) for v in value):
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
    after the previous judgment point up to its own)."""

    index: int
    steps: tuple[int, ...]


def segments(scenario, *, from_start: bool = False) -> list[Segment]:
    """The scenario's segments; a scenario without judgment points has none to judge and
    is refused. With ``from_start`` each segment after the first replays the plan from
    t = 0 up to its judgment point (as the one animation of the paper's team that we have
    seen does: 17 frames from the start to the judgment point at t = 16) instead of
    starting after the previous point."""
    judged = [t for t in scenario.judgments if 0 < t < scenario.T]
    if not judged:
        raise StudyError(f"{scenario.name} has no judgment points between its start and its end",
                         path=scenario.path,
                         hint="mark them in the actions with | (or take elot plan's suggestions); a stimulus "
                              "set shows the plan in segments that end at judgment points")
    ends = [*judged, scenario.T]
    out = [Segment(0, (0,))]
    start = 0
    for k, end in enumerate(ends, start=1):
        out.append(Segment(k, tuple(range(0 if from_start else start + 1, end + 1))))
        start = end
    return out


def times(scenario) -> list[int]:
    """The judgment points as the survey counts them: 1-based step indices, from the start
    to the plan's last step."""
    return [1, *(t + 1 for t in scenario.judgments if 0 < t < scenario.T), scenario.T + 1]


def relevant(scenario) -> tuple[list[str], list[int]]:
    """(relevant_colors, relevant_boxes) by the rule of the LaBToM dataset's published
    ``stimuli_*.json`` (all 40 scenarios agree with it): the keys the agent picks up over
    the whole shown plan, from t = 0, that were hidden at the start, in pickup order, give
    the colours (a colour repeats when two such keys share it), and the numbers of the
    boxes that held them give the boxes. A plan that ends before the true goal is held is
    first completed by an optimal plan in the true world (:func:`optimal_completion`, the
    first shortest plan in the order of
    :meth:`~elot.domains.doors_keys_gems.world.WorldState.available_actions`), as the shown segments are.
    Both are empty when no hidden key is picked up.

    Planning a fresh completion from the last judgment point instead (the rule this
    function followed before) disagrees with the dataset on 3 of 40 scenarios: 4_1, whose
    agent opens box 2 where an equally short completion opens box 3, and 4_2 of
    exp2_current, whose key from box 1 was found before the last judgment point."""
    from elot.draw.board import box_number

    goal = scenario.true_goal
    if goal is None:
        return [], []
    start = scenario.state_at(0)
    actions = list(scenario.actions)
    end = scenario.state_at(scenario.T)
    if not end.goal_reached(goal):
        actions += optimal_completion(end, goal) or []
    numbers = {box: box_number(box, n) for n, (box, _) in enumerate(scenario.layout.boxes)}
    colours, boxes = [], []
    for action in actions:
        if action[0] == "pickup" and start.layout.is_key(action[1]) and start.hidden(action[1]):
            key = start.key(action[1])
            colours.append(key.colour)
            number = numbers[key.where[1]]
            boxes.append(int(number) if number.isdigit() else list(numbers).index(key.where[1]) + 1)
    return colours, boxes


#: States a completion search may visit before it gives up (a map far beyond any study's).
MAX_COMPLETION_STATES = 2_000_000


def optimal_completion(state, goal: str) -> list | None:
    """A shortest sequence of actions from ``state`` (the true world, fully known) to
    holding ``goal``; None when it cannot be reached."""
    from collections import deque

    def key(s):
        return (s.agent_pos, s.keys, s.locked, s.closed, s.held_gems)

    if state.goal_reached(goal):
        return []
    parents = {key(state): None}
    queue = deque([state])
    while queue:
        current = queue.popleft()
        for action in current.available_actions():
            following = current.step(action)
            k = key(following)
            if k in parents:
                continue
            parents[k] = (key(current), action)
            if following.goal_reached(goal):
                plan = []
                while parents[k] is not None:
                    k, step = parents[k]
                    plan.append(step)
                return plan[::-1]
            if len(parents) > MAX_COMPLETION_STATES:
                raise StudyError(f"no completion to {goal} found within {MAX_COMPLETION_STATES} states",
                                 hint="the map is too large for relevant_colors; cut it down")
            queue.append(following)
    return None


def stimulus_name(ref: ScenarioRef, scenario) -> str:
    """The ``name`` of a scenario in ``stimuli.json``: its plan id, else its name made
    safe for file names (:func:`elot.output.file_stem`: a long one is cut)."""
    from elot.output import file_stem

    return file_stem(ref.plan_id or scenario.name)


def entry(ref: ScenarioRef, scenario, name: str, images: Sequence[str], items: Sequence | None = None) -> dict:
    """The ``stimuli.json`` object of one scenario; its statements are ``items`` (the
    ones chosen with ``elot design``), else the scenario's own."""
    if scenario.true_goal is None:
        raise StudyError(f"{scenario.name} has no true goal", path=scenario.path,
                         hint="name it with `goal: gemN` or mark its gem G on the map")
    goal = [g for g, _ in scenario.layout.gems].index(scenario.true_goal) + 1
    colours, boxes = relevant(scenario)
    point_times = times(scenario)
    asked = list(items) if items is not None else list(scenario_items(ref))
    return {"name": name, "goal": goal, "images": list(images), "times": point_times,
            "statements": [item.text for item in asked], "modes": [item.mode for item in asked],
            "scenario": ref.name,
            "relevant_colors": colours, "relevant_boxes": boxes, "length": len(point_times) - 1}


@dataclass(frozen=True)
class Job:
    """One scenario to render into ``folder``."""

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


def palette_steps(scenario, parts: Sequence[Segment], frame_bytes: int, objects_key=None) -> list[int]:
    """The steps whose frames make a scenario's GIF palette: the start, the end, every
    segment's end and eight steps between (every colour that appears is in one of them,
    and a long plan is never held whole), at most :data:`PALETTE_SAMPLE_BYTES` of them
    (:func:`palette_size`). Past that, the start and the end come first, then (with
    ``objects_key``, a step's picture of the doors, boxes and keys) each step where that
    picture changes, then the others, evenly."""
    T = scenario.T
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
    from elot.draw.animation import Renderer, palette_of, write_gif, write_mp4

    scenario = job.ref.load()
    parts = segments(scenario, from_start=job.from_start)
    states = scenario.states()
    renderer = Renderer(states, cell_px=job.cell_px, size_px=job.size_px)
    images, counts = [], []
    try:
        width, height = renderer.size
        palette = palette_of(renderer, palette_steps(scenario, parts, width * height * 3,
                                                     lambda t: renderer.board.objects_key(states[t])))
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
    return entry(job.ref, scenario, job.name, images, job.items), counts


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


def check_folder(folder: str | Path, *, force: bool = False) -> Path:
    """The checks made before any rendering (:meth:`OwnedFolder.check`): the folder can be
    made where it is asked for, and an existing one may be replaced."""
    return owned_folder(folder, force=force).check()


def segment_bytes(scenario, cell_px: int, from_start: bool = False, size_px: int | None = None) -> int:
    """Memory one worker needs to render the scenario (as measured on maps of 1 to 25
    million pixels a frame): the interpreter with matplotlib and Pillow (96 MiB), the
    figure (Agg's canvas, the layers it saves and a frame: 10 bytes a pixel), and the
    larger of the palette (:data:`~elot.draw.animation.PALETTE_BYTES_PER_PIXEL` for each
    frame of its sample, :func:`palette_steps`) and the longest segment (each frame as
    RGB while it is drawn and as a palette image while the GIF is written, since Pillow
    holds a GIF's frames until it writes them, counted twice; and the encoder's copies
    of one frame)."""
    from elot.draw.animation import PALETTE_BYTES_PER_PIXEL
    from elot.draw.board import frame_size

    width, height = frame_size(scenario.layout, cell_px, size_px)
    pixels = width * height
    parts = segments(scenario, from_start=from_start)
    longest = max(len(part.steps) for part in parts)
    sampled = len(palette_steps(scenario, parts, 3 * pixels))
    return 96 * 2 ** 20 + pixels * (10 + max(sampled * PALETTE_BYTES_PER_PIXEL, longest * (3 + 1) * 2 + 4))


def check_memory(scenarios, jobs: int, cell_px, from_start: bool = False, size_px: int | None = None) -> None:
    """Refuse a set whose concurrent segments would not fit in memory, with the estimate
    (``cell_px``: one cell size for every scenario, or one for each)."""
    from elot.study.resources import check_fits_in_memory

    cells = [cell_px] * len(scenarios) if isinstance(cell_px, int) else list(cell_px)
    check_fits_in_memory((segment_bytes(s, c, from_start, size_px) for s, c in zip(scenarios, cells)), jobs,
                         work="rendering",
                         largest="the largest scenario",
                         hint="use a smaller --cell or fewer --jobs, or add judgment points to cut long segments")


def make_stimuli(refs: Sequence[ScenarioRef], folder: str | Path, *, jobs: int = 1, mp4: bool | None = None,
                 cell_px: int | None = None, size_px: int | None = None, loop: bool = False,
                 from_start: bool = False, force: bool = False, statements: Sequence | None = None,
                 progress: Callable[[int, int], None] | None = None) -> StimulusSet:
    """Render a stimulus set for ``refs`` into ``folder`` (see the module's docstring),
    in ``jobs`` processes. Frames are ``cell_px`` pixels a cell if given, else exactly
    ``size_px`` pixels (default :data:`~elot.draw.board.FRAME_SIZE`) on their longer side,
    with cells as large as fit (a map whose cells would be under
    :data:`~elot.draw.board.MIN_CELL` pixels is refused, naming the size it needs); the GIFs play once, or forever with ``loop``. ``mp4`` defaults to whether
    ``ffmpeg`` is on the PATH; ``force`` replaces a folder elot did not write (or one
    changed since)."""
    from elot.draw.animation import ffmpeg
    from elot.draw.board import FRAME_SIZE, MIN_CELL, cell_for_size
    from elot.study.executors import WorkersLost

    owned = owned_folder(folder, force=force)
    target = owned.check()
    if mp4 is None:
        mp4 = ffmpeg() is not None
    elif mp4 and ffmpeg() is None:
        raise StudyError("--mp4 needs ffmpeg on the PATH", hint="install ffmpeg, or leave --mp4 out for GIFs only")
    scenarios = [ref.load() for ref in refs]
    for scenario in scenarios:      # bad input is refused before anything is drawn
        segments(scenario)
        if scenario.true_goal is None:
            raise StudyError(f"{scenario.name} has no true goal", path=scenario.path,
                             hint="name it with `goal: gemN` or mark its gem G on the map")
    size = None if cell_px else size_px or FRAME_SIZE
    cells = [cell_px or cell_for_size(s.layout, size) for s in scenarios]
    for scenario, cell in zip(scenarios, cells):
        if size is not None and cell < MIN_CELL:     # a --cell is checked where it is read
            raise too_small(scenario, size, cell)
    check_memory(scenarios, jobs, cells, from_start, size)
    names: list[str] = []
    for ref, scenario in zip(refs, scenarios):
        name = stimulus_name(ref, scenario)
        if name in names and ref.exp:
            name = f"{ref.exp}_{name}"
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


def too_small(scenario, size_px: int, cell_px: int) -> StudyError:
    """The error for a frame of ``size_px`` pixels whose cells, ``cell_px``, would be too
    small to read: what the map needs instead."""
    from elot.draw.board import MIN_CELL, frame_size

    layout = scenario.layout
    width, height = frame_size(layout, MIN_CELL)
    return StudyError(f"{scenario.name}: a {size_px}-pixel frame of its {layout.width} × {layout.height} map gives "
                      f"cells of {cell_px} pixels, too small to read (at least {MIN_CELL})",
                      path=scenario.path,
                      hint=f"use --cell {MIN_CELL} (frames of {width} × {height} pixels) or --size {max(width, height)} "
                      "or more")


def _run(work: Sequence[Job], jobs: int, progress) -> list[tuple[dict, list[int]]]:
    """Render every job, in order, serially or in ``jobs`` processes."""
    results: list = [None] * len(work)
    if jobs <= 1 or len(work) <= 1:
        for n, job in enumerate(work):
            results[n] = render(job)
            if progress:
                progress(n + 1, len(work))
        return results
    from elot.study.executors import in_workers

    finished = in_workers(render, [(job,) for job in work], min(jobs, len(work)), preload=("elot.draw.animation",))
    for done, (n, result) in enumerate(finished, start=1):
        results[n] = result
        if progress:
            progress(done, len(work))
    return results
