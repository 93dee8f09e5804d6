"""The side games' feature observations (``fifteen_v1``, ``knock_v1``, ``knock_v2``;
``agents.side_features``):
no hidden card changes them (with a peeking control that is caught), their sizes and suit
relabelling, the single-agent environment that observes them and the policies that play on them."""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from side_helpers import swap_hidden as swap_fifteen
from side_helpers import swap_hidden as swap_knock

from agents import make_agent
from agents.bots.ppo_agent import NumpyPolicy
from agents.bots.side_policy import SidePolicyAgent, side_metadata
from agents.fifteen import FifteenView
from agents.fifteen.strong import FifteenStrongAgent
from agents.knock import KnockView
from agents.side_features import feature_planes, feature_size, features, observation
from agents.train.side_single_agent import make_env, suit_permutation
from continental_env.cards import NUM_TYPES, to_counts
from continental_env.fifteen.game import Game as FifteenGame
from continental_env.knock.game import Game as KnockGame

GAMES = {
    "fifteen": (FifteenGame, FifteenView, swap_fifteen),
    "knock": (KnockGame, KnockView, swap_knock),
}


def _peeking_features(g: Any, view: Any, game: str, version: int = 1) -> np.ndarray:
    """A positive control: the features of a view that knows every opponent's true hand."""
    peek = copy.copy(view)
    peek.known = [list(k) for k in view.known]
    for seat in range(g.num_players):
        if seat != view.seat:
            hand = g.hands[seat]
            peek.known[seat] = list(hand) if len(hand) == NUM_TYPES else list(to_counts(hand))
    return features(peek, game, version)


@pytest.mark.parametrize(("game", "version"), [("fifteen", 1), ("knock", 1), ("knock", 2)])
def test_hidden_cards_never_change_the_features_and_a_peeker_is_caught(
    game: str, version: int
) -> None:
    engine, view_cls, swap = GAMES[game]
    rng = random.Random(5)
    g = engine.new(num_players=3, seed=5, max_turns_per_hand=80)
    checked = caught = 0
    for _ in range(160):
        if g.is_over:
            break
        seat = g.actor
        variant = engine.from_dict(swap(g.to_dict(), seat, rng))
        view, other = view_cls(g, seat), view_cls(variant, seat)
        assert np.array_equal(observation(view, game, version), observation(other, game, version))
        checked += 1
        if not np.array_equal(_peeking_features(g, view, game, version),
                              _peeking_features(variant, other, game, version)):  # fmt: skip
            caught += 1  # the same comparison notices features read from hidden hands
        g.apply(make_agent("strong", 0, game=game).act(view))
    assert checked > 50 and caught > 10


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_feature_sizes_and_metadata(game: str) -> None:
    engine, view_cls, _swap = GAMES[game]
    g = engine.new(num_players=4, seed=1)
    view = view_cls(g, g.actor)
    obs = observation(view, game)
    assert obs.shape == (len(view.observation) + feature_size(game),)
    assert np.array_equal(obs[: len(view.observation)], view.observation)  # v0 first, unchanged
    v0, v1 = side_metadata(game, 4), side_metadata(game, 4, features=True)
    assert (v0["env"], v1["env"]) == (f"{game}_v0", f"{game}_v1")
    assert v1["obs_size"] == v0["obs_size"] + feature_size(game) == obs.shape[0]


def test_fifteen_discard_gap_is_zero_for_strongs_discard() -> None:
    g = FifteenGame.new(num_players=4, seed=3, hands=1)
    strong = FifteenStrongAgent()
    checked = 0
    while not g.is_over:
        view = FifteenView(g, g.actor)
        action = strong.act(view)
        if view.phase != "draw" and not any(a >= 56 for a in view.legal_actions):
            plane = features(view, "fifteen")[:NUM_TYPES]
            assert plane[action - 3] == 0.0 and (plane <= 0).all()
            checked += 1
        g.apply(action)
    assert checked > 5


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_suit_relabelling_moves_the_feature_planes_with_the_cards(game: str) -> None:
    perm = (2, 0, 3, 1)
    v0 = side_metadata(game, 4)["obs_size"]
    obs_src, _action_src, _dst = suit_permutation(game, 4, perm, features=True)
    assert len(obs_src) == v0 + feature_size(game)
    for i in range(len(feature_planes(game))):
        base = v0 + i * NUM_TYPES
        for card in (0, 14, 51):  # the ace of clubs, the 2 of the second suit, the last king
            moved = perm[card // 13] * 13 + card % 13
            assert obs_src[base + moved] == base + card
        assert obs_src[base + 52] == base + 52  # the joker stays
    scalars = range(v0 + len(feature_planes(game)) * NUM_TYPES, len(obs_src))
    assert all(obs_src[i] == i for i in scalars)


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_feature_env_observes_v1_and_a_v1_policy_plays_on_it(game: str) -> None:
    env = make_env(game=game, opponents=["greedy"], features=True, num_players=4, seed=2)
    obs, _info = env.reset(seed=2)
    assert (
        env.observation_space.shape
        == obs.shape
        == (side_metadata(game, 4, features=True)["obs_size"],)
    )
    meta = side_metadata(game, 4, features=True)
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(16, meta["obs_size"])), np.zeros(16)),
               (rng.normal(size=(meta["num_actions"], 16)), np.zeros(meta["num_actions"]))]  # fmt: skip
    agent = SidePolicyAgent(NumpyPolicy(weights, meta=meta), game)
    agent.check_table(4)
    engine, view_cls, _swap = GAMES[game]
    g = engine.new(num_players=4, seed=2, max_hands=1)
    while not g.is_over:
        view = view_cls(g, g.actor)
        action = agent.act(view)
        assert action in view.legal_actions
        g.apply(action)
    # The same weights recorded as a v0 model are refused: a v0 model is never fed v1 features.
    v0_agent = SidePolicyAgent(NumpyPolicy(weights, meta=side_metadata(game, 4)), game)
    with pytest.raises(ValueError, match="do not fit"):
        v0_agent.check_table(4)


