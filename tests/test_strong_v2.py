"""strong@v2: v1's judgements reworked, with v1 as a special case of its constants; the tuner."""

from __future__ import annotations

import hashlib
import json
import pickle

import pytest

from agents import make_agent
from agents.contract.strong import StrongAgent
from agents.contract.strong_tuned import Params, StrongV2Agent
from agents.contract.view import PlayerView
from continental_env.contract.game import DISCARD_BASE, Game

# v1's constants exactly, the feed sign included: v2 must then play v1's recorded game.
AS_V1 = Params(
    feed_scale_down=-1.0, feed_other=0.0, safe_weight=0.0, danger_points_up=0.0,
    danger_points_down=0.0, feed_next=2.0, feed_down=3.0, point_base=0.15, point_age=0.35,
    laydown_points=25.0, laydown_turns=2.0, laydown_stock=20.0, short_hand=4.0, take_gain=0.5,
    claim_long=2.0, claim_stock=4.0,
)  # fmt: skip


def _digest(bots: list, seed: int) -> str:  # type: ignore[type-arg]
    game = Game.new("continental", len(bots), seed=seed)
    actions = []
    while not game.is_over:
        action = bots[game.actor].act(PlayerView(game, game.actor))
        actions.append(action)
        game.apply(action)
    return hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]


def test_v2_with_v1_constants_plays_v1_move_for_move() -> None:
    # The recorded strong@v1 game of tests/test_versions.py (seed 11).
    assert _digest([StrongV2Agent(0, AS_V1) for _ in range(4)], 11) == "050bcf335057f7db"
    assert _digest([StrongV2Agent(0) for _ in range(4)], 11) != "050bcf335057f7db"


def _down_discard_state() -> tuple[Game, int]:
    """A state where the actor is down and chooses a discard (from strong games)."""
    for seed in range(40):
        game = Game.new("continental", 4, seed=seed)
        bots = [StrongAgent(0) for _ in range(4)]
        while not game.is_over:
            seat = game.actor
            view = PlayerView(game, seat)
            legal = view.legal_actions
            discards = [a for a in legal if DISCARD_BASE <= a < DISCARD_BASE + 54]
            if view.laid_down[seat] and view.phase == "play" and len(discards) >= 3:
                feed = StrongV2Agent(0)._feed_penalties(view)
                cards = [a - DISCARD_BASE for a in discards]
                if len({feed[c] for c in cards}) > 1:
                    return game, seat
            game.apply(bots[seat].act(view))
    raise AssertionError("no down-discard state with a feed penalty found")


def test_feeding_makes_a_card_less_likely_to_be_thrown_once_down() -> None:
    game, seat = _down_discard_state()
    view = PlayerView(game, seat)
    discards = [a for a in view.legal_actions if DISCARD_BASE <= a < DISCARD_BASE + 54]
    huge = Params(feed_scale_down=100.0)
    feed = StrongV2Agent(0, huge)._feed_penalties(view)
    choice = StrongV2Agent(0, huge)._discard_down(view, discards) - DISCARD_BASE
    assert feed[choice] == min(feed[a - DISCARD_BASE] for a in discards)
    # v1's sign: the most feeding card is thrown.
    wrong = StrongV2Agent(0, Params(feed_scale_down=-100.0))._discard_down(view, discards)
    assert feed[wrong - DISCARD_BASE] == max(feed[a - DISCARD_BASE] for a in discards)


def test_params_round_trip_and_refuse_unknown_keys() -> None:
    p = Params(danger_cards=2.0)
    assert Params.from_dict(p.to_dict()) == p
    with pytest.raises(ValueError, match="nope"):
        Params.from_dict({"nope": 1.0})
    assert make_agent("strong@v2", 3).name == "strong@v2"
    assert isinstance(make_agent("strong@v2", 3), StrongV2Agent)


