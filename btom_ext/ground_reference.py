"""Plain NumPy/Python reference of the grounded-state kernels: what ``btom_ext.ground`` is held to.

A grounded task (elot.domains.pddl.ground makes one) is a table of **rows**, each a ground
action under one valuation of the numeric fluents and one disjunct of its precondition:

* a **state** is ``int64[width]``: ``words`` 64-bit words of atom bits (stored as int64),
  then ``F`` fluent values;
* ``pre_pos``, ``pre_neg``, ``add``, ``dele`` are ``int64[R, words]`` bit masks: a row
  applies where every ``pre_pos`` bit is set and no ``pre_neg`` bit is; its successor has
  ``(bits & ~dele) | add`` and the fluents ``new_fluents[r]``;
* ``row_action[r]`` names the action; rows of one action under one valuation are adjacent
  (its disjuncts), and the first that applies is the one taken (all give the same successor);
* the rows of a valuation are ``cell_rows[c]:cell_rows[c + 1]`` where ``c`` is the mixed-radix
  index of the state's fluents over ``fluent_lo`` and ``fluent_size``; a state whose fluents
  fall outside that box has no rows.

:func:`applicable` gives the actions and successors of given states; :func:`reachable` the
states reachable from one, in breadth-first order (each state's successors in row order),
with its successor lists in compressed-row form. Both backends return the same arrays.
This module imports nothing of elot's.
"""

from __future__ import annotations

import numpy as np


def _cell(state, words, fluent_lo, fluent_size) -> int:
    cell = 0
    for f in range(len(fluent_lo)):
        v = int(state[words + f]) - int(fluent_lo[f])
        if v < 0 or v >= int(fluent_size[f]):
            return -1
        cell = cell * int(fluent_size[f]) + v
    return cell


def _expand(state, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size):
    words = pre_pos.shape[1]
    cell = _cell(state, words, fluent_lo, fluent_size)
    if cell < 0:
        return [], []
    lo, hi = int(cell_rows[cell]), int(cell_rows[cell + 1])
    bits = state[:words]
    rows = np.arange(lo, hi)
    ok = (np.all((bits & pre_pos[lo:hi]) == pre_pos[lo:hi], axis=1)
          & np.all((bits & pre_neg[lo:hi]) == 0, axis=1))
    actions, nexts, last = [], [], -1
    for r in rows[ok]:
        a = int(row_action[r])
        if a == last:
            continue
        last = a
        nxt = np.empty_like(state)
        nxt[:words] = (bits & ~dele[r]) | add[r]
        nxt[words:] = new_fluents[r]
        actions.append(a)
        nexts.append(nxt)
    return actions, nexts


def _arrays(*arrays):
    return [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]


def applicable(states, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size):
    """For each of ``states`` (``int64[n, width]``), its applicable actions and successors:
    ``(indptr int64[n + 1], actions int64[m], successors int64[m, width])``."""
    states, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size = _arrays(
        states, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size)
    indptr = np.zeros(len(states) + 1, dtype=np.int64)
    acts, nexts = [], []
    for i, state in enumerate(states):
        a, n = _expand(state, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo,
                       fluent_size)
        acts += a
        nexts += n
        indptr[i + 1] = len(acts)
    width = states.shape[1]
    return (indptr, np.array(acts, dtype=np.int64),
            np.array(nexts, dtype=np.int64).reshape(len(nexts), width))


def reachable(init, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size,
              max_states):
    """The states reachable from ``init``, breadth first: ``(states int64[n, width], indptr
    int64[n + 1], actions int64[m], successors int64[m], complete)``. ``successors`` are state
    indices; ``complete`` is False when more than ``max_states`` states were found (the search
    stopped there, and the successor lists of the states it had not expanded are empty)."""
    init, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size = _arrays(
        init, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size)
    found = {init.tobytes(): 0}
    states = [init]
    indptr, acts, succ = [0], [], []
    complete = True
    i = 0
    while i < len(states):
        a, n = _expand(states[i], pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo,
                       fluent_size)
        for action, nxt in zip(a, n):
            key = nxt.tobytes()
            j = found.get(key)
            if j is None:
                if len(states) >= max_states:
                    complete = False
                    break
                j = found[key] = len(states)
                states.append(nxt)
            acts.append(action)
            succ.append(j)
        if not complete:
            del acts[indptr[-1]:], succ[indptr[-1]:]   # the state left half expanded keeps none
            break
        indptr.append(len(acts))
        i += 1
    indptr += [len(acts)] * (len(states) + 1 - len(indptr))
    return (np.array(states, dtype=np.int64).reshape(len(states), len(init)), np.array(indptr, dtype=np.int64),
            np.array(acts, dtype=np.int64), np.array(succ, dtype=np.int64), complete)
