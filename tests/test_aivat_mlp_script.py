"""``scripts/fit_aivat_mlp.py``: the saved draws give the same corrections as the harness's
recorder on the same games, so the script's variance figures are the harness's."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np

from agents.contract.chance import ChanceRecorder, load_model
from agents.evaluate.deals import derive_seed, lineup, play_game, rotations
from agents.games import game_spec
from tests.helpers import load_script


def _recorded(script: Any, model: Any, seed: int, which: int, d: int) -> list[list[float]]:
    """The recorder's per-seat corrections of every seating of the deal ``play_deal`` plays."""
    spec = game_spec("contract")
    out = []
    for k, names in enumerate(rotations(lineup(list(script.LINEUPS[which]), script.PLAYERS))):
        recorders: list[ChanceRecorder] = []

        def new_game(players: int, game_seed: int | None, options: dict[str, Any]) -> Any:
            g = spec.new_game(players, game_seed, options)
            recorders.append(ChanceRecorder(g, model))  # noqa: B023
            return g

        traced = dataclasses.replace(spec, new_game=new_game)
        seeds = [derive_seed(seed, "mlp-agent", which, d, k, s) for s in range(script.PLAYERS)]
        play_game(names, derive_seed(seed, "mlp-deal", which, d), seeds, traced)
        out.append(recorders[-1].corrections)
    return out


def test_saved_draws_give_the_recorders_corrections(tmp_path: Path) -> None:
    script = load_script("fit_aivat_mlp")
    script.play_deal((0, 5, 0, str(tmp_path)))
    (deal,) = script.load(str(tmp_path))
    assert deal.lineup == 0 and len(deal.mine) == 4 and deal.mine.sum() == 4
    # the saved targets are the rounds' points: every game's sum over its rounds is its score
    for name in ("aivat_value_v1.json", "aivat_value_v2.json"):
        model = load_model(name)
        offline = script.corrections(deal, script.model_values(model, deal))[:, :, 0]
        live = np.asarray(_recorded(script, model, 5, 0, 0))
        # features are saved as float16: within a quarter point (about 0.04 seen), not equal
        assert np.allclose(offline, live, atol=0.25), (
            name,
            offline,
            live,
        )
        assert np.abs(live).max() > 1.0  # the corrections are not all zero: not vacuous
    # control: a shuffled outcome index breaks the agreement
    model = load_model("aivat_value_v2.json")
    live = np.asarray(_recorded(script, model, 5, 0, 0))
    broken = dataclasses.replace(deal, actual=np.zeros_like(deal.actual))
    off = script.corrections(broken, script.model_values(model, broken))[:, :, 0]
    assert not np.allclose(off, live, atol=0.25)


def test_the_targets_are_each_rounds_points(tmp_path: Path) -> None:
    script = load_script("fit_aivat_mlp")
    script.play_deal((1, 6, 0, str(tmp_path)))
    (deal,) = script.load(str(tmp_path))
    for k in range(len(deal.mine)):
        rows = deal.game == k
        per_round = {int(r): t for r, t in zip(deal.round[rows], deal.target[rows], strict=True)}
        total = np.sum([per_round[r] for r in sorted(per_round)], axis=0)
        # rounds with no stock draw are missing from the events; this preset draws every round
        assert sorted(per_round) == list(range(7))
        assert all(math.isclose(a, b) for a, b in zip(total, deal.scores[k], strict=True))