def test_v2_decisions_ignore_hidden_cards_but_read_the_public_log() -> None:
    import random
    from dataclasses import replace

    from test_agents import _hide_differently  # type: ignore[import-not-found]

    from continental_env.rules import PRESETS

    rules = replace(PRESETS["continental"], max_turns_per_round=80, rounds=(1, 4, 7))
    rng = random.Random(3)
    compared = changed = used_log = 0
    for game_seed in range(2):
        game = Game.new(rules, 4, seed=game_seed)
        bots = [make_agent(n, s) for s, n in enumerate(("strong@v2", "strong", "greedy", "strong"))]
        step = 0
        while not game.is_over:
            seat = game.actor
            if step % 3 == 0:
                other = _hide_differently(game, seat, rng)
                changed += other.to_dict()["hands"] != game.to_dict()["hands"]
                a = make_agent("strong@v2", 0).act(PlayerView(game, seat))
                assert a == make_agent("strong@v2", 0).act(PlayerView(other, seat)), step
                compared += 1
                # Positive control: the penalties do read the seats' discards and declines.
                view = PlayerView(game, seat)
                with_log = StrongV2Agent(0)._feed_penalties(view)
                blind = StrongV2Agent(0, Params(safe_weight=0.0))._feed_penalties(view)
                used_log += with_log != blind
            game.apply(bots[seat].act(PlayerView(game, seat)))
            step += 1
    assert compared > 100 and changed > 50 and used_log > 10


def test_tuner_resumes_to_the_uninterrupted_result(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from agents.train import tune_strong as ts

    kw = dict(deals=1, popsize=2, seed=5, rounds=[1])
    whole = ts.tune(generations=2, state_path=str(tmp_path / "a.state"), json_path=None, **kw)
    part = tmp_path / "b.state"
    ts.tune(generations=1, state_path=str(part), json_path=None, **kw)
    # Interrupted in the middle of generation 1: one of its two points evaluated.
    st = pickle.loads(part.read_bytes())
    st["asked"] = [list(map(float, x)) for x in st["es"].ask()]
    st["values"] = []
    part.write_bytes(pickle.dumps(st))
    out = tmp_path / "b.json"
    resumed = ts.tune(generations=2, state_path=str(part), json_path=str(out), resume=True, **kw)
    assert resumed["generations_done"] == 2 and resumed["evaluations"] == 4
    assert json.loads(out.read_text())["evaluations"] == 4
    assert resumed["defaults_value"] == whole["defaults_value"]
    # Every point lies in the box and maps back to Params within the ranges.
    for h in resumed["history"]:
        for k, (lo, hi) in ts.SPACE.items():
            assert lo <= h["params"][k] <= hi
    with pytest.raises(ValueError, match="deals"):
        ts.tune(generations=3, state_path=str(part), json_path=None, resume=True,
                deals=2, popsize=2, seed=5, rounds=[1])  # fmt: skip


def test_variants_override_constants_by_name() -> None:
    from agents.contract.strong_tuned import make_variant

    bot = make_agent("strong-v2:danger_cards=2:feed_other=0.5", 1)
    assert bot.params == Params(danger_cards=2.0, feed_other=0.5)
    assert bot.name == "strong-v2:danger_cards=2:feed_other=0.5"
    assert make_variant("strong-v2:v1:feed_other=1", 0).params == Params(
        **{**Params.v1().to_dict(), "feed_other": 1.0}
    )
    for bad, why in (("strong-v2:nope=1", "nope"), ("strong-v2:feed_other", "KEY=NUMBER"),
                     ("strong-v2:feed_other=x", "KEY=NUMBER"), ("strong-v2", "expected")):  # fmt: skip
        with pytest.raises(ValueError, match=why):
            make_variant(bad, 0)


def test_the_documented_hand_set_variant_is_hand_set() -> None:
    from agents.contract.strong_tuned import HAND_SET

    name = (
        "strong-v2:feed_next=2:feed_other=1:feed_down=3:safe_weight=0.5:danger_cards=3:"
        "danger_points_up=0.3:danger_points_down=0.5:laydown_points=25:laydown_turns=2:"
        "short_hand=4:take_gain=0.5"
    )
    assert make_agent(name, 0).params == HAND_SET
