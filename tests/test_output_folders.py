"""Folders elot writes whole (elot.output.OwnedFolder, used by stimuli and survey build):
what elot wrote is replaced, what was edited since needs force, what it never wrote is
kept, and the check is made again at the swap."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from helpers import examples

from elot.errors import ElotError
from elot.output import MANIFEST, OwnedFolder

KIND = "elot test"


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (path inside it → content)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def write(target: Path, files: dict[str, bytes], *, force: bool = False, during=None, guard=None) -> None:
    """Write ``files`` into ``target`` as elot writes a folder; ``during`` runs between the
    check and the swap (as a user would while elot renders)."""
    owned = OwnedFolder(target, KIND, what="set", force=force, guard=guard)
    owned.check()
    with owned as staging:
        for name, data in files.items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_bytes(data)
        if during:
            during()
        owned.commit()


def leftovers(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}."))


def test_the_manifest_lists_every_file_elot_wrote_with_its_size_and_hash(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one", "sub/b.txt": b"two"})
    assert tree(target) == {"a.txt": b"one", "sub/b.txt": b"two", MANIFEST: (target / MANIFEST).read_bytes()}
    files = json.loads((target / MANIFEST).read_text())["files"]
    assert sorted(files) == ["a.txt", "sub/b.txt"] and files["a.txt"]["size"] == 3
    assert leftovers(target) == [] and not (target / ".elot-run").exists()


def test_what_elot_wrote_is_replaced_and_what_it_never_wrote_is_kept(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one", "old/x.gif": b"gif", "sub/b.txt": b"two"})
    (target / "notes.txt").write_text("mine")
    (target / "sub" / "more.txt").write_text("mine too")
    (target / "old" / "kept.txt").write_text("in a folder the new set drops")
    write(target, {"a.txt": b"ONE", "sub/b.txt": b"TWO"})
    assert {k: v for k, v in tree(target).items() if k != MANIFEST} == {
        "a.txt": b"ONE", "sub/b.txt": b"TWO", "notes.txt": b"mine", "sub/more.txt": b"mine too",
        "old/kept.txt": b"in a folder the new set drops"}
    assert sorted(json.loads((target / MANIFEST).read_text())["files"]) == ["a.txt", "sub/b.txt"]
    write(target, {"a.txt": b"1"})           # the kept files are still not elot's: kept again
    assert (target / "notes.txt").read_text() == "mine" and not (target / "sub" / "b.txt").exists()


def test_an_edited_file_is_refused_before_any_work_and_replaced_with_force(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one", "gone.txt": b"old", "sub/b.txt": b"two"})
    (target / "sub" / "b.txt").write_text("edited by hand")
    (target / "gone.txt").write_text("edited, and the new set has no such file")
    before = tree(target)
    with pytest.raises(ElotError) as refused:
        OwnedFolder(target, KIND, what="set").check()
    assert "sub/b.txt (changed since elot wrote it)" in refused.value.message
    assert "gone.txt (changed since elot wrote it)" in refused.value.message and "--force" in refused.value.hint
    with pytest.raises(ElotError, match="sub/b.txt"):
        write(target, {"a.txt": b"ONE", "sub/b.txt": b"TWO"}, during=lambda: None)
    assert tree(target) == before and leftovers(target) == []
    write(target, {"a.txt": b"ONE", "sub/b.txt": b"TWO"}, force=True)
    assert (target / "sub" / "b.txt").read_bytes() == b"TWO" and not (target / "gone.txt").exists()


def test_a_file_elot_never_wrote_where_the_new_folder_writes_is_refused_at_the_swap(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one"})
    (target / "b.txt").write_text("mine")
    OwnedFolder(target, KIND).check()        # the new folder's names are not known yet
    before = tree(target)
    with pytest.raises(ElotError, match=r"b.txt \(not written by elot\).*discarded"):
        write(target, {"a.txt": b"ONE", "b.txt": b"TWO"})
    assert tree(target) == before and leftovers(target) == []
    write(target, {"a.txt": b"ONE", "b.txt": b"TWO"}, force=True)
    assert (target / "b.txt").read_bytes() == b"TWO"


def test_files_put_in_the_folder_while_elot_works_are_seen_at_the_swap(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one", "b.txt": b"two"})

    def user():
        (target / "notes.txt").write_text("kept")
        (target / "b.txt").write_text("edited while elot worked")

    with pytest.raises(ElotError, match=r"b.txt \(changed since elot wrote it\)"):
        write(target, {"a.txt": b"ONE", "b.txt": b"TWO"}, during=user)
    assert (target / "b.txt").read_text() == "edited while elot worked" and (target / "a.txt").read_bytes() == b"one"
    assert (target / "notes.txt").read_text() == "kept" and leftovers(target) == []


def test_a_swap_that_fails_puts_the_old_folder_back_with_what_was_moved_out_of_it(tmp_path, monkeypatch):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one"})
    (target / "notes" / "monday.txt").parent.mkdir()
    (target / "notes" / "monday.txt").write_text("kept")
    before = tree(target)
    rename = os.rename

    def failing(source, destination):     # the last step, the new folder into place, fails
        if Path(destination) == target and Path(source).name.endswith(".tmp"):
            raise OSError(28, "No space left on device")
        rename(source, destination)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(ElotError, match="cannot write .*No space left on device"):
        write(target, {"a.txt": b"ONE"})
    assert tree(target) == before and leftovers(target) == []


def test_the_guard_refuses_at_the_swap_whatever_force_says(tmp_path):
    target = tmp_path / "out"
    write(target, {"a.txt": b"one"})

    def guard(folder: Path) -> None:
        if (folder / "answers.db").exists():
            raise ElotError("holds answers")

    def answers():
        (target / "answers.db").write_bytes(b"a participant's answers")

    with pytest.raises(ElotError, match="holds answers"):
        write(target, {"a.txt": b"ONE"}, force=True, during=answers, guard=guard)
    assert (target / "answers.db").read_bytes() == b"a participant's answers"
    assert (target / "a.txt").read_bytes() == b"one" and leftovers(target) == []
    with pytest.raises(ElotError, match="holds answers"):
        OwnedFolder(target, KIND, force=True, guard=guard).check()


def test_a_folder_elot_did_not_write_needs_force_and_keeps_its_files(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "mine.txt").write_text("mine")
    (target / "a.txt").write_text("also mine")
    with pytest.raises(ElotError, match="is not a set elot wrote"):
        write(target, {"a.txt": b"ONE"})
    write(target, {"a.txt": b"ONE"}, force=True)
    assert (target / "mine.txt").read_text() == "mine" and (target / "a.txt").read_bytes() == b"ONE"
    other = tmp_path / "other"      # a manifest of another kind is not this kind's
    write(other, {"a.txt": b"one"})
    with pytest.raises(ElotError, match="not a survey elot wrote"):
        OwnedFolder(other, "elot other", what="survey").check()


def test_an_empty_folder_is_written_into_and_a_file_is_never_replaced(tmp_path):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "empty", {"a.txt": b"one"})
    assert (tmp_path / "empty" / "a.txt").read_bytes() == b"one"
    (tmp_path / "file").write_text("data")
    with pytest.raises(ElotError, match="is a file, not a folder"):
        write(tmp_path / "file", {"a.txt": b"one"}, force=True)
    assert (tmp_path / "file").read_text() == "data"


# -- the rule as a property -----------------------------------------------------------------

_names = st.sampled_from(["a", "b", "c", "d/e", "d/f", "g/h"])
_contents = st.binary(min_size=1, max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(first=st.dictionaries(_names, _contents, min_size=1), second=st.dictionaries(_names, _contents, min_size=1),
       edits=st.dictionaries(_names, _contents), added=st.dictionaries(st.sampled_from(["x", "d/y", "a", "d/e"]),
                                                                       _contents),
       force=st.booleans())
def test_nothing_elot_did_not_write_is_lost_unless_forced(first, second, edits, added, force):
    """Whatever a user changed in a folder elot wrote, a second write either leaves the
    folder exactly as it was (refused, only without force), or writes every new file and
    keeps each file elot never wrote at a path the new folder leaves free; without force
    it replaces or removes only files elot wrote and nobody changed since."""
    with tempfile.TemporaryDirectory() as place:
        target = Path(place) / "out"
        write(target, first)
        for name, data in {**edits, **added}.items():
            path = target / name
            if name in first or not os.path.lexists(path.parent) or path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        before = tree(target)
        ours = {name for name in first if before.get(name) == first[name]}
        try:
            write(target, second, force=force)
        except ElotError:
            event("refused")
            assert not force and tree(target) == before
            assert leftovers(target) == []
            return
        event("written")
        after = tree(target)
        for name, data in second.items():
            assert after[name] == data
        free = [n for n in before if n not in second and n != MANIFEST and not any(
            n.startswith(s + "/") or s.startswith(n + "/") for s in second)]
        for name in free:
            if name not in first:
                assert after[name] == before[name]          # never elot's: kept, force or not
        if not force:
            lost = [n for n in before if n != MANIFEST and after.get(n) != before[n]]
            assert set(lost) <= ours
        assert leftovers(target) == []
