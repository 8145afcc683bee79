"""Language-model baselines: the statements of a study rated by any language model after
the same scenario, told in words (see docs/baselines.md).

* the scenario up to a judgment point in words comes from its domain's front
  (:meth:`elot.domains.front.Front.tell`): the *plan* and *narrative* prompt conditions;
* :mod:`~elot.baseline.prompts` — templates (package data, or your own) and rendered
  prompts, with an optional stimulus frame and few-shot human ratings;
* :mod:`~elot.baseline.items` — what is rated: scenarios' statements, or the dataset's
  in- vs out-of-context statements;
* :mod:`~elot.baseline.endpoint` — one client for OpenAI-compatible endpoints;
* :mod:`~elot.baseline.local` — a local GGUF model in this process (expected rating from
  token probabilities);
* :mod:`~elot.baseline.parse` — ratings read from answers, never made up;
* :mod:`~elot.baseline.run` — the answer cache, the study table and the manifest.
"""

from elot.baseline.endpoint import Answer, Endpoint, EndpointError
from elot.baseline.parse import Parsed, expected_rating, normalized, parse_rating
from elot.baseline.prompts import BaselineError, Item, Prompt, Template, load_template, render
from elot.baseline.run import COLUMNS, run_baseline

__all__ = ["Answer", "BaselineError", "COLUMNS", "Endpoint", "EndpointError", "Item", "Parsed", "Prompt",
           "Template", "expected_rating", "load_template", "normalized", "parse_rating", "render", "run_baseline"]
