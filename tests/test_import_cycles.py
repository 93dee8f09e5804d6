"""No import circles inside ``continental_env/``: the modules form layers (docs/DESIGN.md).

Every ``import`` and ``from ... import`` of a package module counts: a lazy one inside a function
too (it still ties the two modules together), and one under ``if TYPE_CHECKING:`` too (a circle
the type checker needs is a circle a reader has to follow).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "continental_env"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports (a name imported from a package may be a module)."""
    me = module_name(path)
    return _imports_in_source(
        path.read_text(encoding="utf-8"), modules, me, path.name == "__init__.py"
    )


def _imports_in_source(
    source: str, modules: set[str], me: str, is_package: bool = False
) -> set[str]:
    """The modules of ``modules`` that the source of module ``me`` imports, at any depth."""
    tree = ast.parse(source)
    package = me if is_package else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base in modules:
                found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules)
    found.discard(me)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph (its modules in order, the first repeated last), or None.

    A package's ``__init__`` importing its own submodules is not a circle with them: importing a
    submodule runs its package first, which Python allows.
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def edges(m: str) -> list[str]:
        return sorted(n for n in graph[m] if not n.startswith(m + "."))

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in edges(m):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n]
            if n not in state and (found := visit(n)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_cycle_inside_the_package() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    # Positive control: the former knock loader (game -> state_check -> game) is a circle.
    graph = {"a.game": {"a.state_check"}, "a.state_check": {"a.game", "a.cards"}, "a.cards": set()}
    assert find_cycle(graph) == ["a.game", "a.state_check", "a.game"]
    # A circle closed only by an import under TYPE_CHECKING is found too.
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a.game import Game\n"
    tree_imports = _imports_in_source(source, {"a.game", "a.legal"}, "a.legal")
    assert tree_imports == {"a.game"}
    # A package's __init__ importing its submodule, which imports the package, is no circle.
    assert find_cycle({"a": {"a.b"}, "a.b": {"a"}}) is None


def test_the_engines_import_the_kernel_and_not_each_other() -> None:
    graph = import_graph()
    for game in (
        "continental_env.knock.game",
        "continental_env.fifteen.game",
        "continental_env.contract.game",
    ):
        assert "continental_env.engine" in graph[game], game
    assert "continental_env.knock.game" not in graph["continental_env.knock.state_check"]
    assert "continental_env.fifteen.game" not in graph["continental_env.fifteen.state_check"]
