"""elot's ``.scn`` scenario format (see ``docs/scenarios.md``) and the built-in examples,
gathered where callers have always found them.

* reading — :func:`parse_scn_text`, :func:`load_scn` (:mod:`elot.domains.doors_keys_gems.scn_read`);
* writing — :func:`format_scn` (:mod:`elot.domains.doors_keys_gems.scn_write`);
* the built-in examples — :func:`list_examples`, :func:`load_example`,
  :func:`default_example` (:mod:`elot.domains.doors_keys_gems.examples`).

Every error is a :class:`~elot.errors.ScenarioError` naming the file, the line and column
and a hint: the map must be rectangular with one agent and only known characters, every
gem reachable when all doors are open, every action possible when it is taken, every
judgment point within the plan.
"""

from __future__ import annotations

from elot.domains.doors_keys_gems.examples import DEFAULT_EXAMPLE, default_example, list_examples, load_example
from elot.domains.doors_keys_gems.scn_read import DEFAULT_LEGEND, PALETTE, load_scn, parse_scn_text
from elot.domains.doors_keys_gems.scn_write import format_scn

__all__ = [
    "DEFAULT_EXAMPLE", "DEFAULT_LEGEND", "PALETTE", "default_example", "format_scn", "list_examples", "load_example",
    "load_scn", "parse_scn_text",
]
