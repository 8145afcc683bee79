"""Nothing silent (#41 item 7): a path no action explains, a path no hypothesis explains,
and a domain whose world atoms or desire objects its signature does not have, each used to
score P = L = 0 (or a statement silently false) with exit 0. Each is now an error naming
the place and the fix; batch keeps going past a path no hypothesis explains, with the
reason in the row's error column."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from elot.cli import main

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"
PEEK = REPO / "examples" / "domains" / "coffee_peek.json"

#: Two worlds; in world a ``go`` takes s0 to s1, in world b it takes s1 to s2: each step of
#: s0, s1, s2 is possible in some world, the whole path in none.
SWITCH = '''
import numpy as np
from elot.engine import BeliefSpace, DesireSpace, Tables
from elot.lang.signature import Signature


class Switch:
    name = "switch"
    default_planner = "qmdp"

    def tables(self, layout):
        trans = np.zeros((2, 3, 2), dtype=np.int32)
        for w in range(2):
            for s in range(3):
                trans[w, s] = [s, s]
        trans[0, 0, 1] = 1
        trans[1, 1, 1] = 2
        outcomes = np.full((2, 3, 2), -1, dtype=np.int32)
        outcomes[:, 2, 0] = 0
        return Tables(("s0", "s1", "s2"), ("a", "b"), ("stay", "go"), ("nothing",), ("prize",),
                      np.array([0.0, 1.0]), trans, np.ones((2, 3, 1)), outcomes)

    def desires(self):
        return DesireSpace(("prize",), np.array([[0.0], [10.0]]), np.array([0.5, 0.5]))

    def initial_beliefs(self, layout):
        return BeliefSpace(np.array([[0.5, 0.5]]), np.array([1.0]))

    def signature(self):
        return Signature.from_objects({"walker": "agent", "prize": "thing"}, agent="walker",
                                      predicates={"shining": ("thing",)}, types={"thing": "object"}, derived=())

    def world_atoms(self, layout, world):
        return frozenset({("shining", "prize")} if world == 0 else set())
'''


def elot(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_step_no_action_takes_is_an_error_naming_it_in_run_and_batch(capsys, tmp_path):
    jump = tmp_path / "jump.json"
    jump.write_text(json.dumps({"name": "jump", "layout": "corridor", "world": "shop-closed",
                                "path": ["cell0", "cell4", "cell3"]}))
    said = "jump: step 1 of the path, cell0 -> cell4, is impossible: no action of the coffee-shop domain takes it"
    code, _, err = elot(capsys, "run", "--domain", SHOP, jump, "-s", "believes(visitor, formula(open(shop)))")
    assert code == 2 and said in err and "in the world shop-closed" in err
    code, _, err = elot(capsys, "batch", "--domain", SHOP, PEEK, jump, "-s", "wants(visitor, coffee)",
                        "-o", tmp_path / "t.csv")
    assert code == 2 and said in err and not (tmp_path / "t.csv").exists()     # bad input: refused before any work


def test_a_path_no_hypothesis_explains_is_an_error_and_a_failed_row_in_batch(capsys, tmp_path):
    (tmp_path / "switch.py").write_text(SWITCH)
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"name": "both", "layout": "line", "world": None, "path": ["s0", "s1", "s2"]}))
    said = "no hypothesis of the btom model explains step 2 of both (go)"
    code, out, err = elot(capsys, "run", "--domain", tmp_path / "switch.py", both, "-s", "wants(walker, prize)")
    assert code == 2 and said in err
    code, _, err = elot(capsys, "batch", "--domain", tmp_path / "switch.py", both, "-s", "wants(walker, prize)",
                        "-o", tmp_path / "t.csv")
    (row,) = csv.DictReader((tmp_path / "t.csv").open(newline=""))
    assert row["P"] == "" and said in row["error"] and "1 row could not be scored" in err


@pytest.mark.parametrize("typo, said", [
    (('("open", "shop")} if world == 0', '("opened", "shop")} if world == 0'),
     "coffee-shop.world_atoms (world shop-open): predicate 'opened' is not in the domain's signature "
     "(did you mean open?)"),
    (('("open", "shop")} if world == 0', '("open", "shopp")} if world == 0'),
     "coffee-shop.world_atoms (world shop-open): object 'shopp' is not in the domain's signature "
     "(did you mean shop?)"),
    (('DesireSpace(("coffee", "soda")', 'DesireSpace(("cofee", "soda")'),
     "coffee-shop.desires: object 'cofee' is not in the domain's signature (did you mean coffee?)"),
])
def test_a_name_the_signature_lacks_is_refused_when_the_domain_loads(capsys, tmp_path, typo, said):
    text = SHOP.read_text(encoding="utf-8")
    assert typo[0] in text
    (tmp_path / "shop.py").write_text(text.replace(typo[0], typo[1]))
    code, out, err = elot(capsys, "run", "--domain", tmp_path / "shop.py", PEEK, "-s", "wants(visitor, coffee)")
    assert code == 2 and said in err and out == ""
