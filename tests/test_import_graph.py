"""The dependencies between the project's top-level packages, read from the source with `ast`.

`engine` (rules core and search) imports none of the others; `protocols`, `textui` and
`tournaments` import only `engine` from the project; `antichess`, the command line, may
import all of them.  Every import counts: at module level or inside a function, absolute
or relative, and `importlib.import_module` / `__import__` with a module name written in
the source (also when the name is a string constant kept elsewhere in the module, as
`protocols.transcript` keeps its adapters' module names in a table).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocols", "textui", "tournaments", "gui", "antichess")
ALLOWED = {
    "engine": set(),
    "protocols": {"engine"},
    "textui": {"engine"},
    "tournaments": {"engine"},
    "gui": {"engine"},
    "antichess": {"engine", "protocols", "textui", "tournaments", "gui"},
}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    """True if `dotted` names a module or package of this repository."""
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolve(module: str, is_package: bool, name: str | None, level: int) -> str:
    """The absolute module named by `from <level dots><name> import ...` in `module`."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def imported_modules(path: Path) -> set[str]:
    """Every absolute module name that the file at `path` imports, or may import by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.module, node.level)
            found.add(base)
            if node.module is None:  # `from .. import name`: the names may be modules
                found.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called not in ("import_module", "__import__"):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                name = first.value
            elif isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
                name = str(first.values[0].value)  # f".{name}": at least its fixed start
            else:
                continue  # a name built at run time: the string constants below cover it
            if name.startswith("."):
                level = len(name) - len(name.lstrip("."))
                found.add(_resolve(module, is_package, name.lstrip(".").rstrip(".") or None, level))
            else:
                found.add(name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _DOTTED.fullmatch(node.value) and node.value.split(".")[0] in PACKAGES \
                    and _is_module(node.value):
                found.add(node.value)
    return {name for name in found if name}


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def project_imports(package: str) -> dict[str, set[str]]:
    """For each file of `package`, the other project packages it imports."""
    result = {}
    for path in _files(package):
        tops = {name.split(".")[0] for name in imported_modules(path)}
        result[str(path.relative_to(ROOT))] = (tops & set(PACKAGES)) - {package}
    return result


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_it_may(package):
    files = project_imports(package)
    assert files, f"no Python files found in {package}/"
    wrong = {path: sorted(tops - ALLOWED[package]) for path, tops in files.items() if tops - ALLOWED[package]}
    assert not wrong, f"{package} may import only {sorted(ALLOWED[package])} of the project: {wrong}"


def test_the_reader_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The checker itself: absolute, relative, lazy and by-name imports are all found."""
    package = tmp_path / "textui"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sub.py").write_text("")
    sample = package / "sample.py"
    sample.write_text(
        "import os\n"
        "from . import sub\n"
        "from .sub import x\n"
        "from .. import engine\n"
        "def later():\n"
        "    from protocols.host import run_stdio\n"
        "    import tournaments.cli as cli\n"
        "    import importlib\n"
        "    importlib.import_module('antichess.cli')\n"
        "    importlib.import_module(f'.{x}', __name__)\n"
        "TABLE = {'a': ('textui.sub', 'Thing')}\n"
        "NOT_A_MODULE = 'antichess.xsd'\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = imported_modules(sample)
    assert {"os", "textui", "textui.sub", "engine", "protocols.host", "tournaments.cli",
            "antichess.cli"} <= found
    assert "antichess.xsd" not in found


def test_the_command_line_is_its_own_package():
    assert not (ROOT / "protocols" / "cli.py").exists()
    assert (ROOT / "antichess" / "cli.py").is_file() and (ROOT / "antichess" / "__main__.py").is_file()
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'antichess = "antichess.cli:main"' in text


# Inside `engine`, the layers in dependency order: a module may import modules of its own
# layer and of the layers before it, never after.  `precompile` and `bench` drive the whole
# engine; the facade (`engine/__init__.py`) may name anything.
ENGINE_LAYERS = (
    ("engine.jit",),
    ("engine.rules",),
    ("engine.coursefile",),
    ("engine.tablebase",),
    ("engine.search",),
    ("engine.precompile", "engine.bench"),
)
ADAPTERS = ("protocols", "textui", "tournaments", "gui", "antichess")


def _layer(module: str) -> int:
    """The index in ENGINE_LAYERS of an engine module (the most specific prefix wins)."""
    best, length = None, -1
    for index, prefixes in enumerate(ENGINE_LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    assert best is not None, f"{module} is in no layer of ENGINE_LAYERS"
    return best


def engine_graph() -> dict[str, set[str]]:
    """For each module of `engine`, the engine modules it imports (every import, lazy ones
    too), without its own enclosing packages (which Python loads first in any case)."""
    graph = {}
    for path in _files("engine"):
        module = _module_name(path)
        ancestors = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
        if path.name == "__init__.py":
            ancestors.add(module)
        edges = set()
        for name in imported_modules(path):
            if name.split(".")[0] != "engine":
                continue
            while name and not _is_module(name):  # `from engine.x import Name`: the module engine.x
                name = name.rpartition(".")[0]
            if name and name not in ancestors and name != module:
                edges.add(name)
        graph[module] = edges
    return graph


def test_the_engine_modules_import_each_other_without_a_cycle():
    graph = engine_graph()
    assert len(graph) > 30
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for child in sorted(graph.get(module, ())):
            if state.get(child) == 1:
                cycle = path[path.index(child):] + [child] if child in path else [module, child]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if child not in state:
                visit(child, path + [child])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_each_engine_module_imports_only_its_layer_and_those_before():
    wrong = []
    for module, edges in engine_graph().items():
        if module == "engine":
            continue  # the facade
        for child in edges:
            if child != "engine" and _layer(child) > _layer(module):
                wrong.append(f"{module} -> {child}")
            if child == "engine":
                wrong.append(f"{module} -> engine (the facade is for other packages)")
    assert not wrong, wrong


def test_the_search_kernels_import_only_the_tables_indexing():
    """Modules of `engine.search` that define kernels reach the endgame tables only through
    `engine.tablebase.indexing`: the hot path depends on no builder, file or prober."""
    for path in _files("engine"):
        module = _module_name(path)
        if not module.startswith("engine.search.") or "@kernel" not in path.read_text(encoding="utf-8"):
            continue
        tables = {child for child in engine_graph()[module] if child.startswith("engine.tablebase")}
        assert tables <= {"engine.tablebase.indexing"}, (module, tables)


@pytest.mark.parametrize("package", ADAPTERS)
def test_adapters_use_only_the_engine_facade(package):
    """`protocols`, `textui`, `tournaments` and `antichess` import `engine` itself, never one
    of its modules (the facade exports all they need)."""
    wrong = {}
    for path in _files(package):
        deep = sorted(name for name in imported_modules(path) if name.startswith("engine."))
        if deep:
            wrong[str(path.relative_to(ROOT))] = deep
    assert not wrong, wrong


def _private_members_of_engine() -> set[str]:
    """The names of engine's private methods and attributes (`self._name`)."""
    names = set()
    for path in _files("engine"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                names.add(node.attr)
    return names


@pytest.mark.parametrize("package", [*ADAPTERS, "tests", "tools", "benchmarks"])
def test_no_other_package_touches_a_private_member_of_the_engine(package):
    """Outside `engine`, no import of a private engine name and no use of an engine object's
    private member (an attribute named like one of engine's `self._name`s, on anything but
    `self`)."""
    private = _private_members_of_engine()
    assert "_legal" in private and "_stack" in private  # the reader finds them
    wrong = []
    for path in _files(package):
        if path.name == "test_import_graph.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "engine":
                wrong += [f"{path.name}: from {node.module} import {alias.name}" for alias in node.names
                          if alias.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr in private \
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                wrong.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert not wrong, wrong


def test_the_rules_do_not_import_the_search():
    """`engine.rules` (the game facade among them) loads no search or table module beyond
    what `import engine` loads (the score conversions): a program that only plays moves
    never loads the search."""
    import subprocess

    probe = ("import sys, engine; before = set(sys.modules); import engine.rules.game; "
             "print(sorted(m for m in set(sys.modules) - before if m.startswith(('engine.search', 'engine.tablebase'))))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
