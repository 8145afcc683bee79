"""The language: ELoT syntax, parser and printer, types and signatures, the typechecker,
lowering, semantics (evaluation) and equivalence. It knows no file format and no gridworld."""
