"""Stimulus sets of food-truck scenarios (``elot stimuli SCENARIO.trucks``): what a study
of Baker et al. (2017)'s kind shows its participants, with a ``stimuli.json`` that
``elot survey build`` reads.

A food-truck scenario is judged at the end of its path (as in the experiment), or at the
times its ``judge`` line names: its segments are the start (one frame, t = 0) and the path
up to each judgment point (one frame a move and one more for eating), so ``times`` is
``[1, T + 1]`` and ``length`` 1 for a path judged at its end T, and ``[1, t1 + 1, t2 + 1,
...]`` for judgment points t1 < t2 < .... Each entry is in
the schema of :data:`elot.study.stimuli.SCHEMA`, read as follows:

* ``goal`` — the truck the student eats at (1 Korean, 2 Lebanese, 3 Mexican), or 1 when
  the path ends before eating; the survey asks no goal question of a food-truck set;
* ``relevant_colors``, ``relevant_boxes`` — empty (there are no keys or boxes);

and beyond it (optional fields the reader ignores): ``domain`` (``"foodtrucks"``: what
``elot survey build`` dispatches on), ``shown`` (each statement as participants read it),
``map``, ``spot2`` (what spot 2 really holds) and ``moves`` (the ``.trucks`` moves).

The statements are given (``--statements``), else the experiment's belief questions:
what the student thought at first was at spot 2 (:data:`DEFAULT_STATEMENTS`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from elot.errors import ElotError
from elot.study.params import StudyError

#: The experiment's belief questions, in ELoT (initial mode), with the English shown.
DEFAULT_STATEMENTS = (
    ("believes(student, formula(at(lebanese, spot2)))", "initial",
     "At first, the student thought the Lebanese truck was at spot 2, behind the building."),
    ("believes(student, formula(at(mexican, spot2)))", "initial",
     "At first, the student thought the Mexican truck was at spot 2, behind the building."),
    ("believes(student, formula(empty(spot2)))", "initial",
     "At first, the student thought spot 2, behind the building, was empty."),
)
DOMAIN = "foodtrucks"


@dataclass
class TruckSet:
    """What :func:`make_truck_stimuli` wrote."""

    folder: Path
    entries: list[dict]
    frames: int


def read_scenarios(paths: Sequence[str]):
    """Every scenario of the ``.trucks`` files, with unique stimulus names."""
    from elot.domains.foodtrucks.trucksfile import read_trucks
    from elot.output import file_stem

    out, names = [], set()
    for path in paths:
        for scenario in read_trucks(path):
            base = file_stem(scenario.name or f"{Path(path).stem}-{scenario.id}")
            name, n = base, 2
            while name in names:
                name, n = f"{base}-{n}", n + 1
            names.add(name)
            out.append((name, scenario))
    return out


def entry(name: str, scenario, images: Sequence[str], statements) -> dict:
    """The ``stimuli.json`` object of one food-truck scenario (see the module docstring)."""
    from elot.domains.foodtrucks.simulate import eaten
    from elot.domains.foodtrucks.trucksfile import SPOT2_WORDS, format_trucks
    from elot.domains.foodtrucks.world import TRUCKS

    truck = eaten(scenario)
    times = [1] + [t + 1 for t in judged(scenario)]
    moves = format_trucks([scenario]).split("moves", 1)[1].strip()
    return {"name": name, "goal": TRUCKS.index(truck) + 1 if truck else 1, "images": list(images),
            "times": times, "statements": [s[0] for s in statements], "modes": [s[1] for s in statements],
            "scenario": name, "relevant_colors": [], "relevant_boxes": [],
            "length": len(times) - 1, "domain": DOMAIN, "shown": [s[2] for s in statements],
            "map": scenario.map, "spot2": SPOT2_WORDS[scenario.world], "moves": moves}


def judged(scenario) -> tuple[int, ...]:
    """The times a scenario is judged at: its ``judge`` line's, else its last step."""
    from elot.draw.foodtrucks import steps

    return scenario.judgments or (steps(scenario),)


