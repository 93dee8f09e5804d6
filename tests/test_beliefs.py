"""The search's belief sampler: resampled deals agree with the view, depend on the view alone,
and move opponents toward their contract as the table says (with a flat-table control)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agents import make_agent
from agents.contract.beliefs import (
    EXCESS_BINS,
    HISTORY_FILE,
    MAX_DISTANCE,
    STAGES,
    BeliefSampler,
    BeliefTable,
    distance_bin,
    excess_partners,
    load_table,
    partner_weights,
)
from agents.contract.sampler import PublicInfo, deal_hidden, sample_world
from agents.contract.search_adaptive import SearchV2Agent, Settings
from agents.contract.view import PlayerView
from continental_env.cards import NUM_TYPES
from tests.test_agents import _hide_differently
from tests.test_sampler import _decision_views, _multiset

KEYS = [(r, st) for r in range(1, 8) for st in range(STAGES)]
CLOSE = BeliefTable({k: [50.0, 50.0] + [1.0] * (MAX_DISTANCE - 1) for k in KEYS}, 4, "continental")
FLAT = BeliefTable({k: [1.0] * (MAX_DISTANCE + 1) for k in KEYS}, 4, "continental")
# History tables: every distance alike, hands with few partners of the shown cards weighed 50
# times (FEW) or none preferred (FLAT_HISTORY, the control).
_FEW_ROW = [50.0, 50.0] + [1.0] * (EXCESS_BINS - 2)
FEW = replace(FLAT, joint={k: [list(_FEW_ROW) for _ in range(MAX_DISTANCE + 1)] for k in KEYS})
FLAT_HISTORY = replace(
    FLAT, joint={k: [[1.0] * EXCESS_BINS for _ in range(MAX_DISTANCE + 1)] for k in KEYS}
)


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


@pytest.mark.parametrize("history", [False, True])
def test_resampled_deals_do_not_depend_on_the_real_hidden_cards(history: bool) -> None:
    rng = random.Random(9)
    sampler = BeliefSampler(8, history=history)
    compared = cheats_differ = 0
    for game, view, info in _infos(seed=6, every=4):
        other = _hide_differently(game, view.seat, rng)
        other_info = PublicInfo.from_view(PlayerView(other, view.seat))
        assert other_info.shown == info.shown  # the public log is the same
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


def test_the_packaged_history_table_weighs_hands_that_keep_what_their_seat_threw_less() -> None:
    table = load_table(HISTORY_FILE)
    assert (table.players, table.preset) == (4, "continental")
    assert table.joint is not None and set(table.joint) == set(KEYS)
    assert table.ratios == load_table().ratios  # the same games: its distance part is v1's
    grids = table.joint.values()
    assert all(len(g) == MAX_DISTANCE + 1 and all(len(r) == EXCESS_BINS for r in g) for g in grids)
    # Real hands hold fewer partners of their seat's discards and declines than random hands:
    # summed over the table, the lowest excess bins weigh more than the highest.
    low = sum(r[0] + r[1] for g in grids for r in g)
    high = sum(r[-1] + r[-2] for g in grids for r in g)
    assert low > 1.5 * high
    with pytest.raises(ValueError, match="joint ratios"):
        BeliefSampler(8, FLAT, history=True)


def test_excess_partners_reads_the_public_log_only() -> None:
    with_log = 0
    for game, view, info in list(_infos(seed=8, every=3))[:60]:
        for s in range(view.num_players):
            if s == view.seat:
                continue
            weights = partner_weights(info, s)
            assert (weights is None) == (not any(info.shown[s]))
            if weights is None:
                assert excess_partners(info, s, list(game.hands[s])) is None
                continue
            with_log += 1
            assert weights[-1] == 0  # a joker says nothing
            # a hand of only its known cards and no partner among the rest sits below a random one
            bare = list(info.known[s])
            assert excess_partners(info, s, bare) <= 0
        no_log = replace(info, shown=None)
        assert all(partner_weights(no_log, s) is None for s in range(view.num_players))
    assert with_log > 50


def test_history_resampling_moves_hands_away_from_what_the_seat_threw() -> None:
    excess = {"few": 0.0, "flat": 0.0, "uniform": 0.0}
    hands_seen = 0
    for _game, view, info in list(_infos(seed=4, every=2))[:150]:
        deals = {
            "few": BeliefSampler(16, FEW, history=True).deal(info, random.Random(1)),
            "flat": BeliefSampler(16, FLAT_HISTORY, history=True).deal(info, random.Random(1)),
            "uniform": deal_hidden(info, random.Random(1)),
        }
        for s in range(view.num_players):
            if s == view.seat or view.laid_down[s] or partner_weights(info, s) is None:
                continue
            hands_seen += 1
            for name, (hands, _stock) in deals.items():
                excess[name] += excess_partners(info, s, hands[s])
    assert hands_seen > 100
    assert excess["few"] < excess["uniform"] - 1.0 * hands_seen  # a partner fewer a hand
    assert abs(excess["flat"] - excess["uniform"]) < 0.5 * hands_seen


def test_history_deals_agree_with_the_view() -> None:
    rng = random.Random(12)
    sampler = BeliefSampler(8, history=True)
    checked = 0
    for game, view, info in _infos(seed=6, every=4):
        hands, stock = sampler.deal(info, random.Random(3))
        assert hands[view.seat] == list(view.hand) and len(stock) == view.stock_size
        assert [sum(h) for h in hands] == list(view.hand_sizes)
        world = sample_world(info, rng, None, (hands, stock))
        assert _multiset(world) == _multiset(game)
        checked += 1
    assert checked > 30


def test_history_needs_belief_candidates() -> None:
    assert make_agent("search-v2:belief=8:history=1", 1).settings.history == 1
    with pytest.raises(ValueError, match="history needs belief"):
        Settings(history=1)
    with pytest.raises(ValueError, match="history must be 0 or 1"):
        Settings(belief=8, history=2)


def _reference_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The belief sampler's own draws in Python (the kernels elsewhere stay compiled)."""
    import types

    import agents.contract.beliefs as beliefs

    monkeypatch.setattr(beliefs, "kernels", types.SimpleNamespace(native=None))


