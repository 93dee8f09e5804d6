"""Commands and code the docs hand to a reader run as written: the ``Pool`` block of
docs/use-with.md, and the demo's closing hint names an interpreter that is there."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agents.play.demo import closing_hint

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def python_block(page: str, marker: str) -> str:
    """The ```python block of ``page`` that contains ``marker``."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), flags=re.S)
    found = [block for block in blocks if marker in block]
    assert len(found) == 1, f"{page}: {len(found)} python blocks contain {marker!r}"
    return found[0]


def test_the_use_with_pool_block_runs_as_a_script(tmp_path: Path) -> None:
    script = tmp_path / "pool_example.py"
    script.write_text(python_block("docs/use-with.md", 'get_context("spawn").Pool'))
    result = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    scores = ast.literal_eval(result.stdout.strip().splitlines()[-1])
    assert len(scores) == 2 and scores[0] == scores[1] and len(scores[0]) == 3  # same seed


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_the_demos_closing_hint_names_the_interpreter_that_ran_it(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README runs ``.venv/bin/python -m agents.demo`` without activating the virtualenv:
    neither ``python`` nor ``continental`` need be on the PATH, its own interpreter is."""
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.chdir(tmp_path if where == "inside" else ROOT)
    hint = closing_hint()
    command = hint.split(": ", 1)[1].split()
    expected = ".venv/bin/python" if where == "inside" else str(python)
    assert command[:3] == [expected, "-m", "agents.evaluate"], hint
    assert os.access(command[0], os.X_OK)
