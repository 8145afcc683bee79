"""elot: an epistemic language of thought (ELoT) with a Bayesian theory of mind (BToM)."""

from elot.errors import (
    ArgumentError,
    ElotError,
    ElotSyntaxError,
    ElotTypeError,
    EvaluationError,
    ExtensionMissingError,
    ScenarioError,
    Span,
    TranslationError,
)

__version__ = "0.1.0"

#: The ELoT language API (elot/api.py), imported on first use so that `import elot`
#: stays cheap for commands that never touch formulas.
_LAZY = {
    "parse": "elot.api",
    "check": "elot.api",
    "lower": "elot.api",
    "evaluate": "elot.api",
    "pretty": "elot.api",
    "compile_formula": "elot.api",
    "equivalent": "elot.api",
    "Thresholds": "elot.api",
    "State": "elot.api",
    "Belief": "elot.api",
    "Signature": "elot.api",
    # embedding: your own domain and belief model (elot/embedding/)
    "judge": "elot.embedding",
    "judge_series": "elot.embedding",
    "declare": "elot.embedding",
    "read_domain": "elot.embedding",
    "Hypotheses": "elot.embedding",
    "BeliefModel": "elot.embedding",
    "Desires": "elot.judging",
    # Doors-Keys-Gems: a scenario (a built-in name, a file or a dataset plan id), its
    # inference and a statement's scores on it
    "load_scenario": "elot.domains.doors_keys_gems.load",
    "infer": "elot.domains.doors_keys_gems.inference",
    "score": "elot.domains.doors_keys_gems.scoring",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'elot' has no attribute {name!r}")

__all__ = [
    "ArgumentError",
    "ElotError",
    "ElotSyntaxError",
    "ElotTypeError",
    "EvaluationError",
    "ExtensionMissingError",
    "ScenarioError",
    "Span",
    "TranslationError",
    "__version__",
    *_LAZY,
]
