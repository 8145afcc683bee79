"""A PDDL scene in words up to a judgment point, for a language model (the front's ``tell``
hook: ``elot baseline``'s prompts). Everything is visible, so the scene is told whole: what
the start looks like, the goals the agent may be after, and the actions so far.

* *plan*: the start as text (a grid drawn in characters, the towers of a blocks world, or
  the true atoms), the candidate goals as PDDL conditions, then one action a line;
* *narrative*: the same, told: the start in a sentence, the goals by their names, and the
  actions as runs ("down 2 times, right").
"""

from __future__ import annotations

from elot.domains.pddl.draw import grid_size, position, text_map
from elot.domains.pddl.printer import formula as formula_text
from elot.domains.pddl.words import action_words, describe
from elot.domains.telling import run_words


def start_picture(scene) -> str:
    """The start as text: a grid's or a blocks world's map (:func:`text_map`), else its atoms."""
    g = scene.task.grounded
    if grid_size(g) is None and not any(a[0] == "ontable" for a in g.atoms_of(scene.state(0))):
        return describe(sorted(g.decode(scene.state(0))[0]))
    drawn = text_map(scene, 0)
    lines = []
    for y in range(1, drawn.height + 1):
        lines.append("".join(drawn.cells[x, y][0][:1] if (x, y) in drawn.cells else "."
                             for x in range(1, drawn.width + 1)))
    legend = " ".join(text for text, _ in drawn.legend)
    return "\n".join(lines) + (f"\n({legend})" if legend else "")


def plan_text(scene, t: int) -> str:
    """The *plan* condition (see the module docstring)."""
    goals = "\n".join(f"- {g.name}: {formula_text(g.formula)}" for g in scene.goals)
    actions = "\n".join(f"{k}. {step.text()}" for k, step in enumerate(scene.steps[:t], 1)) or "(none yet)"
    return (f"The world at the start:\n{start_picture(scene)}\n\nThe agent wants one of these goals:\n{goals}\n\n"
            f"Its actions so far ({t}):\n{actions}")


def narrative_text(scene, t: int) -> str:
    """The *narrative* condition (see the module docstring)."""
    g = scene.task.grounded
    where = position(g, scene.state(0)) if grid_size(g) is not None else None
    start = describe(sorted(g.atoms_of(scene.state(0))) if where is None else g.atoms_of(scene.state(0)), where)
    moves = [action_words(step.name, step.args) for step in scene.steps[:t]]
    said = run_words(moves) if moves else "nothing yet"
    names = ", ".join(goal.name for goal in scene.goals)
    return (f"At the start: {start}. The agent is after one of these goals: {names}. "
            f"So far it has done, in order: {said}.")


#: The conditions a baseline tells a scene in.
CONDITIONS = {"plan": plan_text, "narrative": narrative_text}
