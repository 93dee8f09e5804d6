"""The search's belief sampler: resampled deals agree with the view, depend on the view alone,
and move opponents toward their contract as the table says (with a flat-table control)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agents import make_agent
from agents.bots.base import PlayerView
from agents.bots.beliefs import (
    MAX_DISTANCE,
    STAGES,
    BeliefSampler,
    BeliefTable,
    distance_bin,
    load_table,
)
from agents.bots.sampler import PublicInfo, deal_hidden, sample_world
from agents.bots.search_v2 import SearchV2Agent, Settings
from continental_env.cards import NUM_TYPES
from tests.test_agents import _hide_differently
from tests.test_sampler import _decision_views, _multiset

KEYS = [(r, st) for r in range(1, 8) for st in range(STAGES)]
CLOSE = BeliefTable({k: [50.0, 50.0] + [1.0] * (MAX_DISTANCE - 1) for k in KEYS}, 4, "continental")
FLAT = BeliefTable({k: [1.0] * (MAX_DISTANCE + 1) for k in KEYS}, 4, "continental")


def _infos(seed: int, every: int = 3):
    for game, view in _decision_views("continental", seed=seed, every=every):
        yield game, view, PublicInfo.from_view(view)


def test_the_packaged_table_covers_every_round_and_stage() -> None:
    table = load_table()
    assert (table.players, table.preset) == (4, "continental")
    assert set(table.ratios) == set(KEYS)
    assert all(len(w) == MAX_DISTANCE + 1 and min(w) > 0 for w in table.ratios.values())
    # Real hands are nearer their contract than uniform ones: near distances weigh more.
    assert sum(table.ratios[4, 3][:2]) > sum(table.ratios[4, 3][4:])


def test_resampled_deals_agree_with_the_view() -> None:
    rng = random.Random(2)
    sampler = BeliefSampler(8)
    checked = with_down = resampled = 0
    for game, view, info in _infos(seed=5, every=2):
        seed = rng.getrandbits(32)
        hands, stock = sampler.deal(info, random.Random(seed))
        resampled += (hands, stock) != deal_hidden(info, random.Random(seed))
        with_down += any(d for s, d in enumerate(view.laid_down) if s != view.seat)
        assert hands[view.seat] == list(view.hand)
        assert [sum(h) for h in hands] == list(view.hand_sizes) and len(stock) == view.stock_size
        for s in range(view.num_players):
            assert all(hands[s][c] >= view.known[s][c] for c in range(NUM_TYPES))
        world = sample_world(info, rng, None, (hands, stock))
        assert _multiset(world) == _multiset(game)  # every card of the round exactly once
        checked += 1
    assert checked > 80 and with_down > 10  # some views have an opponent already down
    assert resampled > checked // 2  # the belief deals are not the uniform ones


def test_uncalibrated_tables_and_broken_views_fall_back_or_fail_loudly() -> None:
    _game, _view, info = next(iter(_infos(seed=3, every=9)))
    other_size = BeliefTable(CLOSE.ratios, 3, "continental")
    other_preset = BeliefTable(CLOSE.ratios, 4, "continental_us")
    missing = BeliefTable({}, 4, "continental")
    for table in (other_size, other_preset, missing):
        sampler = BeliefSampler(8, table)
        assert sampler.ratios(info) is None
        assert sampler.deal(info, random.Random(5)) == deal_hidden(info, random.Random(5))
    broken = replace(info, stock_size=info.stock_size + 1)
    with pytest.raises(ValueError, match="inconsistent"):
        BeliefSampler(8, CLOSE).deal(broken, random.Random(0))
    # An opponent whose cards are all known keeps exactly them.
    opponent = (info.seat + 1) % info.num_players
    hands, _ = deal_hidden(info, random.Random(1))
    known = list(info.known)
    known[opponent] = tuple(hands[opponent])
    pool_left = [n - k for n, k in zip(info.unseen_pool(), hands[opponent], strict=True)]
    assert min(pool_left) >= 0
    full = replace(info, known=tuple(known))
    dealt, _ = BeliefSampler(8, CLOSE).deal(full, random.Random(2))
    assert dealt[opponent] == list(hands[opponent])


def test_one_candidate_is_the_uniform_sampler() -> None:
    for _game, _view, info in list(_infos(seed=3, every=9))[:20]:
        assert BeliefSampler(1).deal(info, random.Random(5)) == deal_hidden(info, random.Random(5))
    with pytest.raises(ValueError, match="at least 1"):
        BeliefSampler(0)


def test_resampling_moves_opponents_toward_the_contract_as_the_table_says() -> None:
    near = {"close": 0, "flat": 0, "uniform": 0}
    for _game, view, info in list(_infos(seed=4, every=2))[:150]:
        deals = {
            "close": BeliefSampler(16, CLOSE).deal(info, random.Random(1)),
            "flat": BeliefSampler(16, FLAT).deal(info, random.Random(1)),
            "uniform": deal_hidden(info, random.Random(1)),
        }
        for name, (hands, _stock) in deals.items():
            near[name] += sum(
                distance_bin(hands[s], info.round, info.rules) <= 1
                for s in range(view.num_players)
                if s != view.seat and not view.laid_down[s]
            )
    assert near["close"] > 2 * near["uniform"] + 20
    assert abs(near["flat"] - near["uniform"]) < 0.3 * near["uniform"] + 10


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
    uniform = replace(small, belief=1)
    acted = worlds_differ = 0
    for _game, view, info in list(_infos(seed=7, every=5))[:15]:
        if view.legal_actions:
            a, b = (SearchV2Agent(11, small).act(view) for _ in range(2))
            assert a == b and a in view.legal_actions
            acted += 1
        believed = SearchV2Agent(11, small)._sample(info, random.Random(3), None)
        flat = SearchV2Agent(11, uniform)._sample(info, random.Random(3), None)
        worlds_differ += believed.to_dict()["hands"] != flat.to_dict()["hands"]
    assert acted >= 10 and worlds_differ >= 10  # belief=8 really changes the worlds it plays
