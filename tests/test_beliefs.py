"""The search's belief sampler: resampled deals agree with the view, depend on the view alone,
and move opponents toward their contract as the table says (with a flat-table control)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from agents import make_agent
from agents.bots.base import PlayerView
from agents.bots.beliefs import MAX_DISTANCE, STAGES, BeliefSampler, distance_bin, load_table
from agents.bots.sampler import PublicInfo, deal_hidden, sample_world
from agents.bots.search_v2 import SearchV2Agent, Settings
from continental_env.cards import NUM_TYPES
from tests.test_agents import _hide_differently
from tests.test_sampler import _decision_views, _multiset

CLOSE = {
    (r, st): [50.0, 50.0] + [1.0] * (MAX_DISTANCE - 1) for r in range(1, 8) for st in range(STAGES)
}
FLAT = {key: [1.0] * (MAX_DISTANCE + 1) for key in CLOSE}


def _infos(seed: int, every: int = 3):
    for game, view in _decision_views("continental", seed=seed, every=every):
        yield game, view, PublicInfo.from_view(view)


def test_the_packaged_table_covers_every_round_and_stage() -> None:
    table = load_table()
    assert set(table) == {(r, st) for r in range(1, 8) for st in range(STAGES)}
    assert all(len(w) == MAX_DISTANCE + 1 and min(w) > 0 for w in table.values())
    # Real hands are nearer their contract than uniform ones: near distances weigh more.
    assert sum(table[4, 3][:2]) > sum(table[4, 3][4:])


def test_resampled_deals_agree_with_the_view() -> None:
    rng = random.Random(2)
    sampler = BeliefSampler(8)
    checked = 0
    for game, view, info in _infos(seed=5, every=2):
        hands, stock = sampler.deal(info, rng)
        assert hands[view.seat] == list(view.hand)
        assert [sum(h) for h in hands] == list(view.hand_sizes) and len(stock) == view.stock_size
        for s in range(view.num_players):
            assert all(hands[s][c] >= view.known[s][c] for c in range(NUM_TYPES))
        world = sample_world(info, rng, None, (hands, stock))
        assert _multiset(world) == _multiset(game)  # every card of the round exactly once
        checked += 1
    assert checked > 80


def test_one_candidate_is_the_uniform_sampler() -> None:
    for _game, _view, info in list(_infos(seed=3, every=9))[:20]:
        assert BeliefSampler(1).deal(info, random.Random(5)) == deal_hidden(info, random.Random(5))
    with pytest.raises(ValueError, match="at least 1"):
        BeliefSampler(0)


def test_resampling_moves_opponents_toward_the_contract_as_the_table_says() -> None:
    near = {"close": 0, "flat": 0, "uniform": 0}
    for _game, view, info in list(_infos(seed=4, every=2))[:150]:
        for name, sampler in (
            ("close", BeliefSampler(16, CLOSE)),
            ("flat", BeliefSampler(16, FLAT)),
        ):
            hands, _ = sampler.deal(info, random.Random(1))
            near[name] += sum(
                distance_bin(hands[s], info.round, info.rules) <= 1
                for s in range(view.num_players)
                if s != view.seat and not view.laid_down[s]
            )
        hands, _ = deal_hidden(info, random.Random(1))
        near["uniform"] += sum(
            distance_bin(hands[s], info.round, info.rules) <= 1
            for s in range(view.num_players)
            if s != view.seat and not view.laid_down[s]
        )
    assert near["close"] > 2 * near["uniform"] + 20
    assert abs(near["flat"] - near["uniform"]) < 0.5 * near["uniform"] + 20


def test_resampled_deals_do_not_depend_on_the_real_hidden_cards() -> None:
    rng = random.Random(9)
    sampler = BeliefSampler(8)
    compared = cheats_differ = 0
    for game, view, info in _infos(seed=6, every=4):
        other = _hide_differently(game, view.seat, rng)
        other_info = PublicInfo.from_view(PlayerView(other, view.seat))
        assert sampler.deal(info, random.Random(1)) == sampler.deal(other_info, random.Random(1))
        compared += 1
        # Positive control: fed the real hands as "known", the deals follow them.
        cheat_a = replace(info, known=tuple(map(tuple, game.hands)))
        cheat_b = replace(other_info, known=tuple(map(tuple, other.hands)))
        a, b = (sampler.deal(c, random.Random(1))[0] for c in (cheat_a, cheat_b))
        cheats_differ += a != b
    assert compared > 30 and cheats_differ > 15


def test_search_with_beliefs_is_named_checked_and_deterministic() -> None:
    bot = make_agent("search-v2:belief=16", 3)
    assert isinstance(bot, SearchV2Agent) and bot.settings.belief == 16
    with pytest.raises(ValueError, match="belief must be at least 1"):
        Settings(belief=0)
    small = Settings(min_worlds=2, max_worlds=4, screen=2, belief=8)
    moves = Counter()
    for _game, view, _info in list(_infos(seed=7, every=5))[:15]:
        if view.legal_actions:
            a, b = (SearchV2Agent(11, small).act(view) for _ in range(2))
            assert a == b
            moves[a] += 1
    assert moves
