"""One entry point for scenarios: :func:`load_scenario` tells apart a ``.scn`` file, a
dataset ``.pddl`` file, a built-in example name and a dataset plan id, and hands each to
its reader (:mod:`elot.domains.doors_keys_gems.scn`, :mod:`elot.domains.doors_keys_gems.dataset`)."""

from __future__ import annotations

from pathlib import Path

from elot.domains.doors_keys_gems.dataset import PLAN_ID, load_dataset_file, load_dataset_plan
from elot.domains.doors_keys_gems.examples import list_examples, load_example
from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scn_read import load_scn
from elot.errors import ScenarioError


def load_scenario(
    spec: str | Path,
    plan: str | Path | None = None,
    *,
    exp: str = "exp2_current",
    root: str | Path | None = None,
) -> Scenario:
    """Load a scenario, telling apart what ``spec`` names:

    * a ``.scn`` file;
    * a dataset problem ``.pddl`` (with ``plan``, a plan file or a plan id of ``exp``);
    * a dataset plan ``.pddl`` (its problem is found in ``../../problems``);
    * a built-in example name (``default``, ...);
    * a dataset plan id (``1_1``, ``exp2_initial/1_1``), found under
      :func:`~elot.domains.doors_keys_gems.dataset.dataset_root`.
    """
    text = str(spec)
    path = Path(spec)
    if path.suffix == ".scn":
        return load_scn(path)
    if path.suffix == ".pddl":
        return load_dataset_file(path, plan, exp)
    if path.is_file():
        raise ScenarioError(
            f"cannot tell what kind of scenario {path} is", path=str(path), hint="use a .scn or a dataset .pddl file"
        )
    if text in list_examples():
        return load_example(text)
    match = PLAN_ID.match(text)
    if match:
        return load_dataset_plan(root, match["id"], match["exp"] or exp)
    raise ScenarioError(
        f"no scenario file, example or dataset plan named {text!r}",
        hint=f"give a .scn or .pddl path, an example ({', '.join(list_examples())}) or a plan id such as 1_1",
    )
