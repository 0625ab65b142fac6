"""The pure core imports no I/O: no asyncio, sockets, Redis, sqlite, clock or randomness. The Python client's
sans-I/O core (message handling and the mirrored view) is held to the same rule, so any event loop or test
can drive it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = [ROOT / "server" / "engine", ROOT / "server" / "rules", ROOT / "protocol"]
CLIENT_CORE = [ROOT / "clients" / "python" / "core.py", ROOT / "clients" / "python" / "mirror.py"]
FORBIDDEN = {
    "asyncio",
    "socket",
    "redis",
    "sqlite3",
    "websockets",
    "random",
    "secrets",
    "time",
    "datetime",
    "os",
    "subprocess",
    "threading",
    "uuid",
    "server.store",
    "server.net",
    "server.service",
}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize(
    "path",
    [p for d in PURE for p in sorted(d.rglob("*.py"))] + CLIENT_CORE,
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_pure_modules_import_no_io(path: Path) -> None:
    bad = {m for m in imports(path) if any(m == f or m.startswith(f + ".") for f in FORBIDDEN)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


LIBRARIES = {"questworlds"}
"""Packages under ``server/rules`` that are shared mechanics, not rulesets: any ruleset may import them."""


def test_rulesets_never_import_each_other() -> None:
    rules = ROOT / "server" / "rules"
    for package in [p for p in rules.iterdir() if p.is_dir() and (p / "__init__.py").exists()]:
        for path in package.rglob("*.py"):
            for module in imports(path):
                if module.startswith("server.rules."):
                    imported = module.split(".")[2]
                    allowed = {package.name} if package.name in LIBRARIES else {package.name, *LIBRARIES}
                    assert imported in allowed, f"{path} imports {module}"


def test_the_engine_imports_no_ruleset() -> None:
    for path in sorted((ROOT / "server" / "engine").rglob("*.py")):
        bad = {m for m in imports(path) if m.startswith(("server.rules", "server.rulesets", "protocol.rulesets."))}
        assert not bad, f"{path.name} imports {sorted(bad)}"
