"""The project's lint and format rules (ruff, configured in pyproject.toml) hold."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
        "import continental_env, continental_env.game, continental_env.melds\n"
        "import continental_env.render\n"
        "bad = [m for m in ('gymnasium', 'pettingzoo', 'torch', 'stable_baselines3')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
