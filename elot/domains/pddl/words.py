"""A PDDL scene in words: English for its signature (what statements are read and said
in), its states described in a line, and its actions as an observer tells them.

* :func:`words_of` — the signature's words: a goal named by a word is "the word pear"; an
  object whose short name does not say its type is said with it ("block p"); the agent is
  "the player" (ELoT's own word for it).
* :func:`describe` — a state in a line: a blocks state by its towers, read top first as
  the words they spell ("c-o-r-e"), and the held block; a grid by where the agent stands
  and what it holds; any other by its true atoms.
* :func:`action_words` — an action as it is told: ``(pick-up r)`` as "pick up r".
"""

from __future__ import annotations

from elot.domains.pddl.language import GOAL_TYPE, PddlLanguage

#: How many atoms a state's description lists before it stops ("...").
SHOWN_ATOMS = 12


def words_of(language: PddlLanguage, goal_names, worded: bool) -> dict:
    """English for the signature of ``language`` (see the module docstring): ``goal_names``
    are the candidate goals' own names, in the order of ``language.goals``; ``worded``:
    they are words (a study's ``goals.json``)."""
    signature = language.signature
    out: dict = {}
    for obj, name in zip(language.goals, goal_names):
        if worded:
            out[obj] = [f"the word {name}", f"the word '{name}'", str(name)]
        elif signature.object_types.get(obj) == GOAL_TYPE:
            out[obj] = [f"the goal {name}", str(name)]
    for _, name in language.objects:
        kind = signature.object_types.get(name, "object")
        if name in out or kind in ("object", GOAL_TYPE) or name.startswith(kind):
            continue
        if len(name) <= 2:
            out[name] = [f"{kind} {name}", f"the {kind} {name}"]
    return out


def towers(atoms) -> tuple[list[list[str]], str | None]:
    """The towers of a blocks state, bottom first (sorted by their bottom block), and the
    held block: from ``on``, ``ontable`` and ``holding`` atoms (PDDL's or ELoT's names)."""
    on = {a[1]: a[2] for a in atoms if a[0] == "on" and len(a) == 3}
    above = {below: block for block, below in on.items()}
    stacks = []
    for base in sorted(a[1] for a in atoms if a[0] == "ontable" and len(a) == 2):
        stack = [base]
        while stack[-1] in above and len(stack) <= len(on) + 1:
            stack.append(above[stack[-1]])
        stacks.append(stack)
    held = next((a[1] for a in atoms if a[0] == "holding" and len(a) == 2), None)
    return stacks, held


def is_blocks(atoms) -> bool:
    """Whether a state is a blocks state (its blocks on the table or on each other)."""
    return any(a[0] == "ontable" for a in atoms)


def describe(atoms, position: tuple[int, int] | None = None) -> str:
    """A state in a line (see the module docstring); ``position`` is where a grid's agent
    stands (its ``xpos``, ``ypos``), when the world is a grid."""
    if is_blocks(atoms):
        stacks, held = towers(atoms)
        said = ", ".join("-".join(reversed(stack)) for stack in stacks) or "none"
        return f"towers (top first) {said}; holding {held or 'nothing'}"
    if position is not None:
        held = sorted(a[1] for a in atoms if a[0] == "has" and len(a) == 2)
        return f"the agent at ({position[0]}, {position[1]}), holding {', '.join(held) or 'nothing'}"
    shown = sorted(f"{a[0]}({', '.join(a[1:])})" if len(a) > 1 else a[0] for a in atoms)
    return ", ".join(shown[:SHOWN_ATOMS]) + (", ..." if len(shown) > SHOWN_ATOMS else "") if shown else "(no atoms)"


def action_words(name: str, args) -> str:
    """An action as it is told: its name with ``-`` as a space, then its arguments."""
    return " ".join([name.replace("-", " ").replace("_", " "), *args])
