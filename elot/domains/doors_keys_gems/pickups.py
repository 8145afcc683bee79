"""Which keys optimal plans pick up in a fully known Doors-Keys-Gems map: the colour
limits of the hidden keys of SPEC §5 (:func:`colour_limits`), from :func:`key_pickups`,
a search over the useful events of a plan (:class:`_PickupSearch`).
"""

from __future__ import annotations

from elot.domains.doors_keys_gems.world import Pos, WorldState
from elot.errors import ScenarioError


#: Most planning states :func:`key_pickups` explores (about a second of work).
MAX_PLAN_STATES = 100_000


def key_pickups(state: WorldState, gem: str) -> tuple[int, frozenset[tuple[int, ...]]] | None:
    """Cost of an optimal plan to hold ``gem`` in the fully known ``state``, and every vector
    (per colour of ``layout.colours``) of keys picked up by some optimal plan. None when the
    gem cannot be reached.

    The costs are those of ``btom_ext``'s planners, but neither can give this: they return
    costs alone, not which keys the optimal plans pick up (see :class:`_PickupSearch`).
    """
    zero = (0,) * len(state.layout.colours)
    if gem in state.held_gems:
        return 0, frozenset([zero])
    search = _PickupSearch(state, gem)
    cost, vectors = search.best(state.agent_pos, state.locked, state.closed, search.start)
    if cost == float("inf"):
        return None
    return int(cost), vectors


class _PickupSearch:
    """Optimal plans to one gem as sequences of useful events with the shortest grid travel
    (:meth:`~elot.domains.doors_keys_gems.world.Layout.distances`) in between, as in the compiled planner:
    pick up a key (opening its box first when closed), unlock a door from a cell next to it,
    pick up the gem. :meth:`best` memoizes every (cell, locked doors, closed boxes, key
    statuses) it meets, up to :data:`MAX_PLAN_STATES`.

    A key status is ``"map"`` (on a cell or in a box), ``"held"`` or ``"gone"`` (used up, or
    never on the map), one per key of ``layout.keys``.
    """

    def __init__(self, state: WorldState, gem: str) -> None:
        layout = state.layout
        self.layout = layout
        self.gem = gem
        self.goal = layout.gem_pos(gem)
        self.zero = (0,) * len(layout.colours)
        self.colour = [state.key(k).colour for k in layout.keys]
        self.colour_index = [layout.colours.index(c) if c in layout.colours else -1 for c in self.colour]
        self.cell = [state.item_pos(k) for k in layout.keys]  # a boxed key's cell is its box's
        self.box = [ks.where[1] if ks.where[0] == "box" else None for ks in map(state.key, layout.keys)]
        kinds = {"cell": "map", "box": "map", "held": "held"}
        self.start = tuple(kinds.get(state.key(k).where[0], "gone") for k in layout.keys)
        self.memo: dict[tuple, tuple[float, frozenset]] = {}
        self._travel: dict[tuple[frozenset, Pos], dict[Pos, int]] = {}

    def travel(self, locked: frozenset[str], cell: Pos) -> dict[Pos, int]:
        """Moves from ``cell`` to every cell it reaches with the doors of ``locked`` shut."""
        got = self._travel.get((locked, cell))
        if got is None:
            got = self.layout.distances(cell, {self.layout.door_pos(d) for d in locked})
            self._travel[(locked, cell)] = got
        return got

    def useful(self, k: int, locked: frozenset[str], status: tuple[str, ...]) -> bool:
        """Whether key ``k`` may be worth picking up: its colour has more locked doors than
        held keys. A key no locked door can use is never picked up by an optimal plan (the
        pickup costs a step and buys nothing), which keeps the search polynomial in the
        number of keys (exponential only in the number of doors), not 2^keys."""
        colour = self.colour[k]
        held = sum(1 for j, s in enumerate(status) if s == "held" and self.colour[j] == colour)
        doors = sum(1 for d in locked if self.layout.door_colour(d) == colour)
        return held < doors

    def best(self, cell: Pos, locked: frozenset[str], closed: frozenset[str],
             status: tuple[str, ...]) -> tuple[float, frozenset]:
        """The least cost from here to holding the gem, and the key-pickup vectors of every
        plan of that cost (empty when the gem cannot be reached: the cost is infinite)."""
        key = (cell, locked, closed, status)
        if key in self.memo:
            return self.memo[key]
        if len(self.memo) >= MAX_PLAN_STATES:
            raise ScenarioError(
                f"the map has too many keys, doors and boxes to find the optimal plans to {self.gem} "
                f"(more than {MAX_PLAN_STATES:,} planning states)",
                hint="use fewer doors or keys of the same colour",
            )
        travel = self.travel(locked, cell)
        options: list[tuple[float, frozenset]] = []
        if self.goal in travel:
            options.append((travel[self.goal] + 1, frozenset([self.zero])))
        for k, st in enumerate(status):
            if st == "map" and self.cell[k] in travel and self.useful(k, locked, status):
                options.append(self.pick_up(k, travel, locked, closed, status))
            elif st == "held":
                options += self.unlock(k, travel, locked, closed, status)
        low = min((c for c, _ in options), default=float("inf"))
        vectors = frozenset().union(*(v for c, v in options if c == low)) if low < float("inf") else frozenset()
        self.memo[key] = (low, vectors)
        return self.memo[key]

    def pick_up(self, k: int, travel: dict[Pos, int], locked: frozenset[str], closed: frozenset[str],
                status: tuple[str, ...]) -> tuple[float, frozenset]:
        """Walk to key ``k``, open its box if closed, pick it up, then go on optimally."""
        box = self.box[k]
        opens = box is not None and box in closed
        cost = travel[self.cell[k]] + 1 + (1 if opens else 0)
        sub_cost, sub = self.best(self.cell[k], locked, closed - {box} if opens else closed,
                                  status[:k] + ("held",) + status[k + 1:])
        bump = tuple(int(c == self.colour_index[k]) for c in range(len(self.zero)))
        return cost + sub_cost, frozenset(tuple(a + b for a, b in zip(v, bump)) for v in sub)

    def unlock(self, k: int, travel: dict[Pos, int], locked: frozenset[str], closed: frozenset[str],
               status: tuple[str, ...]) -> list[tuple[float, frozenset]]:
        """Every way to walk next to a locked door of held key ``k``'s colour, unlock it with
        ``k``, then go on optimally."""
        used = status[:k] + ("gone",) + status[k + 1:]
        out = []
        for door in sorted(locked):
            if self.layout.door_colour(door) != self.colour[k]:
                continue
            for cell in self.layout.neighbours(self.layout.door_pos(door)):
                if cell in travel:
                    sub_cost, sub = self.best(cell, locked - {door}, closed, used)
                    out.append((travel[cell] + 1 + sub_cost, sub))
        return out


def colour_limits(true_state: WorldState) -> dict[str, tuple[int, int]]:
    """Per colour, the (least, most) number of hidden keys of that colour (SPEC §5)."""
    layout = true_state.layout
    most = dict.fromkeys(layout.colours, 0)
    for gem, _ in layout.gems:
        found = key_pickups(true_state, gem)
        if found is None:
            continue
        for vec in found[1]:
            for colour, n in zip(layout.colours, vec):
                most[colour] = max(most[colour], n)
    visible = dict.fromkeys(layout.colours, 0)
    for name in layout.keys:
        ks = true_state.key(name)
        if ks.where[0] in ("cell", "box", "held") and not true_state.hidden(name) and ks.colour:
            visible[ks.colour] += 1
    return {c: (max(most[c] - visible[c], 0), most[c]) for c in layout.colours}
