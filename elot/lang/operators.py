"""The operator vocabulary of ELoT (SPEC §2–3, and the desire operators past the paper):
which names are modals, adjectives, attitudes, knowledge, ``about`` and desire operators,
which remain after lowering, the threshold names, and how each operator is called
(:data:`USAGE`, for arity errors). The typechecker (:mod:`elot.lang.checker`), the
lowering, the evaluator, the translators and the REPL's completion all read it here.
"""

from __future__ import annotations

from elot.lang.syntax import QUANTIFIERS

#: Modal verbs and adjectives: ``M(φ) : E/A`` with its own threshold.
MODALS = ("could", "can", "might", "may", "should", "must", "likely", "unlikely")
#: The modals of possibility.
POSSIBILITY = ("might", "may", "could", "can")
#: Gradable adjectives ``P`` and their antonyms.
ADJECTIVES = {"likely": "unlikely", "unlikely": "likely"}
#: Names that ``threshold(...)`` accepts (SPEC §3's table of Θ).
THRESHOLD_NAMES = (
    "believes", "certain", "uncertain", "likely", "unlikely", "could", "can",
    "might", "may", "should", "must", "hopes", "wants", "likes", "dislikes",
)
#: Belief-like operators taking an agent and a ``formula(φ)`` or a modal.
ATTITUDES = ("believes", "certain", "hopes")
#: Knowledge operators taking an agent and a ``formula(φ)``.
KNOWLEDGE = ("knows_that", "knows_if", "not_knows_that", "not_knows_if")
#: Operators ``op(A, C, φ)`` with a condition.
ABOUT = ("knows_about", "not_knows_about", "certain_about", "uncertain_about")
#: Desire operators ``op(A, o)`` (past the paper): what the agent wants, likes, likes best.
DESIRES = ("wants", "likes", "dislikes", "likes_best", "likes_least")
#: Numbers of the lowered language read from the agent's desires: ``utility_of(A, o)`` and
#: ``prob_goal(A, o)``.
DESIRE_PRIMITIVES = ("utility_of", "prob_goal")
#: Comparison operators of the lowered language.
COMPARISONS = (">=", ">", "<", "<=", "==")
CONNECTIVES = ("and", "or", "not", "imply")

#: Every epistemic operator (none may remain after lowering).
EPISTEMIC_OPERATORS = frozenset(
    ATTITUDES + KNOWLEDGE + ABOUT + MODALS
    + ("uncertain_if", "more", "less", "equal", "most", "least", "formula")
    + DESIRES + ("prefers",)
)
#: The operators of the lowered fragment (besides predicates and connectives).
LOWERED_OPERATORS = frozenset(COMPARISONS + ("-", "prob_of", "threshold", "maximum", "minimum")
                              + DESIRE_PRIMITIVES)
OPERATORS = EPISTEMIC_OPERATORS | LOWERED_OPERATORS | frozenset(CONNECTIVES) | QUANTIFIERS

# The binding operators and the position of their condition (CONDITION_POSITION) are
# defined in elot.lang.syntax, with the binding rule that every stage shares.

#: How each operator is called, for arity errors.
USAGE = {
    "believes": "believes(A, formula(φ)) or believes(A, M), or believes(A, X1, ..., Xn)",
    "certain": "certain(A, formula(φ)) or certain(A, M)",
    "hopes": "hopes(A, formula(φ)) or hopes(A, M)",
    **{op: f"{op}(A, formula(φ))" for op in KNOWLEDGE},
    **{op: f"{op}(A, C, φ)" for op in ABOUT},
    "uncertain_if": "uncertain_if(A, formula(φ)), uncertain_if(A, formula(φ), formula(ψ)) or uncertain_if(A, C, φ, ψ)",
    **{m: f"{m}(φ)" for m in MODALS},
    "more": "more(P, φ, ψ) or more(P, C, φ, ψ)",
    "less": "less(P, φ, ψ) or less(P, C, φ, ψ)",
    "equal": "equal(P, φ, ψ) or equal(P, φ, ψ, χ)",
    "most": "most(P, φ) or most(P, o, X, C, φ)",
    "least": "least(P, φ) or least(P, o, X, C, φ)",
    **{op: f"{op}(A, o), e.g. {op}(player, gem1)" for op in DESIRES},
    "prefers": "prefers(A, o1, o2), e.g. prefers(player, gem1, gem2)",
    **{op: f"{op}(A, o), e.g. {op}(player, gem1)" for op in DESIRE_PRIMITIVES},
    "formula": "formula(φ) with one base formula φ",
    "and": "and(φ1, φ2, ...) with two or more formulas",
    "or": "or(φ1, φ2, ...) with two or more formulas",
    "not": "not(φ)",
    "imply": "imply(φ, ψ)",
    "exists": "exists(C, φ): a condition and a formula",
    "forall": "forall(C, φ): a condition and a formula",
    "maximum": "maximum(C, x): a condition and a number",
    "minimum": "minimum(C, x): a condition and a number",
    "prob_of": "prob_of(A, φ)",
    "threshold": "threshold(name) or threshold(most(P))",
    "-": "-(x)",
    **{op: f"{op}(x, y)" for op in COMPARISONS},
}