def statements_of(given: Sequence[tuple[str, str]] | None):
    """(text, mode, shown) of each statement: the given ones (ELoT shown in English), else
    :data:`DEFAULT_STATEMENTS`."""
    if not given:
        return list(DEFAULT_STATEMENTS)
    from elot.domains.foodtrucks.language import signature
    from elot.judging import compile_statement
    from elot.lang.english import shown
    from elot.lang.parser import looks_like_formula

    out = []
    for text, mode in given:
        if looks_like_formula(text):     # participants are shown only what elot can score
            compile_statement(text, signature())
        out.append((text, mode, shown(text, mode)))
    return out


def make_truck_stimuli(paths: Sequence[str], folder: str | Path, *, statements=None,
                       cell_px: int | None = None, size_px: int | None = None, loop: bool = False,
                       from_start: bool = False, force: bool = False,
                       progress: Callable[[int, int], None] | None = None) -> TruckSet:
    """Render the scenarios of the ``.trucks`` files ``paths`` into ``folder``: per
    scenario ``NAME_0.gif`` (the start) and ``NAME_1.gif``, ... (the path up to each judgment
    point; with ``from_start`` the first shows the start too), and ``stimuli.json``. The folder is written
    whole or not at all (:func:`elot.study.stimuli.owned_folder`)."""
    from elot.draw.animation import palette_of, write_gif
    from elot.draw.foodtrucks import TruckRenderer, cell_for_size, frame_size, steps
    from elot.draw.palette import FRAME_SIZE, MIN_CELL
    from elot.study.stimuli import INDEX, check_stimuli, owned_folder

    owned = owned_folder(folder, force=force)
    target = owned.check()
    scenarios = read_scenarios(paths)
    asked = statements_of(statements)
    for name, scenario in scenarios:     # bad input is refused before anything is drawn
        if steps(scenario) == 0:
            raise StudyError(f"scenario {name} has no moves: there is nothing to watch before the judgment",
                             hint="give it moves (elot plan SCENARIO.trucks --utilities ... writes them)")
        if judged(scenario)[0] == 0:
            raise StudyError(f"scenario {name} is judged at t = 0, before participants have seen a move",
                             hint="judge it after its first move (judge 1 ...) or leave the judge line out")
    if cell_px is None:
        cell_px = cell_for_size(size_px or FRAME_SIZE)
        if cell_px < MIN_CELL:
            width, height = frame_size(MIN_CELL)
            raise StudyError(f"a {size_px}-pixel frame of the 15 × 5 food-truck map gives cells of {cell_px} pixels, "
                             f"too small to read (at least {MIN_CELL})",
                             hint=f"use --size {max(width, height)} or more")
    entries, total = [], 0
    with owned as temporary:
        for n, (name, scenario) in enumerate(scenarios):
            renderer = TruckRenderer(scenario, cell_px=cell_px)
            try:
                last = steps(scenario)
                ends = judged(scenario)
                parts = [[0]] + [list(range(0 if from_start and k == 0 else start + 1, end + 1))
                                 for k, (start, end) in enumerate(zip((0,) + ends, ends))]
                palette = palette_of(renderer, sorted({0, last, *range(0, last, max(1, last // 8))}))
                images = []
                for k, part in enumerate(parts):
                    image = f"{name}_{k}.gif"
                    write_gif([renderer.frame(t) for t in part], temporary / image, palette=palette, loop=loop)
                    images.append(image)
                    total += len(part)
            finally:
                renderer.close()
            entries.append(entry(name, scenario, images, asked))
            if progress:
                progress(n + 1, len(scenarios))
        problems = check_stimuli(entries, temporary)
        if problems:   # a bug, not bad input
            raise ElotError("the stimulus set does not match its schema: " + "; ".join(problems))
        (temporary / INDEX).write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
        owned.commit()
    return TruckSet(target, entries, total)