def test_knock_buy_back_relabelling_follows_the_named_rule(tmp_path: Any) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import knock_bc_buy_rule

    from agents.knock import features as knock_features
    from agents.train.side_single_agent import teacher_decisions
    from agents.train.warm_start import load_bc_data, save_bc_data
    from continental_env.knock.game import BUY, PASS

    parts = [
        teacher_decisions("knock", {"max_hands": 6}, ("strong", 3, "", s, s, 1)) for s in (3, 4)
    ]
    obs = np.concatenate([p["obs"] for p in parts])
    actions = np.concatenate([p["actions"] for p in parts])
    legal = [row for p in parts for row in p["legal"]]
    returns = np.concatenate([p["returns"] for p in parts])
    buys = np.isin(actions, (BUY, PASS))
    assert buys.any()
    actions[buys] = PASS  # a teacher that never buys back
    src, dst = tmp_path / "src.npz", tmp_path / "dst.npz"
    save_bc_data(str(src), obs, legal, actions, returns)
    assert knock_bc_buy_rule.main([str(src), str(dst), "--rule", "greedy", "--players", "3"]) == 0
    out = load_bc_data(str(dst))
    v0 = side_metadata("knock", 3)["obs_size"]
    column = (
        v0 + len(knock_features.PLANES) * NUM_TYPES + knock_features.SCALARS.index("greedy_buys")
    )
    want = np.where(obs[:, column] > 0.5, BUY, PASS)
    assert np.array_equal(out["actions"][buys], want[buys])
    assert np.array_equal(out["actions"][~buys], actions[~buys])  # other decisions untouched


def test_the_gymnasium_ids_take_features() -> None:
    import gymnasium

    env = gymnasium.make(
        "agents.train.gym_envs:continental/Fifteen-v0", opponents=["greedy"], features=True, hands=1
    )
    obs, _info = env.reset(seed=4)
    assert obs.shape == (side_metadata("fifteen", 4, features=True)["obs_size"],)
    assert env.observation_space.contains(obs)
    knock = gymnasium.make(
        "agents.train.gym_envs:continental/Knock-v0", opponents=["greedy"], features="v2"
    )
    obs, _info = knock.reset(seed=4)
    assert obs.shape == (side_metadata("knock", 4, features="v2")["obs_size"],)
    assert knock.observation_space.contains(obs)


def test_knock_features_keep_the_weights_the_shipped_model_was_trained_on() -> None:
    """``knock_v1`` values hands with ``FEATURE_WEIGHTS``, not with ``strong``'s current weights:
    the features of one recorded greedy game are pinned (a retuned ``strong`` leaves them)."""
    import hashlib

    from agents.games import game_spec
    from agents.knock import features as knock_features
    from agents.knock.strong import DRAW_WEIGHT

    spec = game_spec("knock")
    digest = hashlib.sha256()
    state = spec.new_game(4, 700, {})
    bots = [spec.make_agent("greedy", 0) for _ in range(4)]
    while not state.is_over:
        view = spec.view(state, state.actor)
        digest.update(knock_features.features(view).tobytes())
        state.apply(bots[state.actor].act(view))
    assert digest.hexdigest()[:16] == "123117ce1de37148"
    assert knock_features.FEATURE_WEIGHTS["draw_weight"] != DRAW_WEIGHT  # strong moved on


