"""The food-truck ELoT signature: the student, three trucks, two spots, ``at`` and ``empty``."""

from __future__ import annotations

from functools import lru_cache

from elot.domains.foodtrucks.world import TRUCKS
from elot.lang.signature import Signature

AGENT = "student"
SPOTS = ("spot1", "spot2")


@lru_cache(maxsize=1)
def signature() -> Signature:
    """Objects: ``student`` (alias ``player``), trucks korean/lebanese/mexican (roles K, L,
    M), spots spot1 (in view of the start) and spot2 (behind the building). Predicates:
    ``at(truck, spot)``, ``empty(spot)`` (the spot holds no truck)."""
    objects = {AGENT: "agent", **{t: "truck" for t in TRUCKS}, **{s: "spot" for s in SPOTS}}
    return Signature.from_objects(
        objects, agent=AGENT,
        predicates={"at": ("truck", "spot"), "empty": ("spot",)},
        types={"truck": "object", "spot": "object", "agent": "object"},
        derived=())
