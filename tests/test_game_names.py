"""Shared code never asks which game it is: a game's name is compared only in the game
registries (``agents/games.py``, ``agents/registry.py``, ``continental_env/registry.py``) and in
the game's own modules. Whatever shared code needs to know of a game is a ``GameSpec`` field or
hook (docs/DESIGN.md, "Adding a game")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"contract", "continental", "fifteen", "knock"}
# The registries, and each game's own modules: there a name may be a game's or a rule's word
# (knock's "knock" and "continental" announcements).
ALLOWED = (
    "agents/games.py",
    "agents/registry.py",
    "continental_env/registry.py",
    "agents/contract/",
    "agents/fifteen/",
    "agents/knock/",
    "agents/play/contract.py",
    "agents/play/fifteen.py",
    "agents/play/knock.py",
    "continental_env/contract/",
    "continental_env/fifteen/",
    "continental_env/knock/",
    "continental_env/melds/",
    "continental_web/contract.py",
    "continental_web/fifteen.py",
    "continental_web/knock.py",
)


def _names_in(node: ast.AST) -> set[str]:
    """The game names a comparison operand spells: a string, or a tuple/list/set of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_names_in(e) for e in node.elts)) if node.elts else set()
    return set()


def comparisons(source: str) -> list[int]:
    """Lines of ``source`` that compare something with a game's name (``==``, ``!=``, ``in``)."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names_in(o) for o in operands):
                hits.append(node.lineno)
    return sorted(hits)


def shared_files() -> list[Path]:
    files = []
    for package in ("agents", "continental_env", "continental_web"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(ALLOWED):
                files.append(path)
    return files


def test_shared_code_compares_no_game_name() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in shared_files()
        for line in comparisons(path.read_text(encoding="utf-8"))
    ]
    assert not found, "a game's name compared in shared code: " + ", ".join(found)


def test_the_check_finds_each_way_of_asking() -> None:
    # Positive control: each of these asks which game it is; the last two do not.
    source = (
        "if game == 'knock': pass\n"
        'x = 1 if cfg.game != "contract" else 2\n'
        "ok = spec.name in ('fifteen', 'knock')\n"
        "y = 'continental' == kind\n"
        "z = game == spec.name\n"
        "w = phase == 'draw'\n"
    )
    assert comparisons(source) == [1, 2, 3, 4]
    assert any(p.name == "harness.py" for p in shared_files())
