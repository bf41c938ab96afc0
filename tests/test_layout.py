"""The package's shape: every module imports on its own, imports only point down the layers that
the package docstrings state, nothing forms a cycle, no module grows past what a newcomer reads in
one sitting, no two names look alike, and the tests mirror the packages."""

import ast
import importlib
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import privmetrics

ROOT = Path(privmetrics.__file__).parent
TESTS = Path(__file__).resolve().parent

# lowest first; a module may import its own package and any package of a lower layer
LAYERS = [
    {"threads", "paths", "resources", "prose"},
    {"data"},
    {"geometry"},
    {"synthesisers"},
    {"attacks"},
    {"disclosure"},
    {"metrics"},
    {"experiments"},
    {"audit"},
    {"compendium"},
    {"commands"},
    {"__main__"},
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = sorted(module_name(p) for p in ROOT.rglob("*.py"))


def package_of(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def imports(top_level_only: bool) -> dict[str, set[str]]:
    """Each module's ``privmetrics`` imports (every import, or those run when it is imported)."""
    graph = defaultdict(set)
    for module in MODULES:
        path = ROOT.parent / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT.parent / module.replace(".", "/") / "__init__.py"
        tree = ast.parse(path.read_text())
        nodes = tree.body if top_level_only else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.level:
                raise AssertionError(f"{module}: relative import (the package uses absolute ones)")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("privmetrics"):
                for alias in node.names:
                    child = f"{node.module}.{alias.name}"
                    graph[module].add(child if child in MODULES else node.module)
            elif isinstance(node, ast.Import):
                graph[module] |= {a.name for a in node.names if a.name.startswith("privmetrics.")}
    return graph


def test_every_package_is_placed_in_a_layer():
    packages = {package_of(m) for m in MODULES} - {"__init__"}
    assert packages == set(RANK), packages ^ set(RANK)


def upward(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if package_of(target) != "__init__" and RANK[package_of(target)] > RANK[package_of(module)]
    ]


def test_imports_point_down_the_layers_only():
    assert not upward(imports(top_level_only=False))
    # and the check can fail: a metric importing the runner is an upward arrow
    arrow = {"privmetrics.metrics.registry": {"privmetrics.experiments.grid.runner"}}
    assert upward(arrow) == ["privmetrics.metrics.registry -> privmetrics.experiments.grid.runner"]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_between_modules_or_packages():
    assert find_cycle(imports(top_level_only=True)) is None
    packages = defaultdict(set)
    for module, targets in imports(top_level_only=False).items():
        packages[package_of(module)] |= {package_of(t) for t in targets} - {package_of(module)}
    assert find_cycle(packages) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_on_its_own(module):
    """Imported with no other ``privmetrics`` module loaded, as a user's first import would be."""
    saved = {name: mod for name, mod in sys.modules.items() if name.startswith("privmetrics")}
    for name in saved:
        del sys.modules[name]
    try:
        importlib.import_module(module)
    finally:
        for name in [n for n in sys.modules if n.startswith("privmetrics")]:
            del sys.modules[name]
        sys.modules.update(saved)


# a module a newcomer reads in one sitting, and a command line that is only its table
MAX_LINES, MAX_MAIN_LINES = 450, 120


def test_no_module_is_longer_than_a_sitting():
    lengths = {p.relative_to(ROOT): len(p.read_text().splitlines()) for p in ROOT.rglob("*.py")}
    assert {str(p): n for p, n in lengths.items() if n > MAX_LINES} == {}
    assert lengths[Path("__main__.py")] < MAX_MAIN_LINES


def look_alikes(names: dict[str, str]) -> list[tuple[str, str]]:
    """Pairs of module or package paths whose names are the same, or the same but for a plural
    ("reading" and "readings"), in different places."""
    keys = sorted(names)
    return [
        (names[a], names[b])
        for i, a in enumerate(keys)
        for b in keys[i + 1 :]
        if a.removesuffix("s") == b.removesuffix("s")
    ]


def test_no_two_names_look_alike():
    places = [p for p in ROOT.rglob("*.py") if p.name != "__init__.py"]
    places += [ROOT / p for p in package_paths() | {Path("resources")}]
    names = {}
    for place in places:
        name = place.stem
        assert name not in names, f"{names.get(name)} and {place.relative_to(ROOT)} share a name"
        names[name] = str(place.relative_to(ROOT))
    assert look_alikes(names) == []
    # and the check can fail: the pair the house once had
    assert look_alikes({"reading": "audit/reading.py", "readings": "audit/readings.py"}) == [
        ("audit/reading.py", "audit/readings.py")
    ]


def package_paths() -> set[Path]:
    """Every package and sub-package of the library (``resources`` holds data, not code)."""
    return {
        p.parent.relative_to(ROOT)
        for p in ROOT.rglob("__init__.py")
        if p.parent != ROOT and p.parent.relative_to(ROOT).parts[0] != "resources"
    }


def misplaced_tests(modules: dict[str, Path], tests: list[Path]) -> list[str]:
    """Test modules named after a library module (``test_runner.py``) that sit outside that
    module's package folder."""
    return [
        str(test)
        for test in tests
        if (home := modules.get(test.stem.removeprefix("test_"))) is not None
        and test.parent != home
    ]


def test_every_package_has_its_test_folder_and_tests_stay_in_them():
    packages = package_paths()
    holding = {p for p in packages if any(m.name != "__init__.py" for m in (ROOT / p).glob("*.py"))}
    tests = [t.relative_to(TESTS) for t in TESTS.rglob("test_*.py")]
    folders = {t.parent for t in tests} - {Path(".")}
    assert holding <= folders, sorted(map(str, holding - folders))
    assert folders <= packages, sorted(map(str, folders - packages))
    modules = {
        p.stem: p.parent.relative_to(ROOT) for p in ROOT.rglob("*.py") if p.stem != "__init__"
    }
    assert misplaced_tests(modules, tests) == []
    assert misplaced_tests(
        {"runner": Path("experiments/grid")}, [Path("audit/test_runner.py")]
    ) == ["audit/test_runner.py"]
    # at the top only what spans packages: the layout, the wheel, bad input everywhere, and the
    # top-level modules' own tests
    top = {t.name for t in tests if t.parent == Path(".")}
    own = {f"test_{p.stem}.py" for p in ROOT.glob("*.py")}  # test_prose.py for prose.py ...
    assert top - own == {"test_layout.py", "test_wheel.py", "test_bad_input.py"}


# ---- guards that keep the house as it is (issue 60, item 5); each shows that it can fail ----


def trees() -> dict[Path, ast.Module]:
    return {p.relative_to(ROOT): ast.parse(p.read_text()) for p in ROOT.rglob("*.py")}


MAY_IMPORT = re.compile(r"May\s+import\s+(.*?)(?:;|\.\s|\.$)", re.S)


def declared(docstring: str) -> set[str] | None:
    """The packages a package docstring's "May import ..." clause names (None: every other)."""
    found = MAY_IMPORT.search(docstring or "")
    assert found, "no 'May import' line"
    clause = " ".join(found[1].split())
    return (
        None if clause.startswith("every other package") else set(re.findall(r"``(\w+)``", clause))
    )


def undeclared(imported: dict[str, set[str]], allowed: dict[str, set[str] | None]) -> list[str]:
    return [
        f"{package} imports {target}"
        for package, targets in sorted(imported.items())
        if allowed.get(package) is not None
        for target in sorted(targets - allowed[package])
    ]


def test_packages_import_only_what_their_docstring_says():
    packages = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists())
    allowed = {
        name: declared(ast.get_docstring(ast.parse((ROOT / name / "__init__.py").read_text())))
        for name in packages
        if name != "resources"  # data files, no code of its own
    }
    imported = defaultdict(set)
    for module, targets in imports(top_level_only=False).items():
        imported[package_of(module)] |= {package_of(t) for t in targets} - {package_of(module)}
    assert undeclared({p: imported[p] for p in allowed}, allowed) == []
    assert declared("May import every other package; the command line imports it.") is None
    assert undeclared({"geometry": {"data", "metrics"}}, {"geometry": {"data"}}) == [
        "geometry imports metrics"
    ]


def called(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines of ``tree`` that call one of ``names`` (a function or a method)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in names
    ]


def offenders(found: dict[Path, ast.AST], names: set[str], homes: set[str], excused) -> list[str]:
    """Files outside the ``homes`` packages (and not ``excused``) that call one of ``names``."""
    return [
        f"{path}:{line}"
        for path, tree in sorted(found.items())
        if path.parts[0] not in homes and str(path) not in excused
        for line in called(tree, names)
    ]


# the command line itself, and a script that another interpreter runs, whose stdout is its answer
PRINTS_EXCUSED = {
    "__main__.py": "the command line",
    "resources/peers/anonymeter_side.py": "a script",
}


def test_the_library_speaks_through_commands_and_the_compendium_only():
    """No ``print`` outside ``commands/`` and ``compendium/``; no argument parsing outside
    ``commands/`` (a library function takes values, a command reads them from its options)."""
    found = trees()
    assert offenders(found, {"print"}, {"commands", "compendium"}, PRINTS_EXCUSED) == []
    parsing = {"add_argument", "ArgumentParser", "parse_args"}
    assert offenders(found, parsing, {"commands"}, {"__main__.py": "the command table"}) == []
    leaky = {Path("metrics/x.py"): ast.parse("def f():\n    print(1)\n")}
    assert offenders(leaky, {"print"}, {"commands"}, {}) == ["metrics/x.py:2"]


MAX_FUNCTION_LINES, MAX_PARAMETERS = 100, 10
# (module, function): why it stays over a limit for now
OVERSIZED = {
    ("synthesisers/pategan.py", "__init__"): "a synthesiser's parameters are its constructor's "
    "keywords (scikit-learn's convention); PATE-GAN has 14",
    ("synthesisers/pategan.py", "_fit"): "Algorithm 1 of PATE-GAN in one loop; its code is hashed "
    "into the shipped cells' fingerprints, so splitting it would stale the paper store (11 h)",
    ("geometry/neighbours.py", "_scan"): "the blocked exact search; reached by the synthesisers' "
    "fingerprints like the above",
    **{
        (module, "__init__"): "an attack's parameters are its constructor's keywords, kept as "
        "given (scikit-learn's convention, attacks/shape.py)"
        for module in ("attacks/inference.py", "attacks/membership.py", "attacks/one_run.py")
    },
    (
        "disclosure/epsilon.py",
        "advise_epsilon",
    ): "the advice's options, each a keyword with a default",
    ("audit/run.py", "audit"): "the audit's keywords mirror the command's options",
    ("experiments/grid/runner.py", "run_grid"): "the grid's keywords mirror `privmetrics run`'s",
}


def oversized(found: dict[Path, ast.AST]) -> dict[tuple[str, str], str]:
    out = {}
    for path, tree in found.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            a = node.args
            names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
            names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
            names = [n for n in names if n not in ("self", "cls")]
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES or len(names) > MAX_PARAMETERS:
                out[(str(path), node.name)] = f"{lines} lines, {len(names)} parameters"
    return out


def test_no_function_is_longer_or_wider_than_a_reader_holds():
    found = oversized(trees())
    assert {k: v for k, v in found.items() if k not in OVERSIZED} == {}
    assert sorted(set(OVERSIZED) - set(found)) == []  # an exception that no longer is one goes
    wide = {Path("m.py"): ast.parse("def f(" + ", ".join(f"a{i}" for i in range(11)) + "): pass")}
    assert oversized(wide) == {("m.py", "f"): "1 lines, 11 parameters"}


MAX_MODULES = 15  # a folder a newcomer surveys at a glance; commands/ holds one module a command


def crowded(folders: dict[str, int]) -> list[str]:
    return [f"{f}: {n} modules" for f, n in sorted(folders.items()) if n > MAX_MODULES]


def test_no_folder_holds_more_modules_than_a_glance_takes_in():
    folders = {
        str(p.relative_to(ROOT)): sum(m.name != "__init__.py" for m in p.glob("*.py"))
        for p in [ROOT, *(ROOT / q for q in package_paths())]
        if p.name != "commands"
    }
    assert crowded(folders) == []
    assert crowded({"experiments": 21}) == ["experiments: 21 modules"]
