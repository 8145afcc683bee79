"""elot: an epistemic language of thought (ELoT) with a Bayesian theory of mind (BToM)."""

from elot.errors import (
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

__all__ = [
    "ElotError",
    "ElotSyntaxError",
    "ElotTypeError",
    "EvaluationError",
    "ExtensionMissingError",
    "ScenarioError",
    "Span",
    "TranslationError",
    "__version__",
]
