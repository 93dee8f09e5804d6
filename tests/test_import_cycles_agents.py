"""No import circles in ``agents`` and ``continental_web``, counting every import at any depth.

An edge is any ``import``/``from ... import`` of a module of these packages (at module level, in a
function or a branch) and any ``"package.module:ATTRIBUTE"`` string naming one (the registries'
lazy targets). A package's ``__init__`` imported implicitly with a submodule is not an edge: a
circle must be made by the code, not by Python's loading of parents.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agents", "continental_web")
TARGET = re.compile(r"^((?:agents|continental_web)(?:\.\w+)*):\w+$")


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``PACKAGES``."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imported(source: str, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` imports (deepest known prefix)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            names += [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = TARGET.match(node.value)
            if match:
                names.append(match.group(1))
    out = set()
    for target in names:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    mods = modules(root)
    known = set(mods)
    return {
        name: imported(path.read_text(), name, path.name == "__init__.py", known)
        for name, path in mods.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_circle_through_a_function_level_import() -> None:
    known = {"agents.a", "agents.b", "agents.c"}
    a = imported("def f():\n    from agents.b import x\n", "agents.a", False, known)
    b = imported("import agents.c as c\n", "agents.b", False, known)
    c = imported("TARGETS = {'x': 'agents.a:Thing'}\n", "agents.c", False, known)
    assert (a, b, c) == ({"agents.b"}, {"agents.c"}, {"agents.a"})
    assert cycles({"agents.a": a, "agents.b": b, "agents.c": c}) == [
        ["agents.a", "agents.b", "agents.c"]
    ]
    assert cycles({"agents.a": a, "agents.b": b, "agents.c": set()}) == []


def test_agents_and_the_web_table_have_no_import_circles() -> None:
    edges = graph()
    assert "agents.registry" in edges and "continental_web.session" in edges
    found = cycles(edges)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_bots_never_import_the_layers_above_them() -> None:
    """``agents.bots`` is the bottom floor: the registry, evaluation, training, play and the web
    table build on it, never the reverse."""
    above = ("agents.registry", "agents.games", "agents.evaluate", "agents.train", "agents.rllib")
    above += ("agents.play", "continental_web")
    edges = graph()
    bad = [
        f"{name} -> {target}"
        for name, targets in edges.items()
        if name.startswith("agents.bots")
        for target in targets
        if target == "agents" or target.startswith(above)
    ]
    assert not bad, "\n".join(bad)
