"""The built-in scenarios that commands open by name (``elot run two-doors``): package data."""
