"""What `pip install .` ships: every folder of the package is a package setup.py finds
(a folder without __init__.py is left out of a non-editable install, and every import of
it fails there while the checkout works)."""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages

REPO = Path(__file__).resolve().parent.parent


def test_every_code_folder_of_elot_is_a_package_setup_finds():
    found = set(find_packages(str(REPO), include=["elot", "elot.*", "btom_ext"]))
    folders = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "elot").rglob("*.py")}
    assert folders <= found, f"add __init__.py to: {sorted(folders - found)}"
