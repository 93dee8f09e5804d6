"""The quickstart notebook runs top to bottom (nbmake, in a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbmake")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_executes() -> None:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbmake",
            "--nbmake-timeout=120",
            "-p",
            "no:cacheprovider",
            "-q",
            str(NOTEBOOK),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
