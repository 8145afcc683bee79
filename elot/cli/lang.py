"""Subcommands of ``elot`` (placeholder: filled in by its owner)."""


def register(subparsers) -> None:
    """Add this module's subcommands."""
