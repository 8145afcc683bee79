"""Domains too large to tabulate: a world model (the protocol) steps the domain's own worlds, and
the engine's exact and particle filters, their results and the agent run forward are written
once against it (docs/domains.md)."""
