"""Every arrow between the project's modules points down: no import circle among the modules of ``server``,
``protocol`` and ``clients``.

The graph is read from the source (``ast``), not from a running interpreter, so it holds every import a module
can make: module-level ones, the ones inside functions (a late import is how a circle hides), and the ones
under ``if TYPE_CHECKING:``. Those count too: a type-only import is still an arrow in the design — a module
that names a type from a module above it depends on that module — and a circle drawn only for the type
checker is one refactoring away from a circle at run time. Where a lower module needs something from a
higher one, it declares what it needs (a Protocol, a small shared module) and the higher one satisfies it.

A package's ``__init__`` re-exporting its own submodules is not an arrow back: importing ``a.b`` runs
``a/__init__`` first by Python's own rule, which no module chooses. An explicit ``from a import x`` inside
``a.b`` is an arrow, and is checked like any other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "clients")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def imported_names(path: Path, name: str) -> Iterable[str]:
    """Every dotted name ``path`` (module ``name``) imports, at any depth, relative imports made absolute;
    for ``from a import b`` both ``a.b`` (in case b is a module) and ``a``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                yield f"{module}.{alias.name}"
            yield module


def resolve(imported: str, modules: dict[str, Path]) -> str | None:
    """The project module an imported name lands in: the longest dotted prefix that is one of ours."""
    parts = imported.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {resolve(imported, modules) for imported in imported_names(path, name)}
        # A package's own __init__ is run by Python before any of its submodules: not a choice, not an arrow.
        graph[name] = {t for t in targets if t is not None and t != name and not name.startswith(t + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each strongly connected group of modules (Tarjan, then a breadth-first
    search back to the group's first module), so a failure names the modules to untie."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)

    found = []
    for group in groups:
        start = min(group)
        paths = {start: [start]}
        frontier = [start]
        while frontier and start not in {t for n in frontier for t in graph[n]}:
            following = []
            for node in frontier:
                for target in sorted(graph[node] & group):
                    if target not in paths:
                        paths[target] = [*paths[node], target]
                        following.append(target)
            frontier = following
        last = next(n for n in frontier if start in graph[n])
        found.append([*paths[last], start])
    return sorted(found)


def test_no_import_circle() -> None:
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" → ".join(circle) for circle in found)


def test_the_circle_finder_names_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c", "a"]]


SOCKET_LAYER = "server.net"
BELOW_THE_FEEDS = ("server.engine", "server.store")
"""``server.net`` keeps sockets, auth and HTTP: it reaches contests through the backend it is handed
(``server.backend``: the service and the feeds), never the engine or a store directly."""


def below(module: str) -> bool:
    return any(module == b or module.startswith(b + ".") for b in BELOW_THE_FEEDS)


def test_the_socket_layer_reaches_neither_the_engine_nor_a_store() -> None:
    graph = import_graph()
    socket_layer = [name for name in graph if name == SOCKET_LAYER or name.startswith(SOCKET_LAYER + ".")]
    found = {name: reached for name in socket_layer if (reached := {t for t in graph[name] if below(t)})}
    assert not found, f"the socket layer reaches below the feeds: {found}"


def test_the_feeds_know_no_socket() -> None:
    """``server.feed`` sits below the sockets: it is told what it needs (settings, metrics, a follower's
    ``send``) through Protocols of its own."""
    graph = import_graph()
    up = {
        name: {t for t in graph[name] if t.startswith(SOCKET_LAYER + ".")}
        for name in graph
        if name.startswith("server.feed")
    }
    assert not {name: reached for name, reached in up.items() if reached}
