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
PACKAGES = ("engine", "protocols", "textui", "tournaments", "antichess")
ALLOWED = {
    "engine": set(),
    "protocols": {"engine"},
    "textui": {"engine"},
    "tournaments": {"engine"},
    "antichess": {"engine", "protocols", "textui", "tournaments"},
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


def test_the_search_does_not_import_the_game_facade():
    """Inside `engine` the dependency is one-way: `engine.game` (whose `Game.search` calls the
    Searcher) imports `engine.searcher`, never the reverse; moves come from `engine.moves`."""
    import subprocess

    probe = "import sys, engine.search.searcher; print('engine.rules.game' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
