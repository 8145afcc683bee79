"""The layers of the code base (docs/architecture.md): every import points down, and no
two packages import each other.

Each module is read with :mod:`ast`, so imports inside functions (loaded on first use)
count as much as those at the top of a file.
"""

from __future__ import annotations

import ast
import re
import itertools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

#: From the bottom up. A module may import modules of its own layer or of a lower one.
#: Within a layer, packages may import each other only one way (checked separately).
LAYERS: list[tuple[str, ...]] = [
    ("btom_ext",),                                   # the numeric engine: knows nothing of elot
    ("elot.errors", "elot.settings", "elot.output", "elot.numeric", "elot.scenarios"),  # shared by every stage
    ("elot.lang", "elot.api"),                        # the language: parse, check, lower, evaluate
    ("elot.statements", "elot.judging"),                             # where the halves meet: hypotheses, scores, the score loop
    ("elot.engine",),                                 # inverse planning over any domain: protocol, planners, inversion
    ("elot.draw", "elot.plots"),                      # figures: frames, marks, storyboards, animations (no domain)
    ("elot.domains",),                                # the fronts: built-in domains and a researcher's own file
    ("elot.translate",),                              # English to ELoT
    ("elot.embedding",),                              # your own belief model (declare, judge, ModelSource)
    ("elot.study", "elot.session", "elot.baseline"),  # studies; the session model; language-model baselines
    ("elot.survey",),                                 # the survey participants take in a browser
    ("elot.repl",),                                   # the interactive UI
    ("elot.cli", "elot.__main__"),                    # the command line
]


def unit(module: str) -> str:
    """The layer entry a module belongs to: its longest matching prefix in LAYERS."""
    best = ""
    for prefix in itertools.chain.from_iterable(LAYERS):
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    return best


def layer(module: str) -> int:
    name = unit(module)
    return next(i for i, entry in enumerate(LAYERS) if name in entry)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.with_suffix(".pyx").is_file() or path.is_dir()


