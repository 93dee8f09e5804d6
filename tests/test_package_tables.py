"""Each package's ``__init__`` docstring has a table that names every module the package holds,
so a newcomer finds which file holds what from the package's face (docs/DESIGN.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("continental_env", "agents", "continental_web")


def packages() -> list[Path]:
    """Every package folder (one with an ``__init__.py``) of the project's three packages."""
    return sorted(p.parent for top in PACKAGES for p in (ROOT / top).rglob("__init__.py"))


def table_names(docstring: str) -> set[str]:
    """The names in the first cell of each row of the docstring's tables (```a``, ``b``` too)."""
    names: set[str] = set()
    for line in docstring.splitlines():
        cells = line.strip().split("|")
        if len(cells) >= 3 and not set(cells[1].strip()) <= set("-: "):
            names.update(re.findall(r"``([\w.]+)``", cells[1]))
    return names


def missing(package: Path) -> list[str]:
    """The modules and subpackages of ``package`` its ``__init__`` table does not name."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    named = {n.rsplit(".", 1)[-1] for n in table_names(doc)}
    held = {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    held |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    return sorted(held - named)


def test_every_package_table_names_every_module_it_holds() -> None:
    gaps = {str(p.relative_to(ROOT)): m for p in packages() if (m := missing(p))}
    assert not gaps, f"modules missing from their package's __init__ table: {gaps}"


def test_the_table_check_sees_a_missing_module(tmp_path: Path) -> None:
    # Positive control: a package whose table names one of its two modules.
    (tmp_path / "__init__.py").write_text(
        '"""P.\n\n| module | what |\n|---|---|\n| ``a`` | A |\n"""\n'
    )
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    assert missing(tmp_path) == ["b"]
    (tmp_path / "__init__.py").write_text(
        '"""P.\n\n| module | what |\n|---|---|\n| ``a``, ``b`` | |\n"""\n'
    )
    assert missing(tmp_path) == []


def test_every_name_a_module_exports_exists() -> None:
    """Each engine and env module's ``__all__`` names only what it holds (a name re-exported
    from elsewhere must still be imported: a linter drops an import it sees unused)."""
    import importlib

    absent = {}
    for path in sorted((ROOT / "continental_env").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        try:
            module = importlib.import_module(name)
        except ImportError:  # an optional dependency (pyspiel) that is not installed
            continue
        if missing := [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]:
            absent[name] = missing
    assert not absent, f"names in __all__ that the module lacks: {absent}"
