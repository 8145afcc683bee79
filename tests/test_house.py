"""The house rule of issue #35: no module over ~600 lines holds several jobs.

A module that grows past :data:`LIMIT` lines must be listed in :data:`ONE_JOB` with the one
job it holds (or be split by job). Modules split by job keep their old names importable:
every name that moved is the very same object at its old place and at its new one.
"""

from __future__ import annotations

from pathlib import Path


REPO = Path(__file__).resolve().parent.parent

#: Lines above which a module must be one job, said here.
LIMIT = 600

#: The modules over LIMIT lines, each one job (docs/architecture.md says more).
ONE_JOB = {
    # each option declared once, with its help and checks; --param (#42) took it past the limit
    "elot/cli/options.py": "the one vocabulary of options every subcommand builds its parser from",
    "elot/lang/checker.py": "the typing rules, one method each, and their entry points",
    "elot/lang/english.py": "the verbalizer: a formula said in English, its clauses kept apart until the end",
    "elot/lang/semantics.py": "evaluation: compiling a lowered formula into vectorized NumPy and evaluating it",
    # one concern (never lose the user's data), two parts: single files and folders written whole;
    # those could become two modules once the branch editing output.py now is merged
    "elot/output.py": "writing output files without losing the user's data: atomic replaces, sidecars, owned folders",
    # one Session over any source: a domain's front and episode, or a belief model
    "elot/session.py": "the session model an interactive session answers from (a front's episode or a belief model)",
    "elot/study/fit.py": "fitting Θ and β by Pearson r (with ties and flat optima)",
    "elot/survey/server.py": "the survey's HTTP server",
}


def long_modules() -> dict[str, int]:
    out = {}
    for path in sorted((REPO / "elot").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > LIMIT:
            out[path.relative_to(REPO).as_posix()] = lines
    return out


def test_every_long_module_is_one_job_said_here():
    unexplained = {path: n for path, n in long_modules().items() if path not in ONE_JOB}
    assert not unexplained, (
        f"modules over {LIMIT} lines: {unexplained}; split each by job (docs/architecture.md), "
        "or add it to ONE_JOB with the one job it holds")


def test_the_list_names_only_modules_that_exist():
    missing = [path for path in ONE_JOB if not (REPO / path).is_file()]
    assert not missing, f"ONE_JOB lists modules that are gone: {missing}"



#: Modules whose job is to hand names on: the language's public face.
FACES = {"elot/api.py"}


def _handed_on(path: Path) -> list[str]:
    """Names ``path`` imports at its top level and never uses: names handed on from where
    they live (a re-export), which callers should import from there."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.module != "__future__" for a in node.names}
    imported |= {(a.asname or a.name).split(".")[0] for node in tree.body if isinstance(node, ast.Import)
                 for a in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return sorted(imported - used)


def test_no_module_hands_on_names_from_elsewhere():
    """One name, one place: a module imports what it uses, and callers import a name from
    the module that defines it (no "importable from here as before" shims)."""
    found = {}
    for path in sorted((REPO / "elot").rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        if path.name == "__init__.py" or relative in FACES:
            continue
        names = _handed_on(path)
        if names:
            found[relative] = names
    assert not found, f"names imported and not used (import them where they live): {found}"
