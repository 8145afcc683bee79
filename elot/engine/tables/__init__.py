"""Tabular domains: every state, world and percept of a layout in tables (the protocol), their
planners, the exact inversion of an observed path, particles drawn from the priors, and the
agent run forward (docs/domains.md)."""
