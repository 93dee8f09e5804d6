"""The package as a user installs it: .ci/run builds the wheel, installs it with the ``[agents]``
extra into a clean virtualenv (no torch, nothing from the checkout) and runs this file from an
empty temporary directory (``pytest -m wheel``). In a checkout, where the package is imported from
the source tree, it is skipped: it tests the installed files, not the sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import continental_env

pytestmark = pytest.mark.wheel

INSTALLED = Path(continental_env.__file__).resolve().parent.parent
if (INSTALLED / "pyproject.toml").is_file():
    pytest.skip(
        "tests an installed wheel: .ci/run's wheel stage runs it from a temporary directory",
        allow_module_level=True,
    )


def test_imported_from_the_installed_wheel_not_a_checkout() -> None:
    assert "site-packages" in INSTALLED.parts
    assert not (Path.cwd() / "continental_env").exists()  # run from outside any checkout
    assert continental_env.__version__ == metadata.version("continental-rl")
    files = {str(f) for f in metadata.files("continental-rl") or []}
    assert any(f.endswith("licenses/LICENSE") for f in files)
    for package in ("continental_env", "agents", "continental_web"):
        assert f"{package}/py.typed" in files


def test_the_compiled_kernels_were_built_and_run() -> None:
    from continental_env import kernels

    assert (INSTALLED / "continental_env" / "_kernels.c").is_file()  # the source travels too
    assert kernels.active(), "the wheel was built without its C kernels"


@pytest.mark.parametrize(
    ("name", "game"),
    [
        ("ppo_continental_4p", "contract"),
        ("selfplay_continental_4p", "contract"),
        ("selfplay2_continental_4p", "contract"),
        ("selfplay3_continental_4p", "contract"),
        ("selfplay4_continental_4p", "contract"),
        ("selfplay5_continental_4p", "contract"),
        ("selfplay6_continental_4p", "contract"),
        ("selfplay7_continental_4p", "contract"),
        ("ppo_fifteen_4p", "fifteen"),
        ("ppo_knock_4p", "knock"),
    ],
)
def test_a_shipped_agent_loads_by_name_without_torch(name: str, game: str) -> None:
    from agents import make_agent
    from agents.evaluate import evaluate

    agent = make_agent(f"ppo:{name}", seed=0, game=game)
    assert agent is not None
    options = {"rounds": [1]} if game == "contract" else {}
    report = evaluate([f"ppo:{name}", "greedy"], players=4, games=1, seed=3, game=game, **options)
    assert report["agents"][f"ppo:{name}"]["games"] == 4  # one deal, the agent in every seat
    assert "torch" not in sys.modules  # the numpy export played; torch is not installed here


def test_the_search_reads_its_packaged_belief_table() -> None:
    from agents import make_agent
    from agents.contract.beliefs import STAGES, load_table
    from agents.contract.view import PlayerView
    from continental_env.contract.game import Game

    assert len(load_table().ratios) == 7 * STAGES  # agents/models/belief_distance_v1.json installed
    bot = make_agent("search", seed=1)
    assert bot.settings.belief > 1  # the current search resamples its worlds by belief
    game = Game.new("continental", 4, seed=3)
    assert bot.act(PlayerView(game, game.actor)) in game.legal_actions()


def test_the_console_script_plays_the_shipped_agent(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    bindir = Path(sys.executable).parent
    subprocess.run(
        [str(bindir / "continental"), "evaluate", "--agents", "ppo:ppo_continental_4p,greedy",
         "--games", "1", "--rounds", "1", "--no-progress", "--json", str(out)],
        check=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""},
    )  # fmt: skip
    assert json.loads(out.read_text())["agents"]["ppo:ppo_continental_4p"]["games"] == 4
