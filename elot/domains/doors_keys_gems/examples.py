"""The built-in example scenarios: ``.scn`` files shipped in ``elot/scenarios``, listed by
:func:`list_examples` and read by :func:`load_example`; :func:`default_example` is the one
``elot run`` and the REPL open by default.
"""

from __future__ import annotations

from importlib import resources

from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.errors import ScenarioError

DEFAULT_EXAMPLE = "default"


def _examples_dir():
    return resources.files("elot.scenarios")


def list_examples() -> tuple[str, ...]:
    """Names of the built-in example scenarios (``elot/scenarios/*.scn``), sorted."""
    return tuple(sorted(p.name[:-4] for p in _examples_dir().iterdir() if p.name.endswith(".scn")))


def load_example(name: str) -> Scenario:
    """The built-in example scenario ``name`` (see :func:`list_examples`)."""
    stem = name[:-4] if name.endswith(".scn") else name
    resource = _examples_dir().joinpath(f"{stem}.scn")
    if not resource.is_file():
        raise ScenarioError(
            f"no example scenario named {name!r}",
            hint=f"examples: {', '.join(list_examples())}",
        )
    return parse_scn_text(resource.read_text(encoding="utf-8"), f"examples/{stem}.scn")


def default_example() -> Scenario:
    """The scenario ``elot run`` and the REPL open by default."""
    return load_example(DEFAULT_EXAMPLE)
