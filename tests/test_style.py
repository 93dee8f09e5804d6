"""The project's lint and format rules (ruff, configured in pyproject.toml) hold."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    return [exe]


def test_ruff_lint_passes() -> None:
    result = subprocess.run(
        [*_ruff(), "check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_applied() -> None:
    result = subprocess.run(
        [*_ruff(), "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_imports_without_gymnasium_torch_or_pettingzoo() -> None:
    code = (
        "import sys\n"
        "import continental_env, continental_env.contract.game, continental_env.melds\n"
        "import continental_env.contract.render\n"
        "bad = [m for m in ('gymnasium', 'pettingzoo', 'torch', 'stable_baselines3')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ----------------------------------------------------------------------------- data flows one way


def agents_imports(source: str, filename: str = "<source>") -> list[str]:
    """Every import of ``agents`` in a source, at any depth (module, function, class, branch):
    ``import agents``, ``import agents.x``, ``from agents import ...``, ``from agents.x import
    ...``, and ``importlib.import_module("agents...")`` / ``__import__("agents...")`` with a
    literal name. Returns ``"file:line: statement"`` entries."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if called in ("import_module", "__import__") and isinstance(first, ast.Constant):
                names = [str(first.value)]
        if any(n == "agents" or n.startswith("agents.") for n in names):
            found.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_import_checker_finds_imports_at_every_depth() -> None:
    """Positive control: the check below would catch each of these."""
    source = (
        "import agents\n"
        "from agents.bots.base import PlayerView\n"
        "def f():\n"
        "    from agents import make_agent\n"
        "    import agents.bots.ppo_agent as ppo\n"
        "class C:\n"
        "    def g(self):\n"
        "        if True:\n"
        "            importlib.import_module('agents.contract.strong')\n"
        "import agentsmith\n"  # a different package: not a hit
        "from continental_env import agents_table\n"  # not a hit
    )
    hits = agents_imports(source)
    assert [h.split(":")[1] for h in hits] == ["1", "2", "4", "5", "9"], hits


def test_nothing_in_the_environment_package_imports_agents() -> None:
    files = sorted((ROOT / "continental_env").rglob("*.py"))
    assert len(files) > 5
    hits = [h for f in files for h in agents_imports(f.read_text(), str(f.relative_to(ROOT)))]
    assert not hits, "continental_env must not import agents:\n" + "\n".join(hits)


# ----------------------------------------------------------------------------- function size

COMPLEXITY_LIMIT = 15
COMPLEXITY_PACKAGES = ("continental_env", "agents", "continental_web")


def complexities(source: str, filename: str = "<source>") -> dict[str, int]:
    """Radon's cyclomatic complexity of every function, method and closure of ``source``, by
    ``file:Class.name`` (a closure as ``file:outer.name``)."""
    from radon.complexity import cc_visit
    from radon.visitors import Class

    found: dict[str, int] = {}

    def visit(blocks: list[Any], prefix: str) -> None:
        for block in blocks:
            if isinstance(block, Class):
                visit([*block.methods, *block.inner_classes], f"{prefix}{block.name}.")
                continue
            # cc_visit lists each method twice, on its own and in its class: one name for both
            owner = f"{block.classname}." if block.classname and not prefix else prefix
            name = f"{owner}{block.name}"
            found[f"{filename}:{name}"] = max(found.get(f"{filename}:{name}", 0), block.complexity)
            visit(block.closures, f"{name}.")

    visit(cc_visit(source), "")
    return found


def test_the_complexity_check_sees_a_function_of_16_at_every_depth() -> None:
    """Positive control: 15 branches make a complexity of 16, as a function, a method and a
    closure; 14 make 15, which passes."""
    pytest.importorskip("radon")

    def branches(n: int, indent: str) -> str:
        return "".join(f"{indent}if x == {i}:\n{indent}    return {i}\n" for i in range(n))

    source = (
        f"def f(x):\n{branches(15, '    ')}    return -1\n"
        f"def ok(x):\n{branches(14, '    ')}    return -1\n"
        f"class C:\n    def m(self, x):\n{branches(15, '        ')}        return -1\n"
        f"def outer():\n    def inner(x):\n{branches(15, '        ')}        return -1\n"
        "    return inner\n"
    )
    found = complexities(source, "probe.py")
    over = {name for name, cc in found.items() if cc > COMPLEXITY_LIMIT}
    assert over == {"probe.py:f", "probe.py:C.m", "probe.py:outer.inner"}, found
    assert found["probe.py:ok"] == COMPLEXITY_LIMIT


def test_no_function_of_the_packages_is_above_complexity_15() -> None:
    pytest.importorskip("radon")
    found: dict[str, int] = {}
    for package in COMPLEXITY_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found |= complexities(path.read_text(), str(path.relative_to(ROOT)))
    assert len(found) > 1000  # the walk reached the packages
    too_complex = {name: cc for name, cc in found.items() if cc > COMPLEXITY_LIMIT}
    assert not too_complex, f"split these into named helpers (radon cc -s): {too_complex}"
