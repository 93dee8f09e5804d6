"""Data flows down the layers (DESIGN.md): nothing in ``continental_env/`` imports from
``agents/``, not even inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def agents_imports(path: Path) -> list[int]:
    """Line numbers of the imports of ``agents`` (or a submodule) in ``path``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(n == "agents" or n.startswith("agents.") for n in names):
            lines.append(node.lineno)
    return lines


def test_the_environment_package_imports_nothing_from_agents() -> None:
    found = {
        str(p.relative_to(ROOT)): lines
        for p in sorted((ROOT / "continental_env").rglob("*.py"))
        if (lines := agents_imports(p))
    }
    assert not found, f"continental_env imports agents at {found}"


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from agents.contract.sampler import sample_world\n")
    assert agents_imports(module) == [2]