def imports(path: Path) -> set[str]:
    """Every module of this repository that ``path`` imports, at any depth."""
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def imports_in(text: str, module: str, is_package: bool = False) -> set[str]:
    """Every module of this repository that the source ``text`` of ``module`` imports."""
    tree = ast.parse(text)
    here = module.split(".")
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from elot.lang import parser` imports the module elot.lang.parser
            found.update(f"{target}.{alias.name}" for alias in node.names
                         if is_module(f"{target}.{alias.name}"))
    return {m for m in found if m.split(".")[0] in ("elot", "btom_ext") and unit(m)}


def sources() -> list[Path]:
    files = sorted((REPO / "elot").rglob("*.py")) + sorted((REPO / "btom_ext").glob("*.py"))
    return [f for f in files if f != REPO / "elot" / "__init__.py"]  # the package face


def test_every_module_has_a_layer():
    unplaced = [module_name(f) for f in sources() if not unit(module_name(f))]
    assert not unplaced, f"add these modules to LAYERS in {__file__}: {unplaced}"


def test_no_import_points_up():
    upward = []
    for path in sources():
        source = module_name(path)
        for target in imports(path):
            if layer(target) > layer(source):
                upward.append(f"{source} -> {target}")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(sorted(upward))


def cycles(edges: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in edges.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def test_no_package_imports_one_that_imports_it_back():
    edges: dict[str, dict[str, set[str]]] = {}
    for path in sources():
        source = unit(module_name(path))
        for target in imports(path):
            if unit(target) != source:
                edges.setdefault(source, {}).setdefault(unit(target), set()).add(module_name(path))
    report = [" <-> ".join(c) + ": " + "; ".join(f"{a} -> {b} ({', '.join(sorted(edges[a][b]))})"
                                               for a in c for b in c if b in edges.get(a, {}))
              for c in cycles(edges)]
    assert not report, "\n".join(report)


def test_settings_sit_at_the_bottom():
    """elot.settings is read by every layer, so it reads only elot.errors."""
    read = {unit(m) for m in imports(REPO / "elot" / "settings.py")}
    assert read <= {"elot.errors"}, read


def test_the_engine_imports_nothing_of_elot():
    for path in sorted((REPO / "btom_ext").glob("*.py")) + sorted((REPO / "btom_ext").glob("*.pyx")):
        text = path.read_text(encoding="utf-8")
        assert "import elot" not in text and "from elot" not in text, path


def test_the_inference_engine_returns_posteriors_and_knows_no_language():
    """elot/engine/ imports neither the language nor judging (#41 item 5): it returns
    posteriors as arrays; ELoT rows are made above it (elot.domains.rows, a tabular
    domain's front)."""
    found = {}
    for path in sorted((REPO / "elot" / "engine").rglob("*.py")):
        wrong = sorted({unit(m) for m in imports(path)} & {"elot.lang", "elot.judging", "elot.statements"})
        if wrong:
            found[str(path.relative_to(REPO))] = wrong
    assert not found


#: Modules outside elot/domains/ that may import a domain's package, and why.
DOMAIN_CLIENTS = {
    "elot/embedding/btom.py": "BToMModel is the gridworld's inference offered as a belief model",
    "elot/cli/generate.py": "elot generate draws random gridworld maps: a command of that domain",
}


def test_no_generic_layer_names_a_domain():
    """One pipeline (#41 item 1): outside elot/domains/ (where each domain's package and
    the registry live), no module imports a domain's package or tests a domain's type;
    commands, the session, the study and the survey ask the front."""
    found = []
    packages = ("elot.domains.doors_keys_gems", "elot.domains.foodtrucks", "elot.domains.pddl")
    for path in sorted((REPO / "elot").rglob("*.py")):
        name = str(path.relative_to(REPO))
        if name.startswith("elot/domains/") or name in DOMAIN_CLIENTS:
            continue
        text = path.read_text(encoding="utf-8")
        wrong = [m for m in imports(path) if m.startswith(packages)]
        wrong += re.findall(r"isinstance\([^)]*\b(?:FoodTrucks|GridFront|FoodTrucksFront|Scenario|Layout)\b", text)
        if wrong:
            found.append(f"{name}: {sorted(set(wrong))}")
    assert not found


#: Words of particular domains; the engine (elot/engine/) is written for any domain.
DOMAIN_WORDS = re.compile(r"(?i)(?<![a-z])(keys?|doors?|gems?|box(es)?|trucks?)(?![a-z])")


def test_the_engine_names_no_domain_object():
    """No identifier, string or comment of elot/engine/ names a key, door, gem, box or truck
    (split at underscores and case changes, so ``key_of`` and ``doorCell`` count)."""
    found = []
    for path in sorted((REPO / "elot" / "engine").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            words = re.sub(r"([a-z])([A-Z])", r"\1 \2", line).replace("_", " ")
            if DOMAIN_WORDS.search(words):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "the engine names a domain's objects:\n" + "\n".join(found)


def test_the_domain_word_check_finds_what_it_should():
    for text in ("key_of", "the doorCell", "Gems", "a box", "trucks here"):
        assert DOMAIN_WORDS.search(re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")), text
    for text in ("monkey", "boxer", "keystone", "outdoors", "gemstone"):
        assert not DOMAIN_WORDS.search(text), text


@pytest.mark.parametrize("line, expected", [
    ("from elot.lang.parser import parse", "elot.lang"),
    ("from elot.domains.doors_keys_gems import pddl", "elot.domains"),
    ("from ..study.fit import precompute", "elot.study"),
    ("import btom_ext.core", "btom_ext"),
])
def test_imports_are_read_at_any_depth(line, expected):
    """The walker itself: an import inside a function, relative or absolute, is found."""
    found = imports_in(f"def f():\n    {line}\n", "elot.cli.run")
    assert expected in {unit(m) for m in found}