@pytest.mark.parametrize("history", [False, True])
def test_the_compiled_draws_are_the_reference_draws(history: bool, monkeypatch) -> None:
    """Every deal and the generator's state after it, compiled (``_beliefs_c.h``) against the
    Python loop, on the packaged tables at search@v5's 32 candidates."""
    from continental_env import kernels

    if kernels.native is None:
        pytest.skip("compiled kernels not built")
    sampler = BeliefSampler(32, history=history)
    checked = 0
    for _game, _view, info in _infos(seed=11, every=2):
        seed = 1000 + checked
        fast, slow = random.Random(seed), random.Random(seed)
        got = sampler.deal(info, fast)
        with monkeypatch.context() as m:
            _reference_only(m)
            want = sampler.deal(info, slow)
        assert got == want
        assert fast.getstate() == slow.getstate()
        checked += 1
    assert checked > 80
    # Positive control: a generator one draw further on deals otherwise, so equal deals above
    # mean equal draws.
    off = random.Random(1000)
    off.random()
    _g, _v, info = next(_infos(seed=11, every=2))
    assert sampler.deal(info, off) != sampler.deal(info, random.Random(1000))


def test_the_compiled_draws_refuse_bad_input_in_one_line() -> None:
    from continental_env import kernels

    if kernels.native is None:
        pytest.skip("compiled kernels not built")
    state = random.Random(1).getstate()[1]
    args = [[0, 1, 2], [0] * NUM_TYPES, 2, 4, [1.0] * 7, None, [0.0], None, 0.0, 2, 0, 4, False]
    picks, counts, _ = kernels.native.weighted_hand(state, *args)
    assert len(picks) == 2 and sum(counts) == 2
    for bad, message in [
        ((state[:10], *args), "state must be random.getstate"),
        ((state, [0, 99], *args[1:]), r"cards\[1\] = 99 is not a card type"),
        ((state, [0, 1], args[1], 3, *args[3:]), "out of range"),
        ((state, *args[:4], [0.0] * 7, *args[5:]), "Total of weights must be greater than zero"),
    ]:
        with pytest.raises(ValueError, match=message) as err:
            kernels.native.weighted_hand(*bad)
        assert "\n" not in str(err.value)
