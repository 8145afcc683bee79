"""What telling any domain's scene in words shares (its front's ``tell`` hook: the
language-model baselines' prompts)."""

from __future__ import annotations


def cell(pos: tuple[int, int]) -> str:
    """A cell as a scene tells it: ``(x,y)``."""
    return f"({pos[0]},{pos[1]})"


def run_words(moves: list[str]) -> str:
    """Runs of the same move said once with their count: ``up, up, left`` as ``up 2
    times, left``."""
    parts: list[tuple[str, int]] = []
    for move in moves:
        if parts and parts[-1][0] == move:
            parts[-1] = (move, parts[-1][1] + 1)
        else:
            parts.append((move, 1))
    return ", ".join(f"{m} {n} time{'s' if n > 1 else ''}" if n > 1 else m for m, n in parts)