def _knock_v2_digest() -> str:
    import hashlib

    from agents.games import game_spec
    from agents.knock import features as knock_features

    spec = game_spec("knock")
    digest = hashlib.sha256()
    state = spec.new_game(4, 700, {})
    bots = [spec.make_agent("greedy", 0) for _ in range(4)]
    while not state.is_over:
        view = spec.view(state, state.actor)
        digest.update(knock_features.features(view, 2).tobytes())
        state.apply(bots[state.actor].act(view))
    return digest.hexdigest()[:16]


def test_knock_v2_features_are_pinned() -> None:
    """``knock_v2`` values hands with ``FEATURE_WEIGHTS_V2`` (the retuned ``strong``'s weights,
    fixed): the features of the recorded greedy game of the v1 pin are pinned too."""
    assert _knock_v2_digest() == "0f7ad21950e39956"
    from agents.knock import features as knock_features

    assert knock_features.FEATURE_WEIGHTS_V2 == {
        "draw_weight": 0.5,
        "buy_share": 0.5,
        "no_buy_chance": 0.0,
    }


def test_knock_v2_is_v1_with_the_retuned_weights_and_the_weight_free_parts() -> None:
    from agents.knock import features as knock_features
    from agents.knock.strong import KnockStrongAgent, cost_parts, live_counts
    from continental_env.knock.game import DISCARD_BASE, RUMMY_BASE

    n1 = len(knock_features.PLANES)
    assert feature_size("knock", 2) == feature_size("knock", 1) + 3 * NUM_TYPES + 2
    assert feature_planes("knock", 2)[:n1] == feature_planes("knock", 1)
    teacher = KnockStrongAgent(**knock_features.FEATURE_WEIGHTS_V2)
    other = KnockStrongAgent(draw_weight=2.5, ready_bonus=7.0)  # weights no version uses
    g = KnockGame.new(num_players=4, seed=11)
    checked = 0
    while not g.is_over and checked < 40:
        view = KnockView(g, g.actor)
        action = teacher.act(view)
        if view.phase == "play":
            v2 = features(view, "knock", 2)
            planes = v2[: len(feature_planes("knock", 2)) * NUM_TYPES].reshape(-1, NUM_TYPES)
            live, unseen = live_counts(view)
            hand = list(view.hand)
            # the parts planes rebuild each discard's cost under any weights ...
            costs = dict(other.discard_costs(hand, live, unseen))
            assert sorted(costs) == [c for c in range(NUM_TYPES) if hand[c]]
            for c, cost in costs.items():
                dead, ready, saving = planes[n1][c] * 100, planes[n1 + 1][c], planes[n1 + 2][c] * 10
                assert other.weigh(dead, ready > 0.5, saving) == pytest.approx(cost, abs=1e-3)
            assert (planes[n1:, [c for c in range(NUM_TYPES) if not hand[c]]] == -4.0).all()
            dead, ready, saving = cost_parts(hand, live, unseen)
            assert v2[-2:].tolist() == pytest.approx([float(ready), saving / 10.0])
            # ... and v2's discard_gap is the retuned weights': the teacher's discard has gap 0
            if DISCARD_BASE <= action < RUMMY_BASE:
                assert planes[0][action - DISCARD_BASE] == 0.0
            assert np.array_equal(v2[: n1 * NUM_TYPES].reshape(n1, -1)[1:], planes[1:n1])
            checked += 1
        g.apply(action)
    assert checked > 10


def test_knock_v2_models_are_fed_v2_and_v1_models_v1() -> None:
    rng = np.random.default_rng(1)
    g = KnockGame.new(num_players=4, seed=6)
    view = KnockView(g, g.actor)
    for version in (1, 2):
        meta = side_metadata("knock", 4, features=f"v{version}")
        assert meta["env"] == f"knock_v{version}"
        weights = [(rng.normal(size=(8, meta["obs_size"])), np.zeros(8)),
                   (rng.normal(size=(meta["num_actions"], 8)), np.zeros(meta["num_actions"]))]  # fmt: skip
        policy = NumpyPolicy(weights, meta=meta)
        seen = []
        policy.act_from_observation = lambda obs, legal, seen=seen: seen.append(obs) or legal[0]
        agent = SidePolicyAgent(policy, "knock")
        agent.check_table(4)
        agent.act(view)
        assert np.array_equal(seen[0], observation(view, "knock", version))
        assert len(seen[0]) == meta["obs_size"]
    with pytest.raises(ValueError, match="fifteen has no fifteen_v2"):
        side_metadata("fifteen", 4, features="v2")
    env = make_env(game="knock", opponents=["greedy"], features="v2", num_players=4, seed=3)
    obs, _info = env.reset(seed=3)
    assert obs.shape == (side_metadata("knock", 4, features=2)["obs_size"],)
    perm_src, _a, _d = suit_permutation("knock", 4, (1, 0, 3, 2), features="v2")
    assert len(perm_src) == obs.shape[0]
