"""The batch core's bots in C (``continental_env/_bots_c.h``): the Python bots' decisions in every
position, the pinned recorded games, the rollout primitive, bad input and hidden information.
``scripts/batch_bots_lockstep.py`` runs the long differential comparison."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from agents.contract import batch_bots
from continental_env.batch import BatchGame
from continental_env.contract.batch import BOT_NAMES, _compiled_module
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules
from tests.helpers import TABLES, load_script
from tests.test_versions import RECORDED

lockstep_script = load_script("batch_bots_lockstep")

pytestmark = pytest.mark.skipif(
    _compiled_module() is None, reason="the compiled batch core is not built here"
)


def _played(preset: str, players: int, lanes: int, steps: int, seed: int) -> BatchGame:
    """A compiled batch after ``steps`` steps of strong@v1 mixed with random play."""
    b = BatchGame(lanes, players, preset, seed=seed, backend="compiled")
    b.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        bots = b.bot_actions("strong@v1")
        b.step(np.where(rng.random(lanes) < 0.3, b.random_legal(rng), bots))
    return b


def test_the_c_bots_decide_as_the_python_bots_on_every_table() -> None:
    """A seeded sample of the lockstep run: all presets, 2..8 players, mixed tables and random
    lanes, each of the three bots compared in every sampled position, then a play-out."""
    total = 0
    seen = set()
    variants = [(rules, 3) for rules in lockstep_script.VARIANTS.values()]
    for k, (preset, players) in enumerate(TABLES + variants):
        counts, diffs = lockstep_script.lockstep(preset, players, 3, 160, 0.35, seed=500 + k)
        assert diffs == [], diffs[:3]
        total += sum(counts.values())
        seen |= set(counts)
    assert total >= 2000
    phases = {(bot, ph) for bot, ph, _round in seen}
    assert phases == {(bot, ph) for bot in BOT_NAMES for ph in ("draw", "claim", "play")}
    assert {r for _bot, _ph, r in seen} == set(range(1, 8))  # every contract


def test_positive_control_a_flipped_tie_break_is_found() -> None:
    """``bot_perturb`` flips greedy's last discard tie-break in C only: the same comparison
    reports differences (greedy's decisions, and the play-out's points)."""
    _counts, diffs = lockstep_script.lockstep("continental", 4, 4, 160, 0.5, seed=3, perturb=1)
    assert any(" greedy: C " in d for d in diffs)
    _counts, clean = lockstep_script.lockstep("continental", 4, 4, 160, 0.5, seed=3, perturb=0)
    assert clean == []


@pytest.mark.parametrize("index", [i for i, r in enumerate(RECORDED) if set(r[0]) == {"strong@v1"}])
def test_compiled_strong_v1_replays_the_pinned_games(index: int) -> None:
    """The recorded games of ``tests/test_versions.py`` with strong@v1 at every seat: the C bot
    gives every recorded move (the digest of all the actions), and the same final scores."""
    names, seed, rounds, preset, (digest, count, scores) = RECORDED[index]
    rules = resolve_rules(preset)
    if rounds:
        rules = rules.with_rounds(tuple(rounds))
    b = BatchGame(1, len(names), rules, backend="compiled")
    b.reset()
    b.set_game(0, Game.new(rules, len(names), seed=seed))
    actions: list[int] = []
    done = np.zeros(1, dtype=bool)
    while not done[0]:
        action = b.bot_actions("strong@v1")
        actions.append(int(action[0]))
        _obs, _mask, _actor, _rewards, done = b.step(action)
    got = hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]
    assert (got, len(actions), b.final_scores[0].tolist()) == (digest, count, scores)


def test_play_out_matches_the_python_bots_and_spares_inactive_lanes() -> None:
    b = _played("continental_es", 5, 5, 40, seed=8)
    twin = BatchGame(5, 5, "continental_es", seed=8, backend="compiled")
    twin.reset()
    for i in range(5):
        twin.set_game(i, b.game(i), b.game_index(i))
    before = b.game(2).to_dict()
    active = np.array([True, True, False, True, True])
    rows = [[BOT_NAMES[(i + s) % 3] for s in range(5)] for i in range(5)]
    for until_round_end in (True, False):
        points = b.play_out(rows, active, until_round_end)
        expected = batch_bots.python_play_out(twin, rows, active, until_round_end)
        np.testing.assert_array_equal(points, expected)
        assert points[2].tolist() == [0] * 5 and points[active].any()
        for i in range(5):
            assert b.game(i).to_dict() == twin.game(i).to_dict()
    assert b.game(2).to_dict() == before  # the inactive lane did not move


def test_bot_actions_change_nothing_and_match_the_dispatcher() -> None:
    b = _played("continental", 3, 4, 30, seed=2)
    before = [b.game(i).to_dict() for i in range(4)]
    for name in BOT_NAMES:
        compiled = b.bot_actions(name)
        assert compiled.tolist() == batch_bots.python_bot_actions(b, name).tolist()
        assert batch_bots.bot_actions(b, name).tolist() == compiled.tolist()
    assert [b.game(i).to_dict() for i in range(4)] == before
    partial = b.bot_actions("greedy", active=np.array([True, False, True, False]))
    assert partial[1] == partial[3] == -1 and partial[0] >= 0


def test_reference_backend_plays_the_python_bots_through_the_dispatcher() -> None:
    ref = BatchGame(3, 4, seed=6, backend="reference")
    comp = BatchGame(3, 4, seed=6, backend="compiled")
    ref.reset()
    comp.reset()
    with pytest.raises(RuntimeError, match=r"compiled core only.*backend=.reference."):
        ref.bot_actions("greedy")
    with pytest.raises(RuntimeError, match="compiled core only"):
        ref.play_out("greedy")
    for name in BOT_NAMES:
        assert batch_bots.bot_actions(ref, name).tolist() == comp.bot_actions(name).tolist()
    np.testing.assert_array_equal(batch_bots.play_out(ref, "strong@v2"), comp.play_out("strong@v2"))


def test_bad_input_is_refused_in_one_line_and_changes_nothing() -> None:
    b = _played("continental", 4, 3, 10, seed=1)
    before = [b.game(i).to_dict() for i in range(3)]
    core = b._core
    out = np.zeros(3, dtype=np.int64)
    points = np.zeros((3, 4), dtype=np.int64)
    cases = [
        (ValueError, "bot 'strong': choose one of greedy, strong@v1, strong@v2",
         lambda: b.bot_actions("strong")),
        (ValueError, r"bots of shape \(1, 3\)", lambda: b.bot_actions(["greedy"] * 3)),
        (ValueError, r"kinds\[2\] = 3 must be -1 \(no bot\) or 0..2",
         lambda: core.bot_actions(np.array([0, 1, 3, 0], dtype=np.int8), out)),
        (TypeError, "kinds must have dtype int8 or int32",
         lambda: core.bot_actions(np.zeros(4), out)),
        (ValueError, r"kinds must have shape \(4,\) or \(3, 4\)",
         lambda: core.bot_actions(np.zeros(5, dtype=np.int8), out)),
        (TypeError, "out must have dtype int64",
         lambda: core.bot_actions(np.zeros(4, dtype=np.int8), out.astype(np.int32))),
        (ValueError, r"out_points must have shape \(3, 4\)",
         lambda: core.play_out(np.zeros(4, dtype=np.int8), None, True, points[:, :3].copy())),
        (ValueError, r"-1: seat \d of lane 0 plays in play_out and has no bot",
         lambda: core.play_out(np.array([0, 0, 0, -1], dtype=np.int8), None, True, points)),
        (TypeError, "takes 2 or 3 arguments", lambda: core.bot_actions(np.zeros(4, np.int8))),
        (ValueError, "active of shape", lambda: b.play_out("greedy", active=[1, 0, 1])),
    ]  # fmt: skip
    for error, message, call in cases:
        with pytest.raises(error, match=message) as info:
            call()
        assert "\n" not in str(info.value)
    # -1 at the seat to act: refused; at a seat not to act, bot_actions runs
    seat = int(b.game(0).actor)
    kinds = np.zeros((3, 4), dtype=np.int32)
    kinds[0, seat] = -1
    with pytest.raises(ValueError, match=rf"kinds\[0, {seat}\] = -1: seat {seat} of lane 0 is to"):
        core.bot_actions(kinds, out)
    kinds[0, seat] = 0
    kinds[0, (seat + 1) % 4] = -1
    core.bot_actions(kinds, out)
    assert [b.game(i).to_dict() for i in range(3)] == before
    fresh = BatchGame(2, 3, backend="compiled")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before bot_actions"):
        fresh.bot_actions("greedy")


def _permute_hidden(raw: dict, seat: int, rng: random.Random, own_too: bool = False) -> dict:
    """``raw`` with the cards ``seat`` cannot see dealt again: the other hands' cards not
    publicly known and the stock, shuffled together (hand sizes and known cards kept).
    ``own_too`` puts the seat's own hand into the shuffle as well (the control)."""
    hands = [list(h) for h in raw["hands"]]
    known = raw["known"]
    pool = list(raw["stock"])
    free = {}
    for s, hand in enumerate(hands):
        if s == seat and not own_too:
            continue
        keep = known[s] if s != seat else [0] * len(hand)
        free[s] = sum(hand) - sum(keep)
        for c, n in enumerate(hand):
            pool += [c] * (n - keep[c])
        hands[s] = list(keep)
    rng.shuffle(pool)
    for s, n in free.items():
        for c in pool[:n]:
            hands[s][c] += 1
        pool = pool[n:]
    out = dict(raw, hands=hands, stock=pool)
    if own_too:
        out["known"] = [[0] * len(k) if s == seat else k for s, k in enumerate(known)]
    return out


def _hidden_info_differences(own_too: bool) -> tuple[int, int]:
    """(positions, positions where some bot decided otherwise) over lanes whose hidden cards
    were dealt again."""
    positions = differences = 0
    rng = random.Random(5)
    for k, (preset, players) in enumerate(TABLES[::3]):
        b = _played(preset, players, 6, 25 + 9 * k, seed=40 + k)
        twin = BatchGame(6, players, preset, seed=40 + k, backend="compiled")
        twin.reset()
        for i in range(6):
            raw = b._core.export(i)
            seat = b.game(i).actor
            twin._core.load(i, _permute_hidden(raw, seat, rng, own_too))
        for name in BOT_NAMES:
            a, c = b.bot_actions(name), twin.bot_actions(name)
            positions += 6
            differences += int((a != c).sum())
    return positions, differences


def test_no_bot_reads_a_hidden_card() -> None:
    """Two lanes alike in all the seat to act sees, the other hands' unseen cards and the stock
    dealt again: every bot decides the same. The bots' only input is the seat's ``BotView``
    (``_bots_c.h``), which holds no other hand and no stock card; this checks it end to end."""
    positions, differences = _hidden_info_differences(own_too=False)
    assert positions >= 100 and differences == 0


def test_control_the_hidden_info_check_sees_a_change_the_seat_can_see() -> None:
    """The same check, with the seat's own hand in the shuffle: decisions change, so the
    comparison above would catch a bot whose decision depends on the cards dealt again."""
    _positions, differences = _hidden_info_differences(own_too=True)
    assert differences > 0


def test_play_out_in_threads_gives_the_sequential_points() -> None:
    """``play_out`` releases the GIL and keeps no shared scratch: two batches played out at once
    in two threads score what they score one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    def fresh(seed: int) -> BatchGame:
        b = BatchGame(16, 4, seed=seed, backend="compiled")
        b.reset()
        return b

    sequential = [fresh(s).play_out("strong@v2", until_round_end=False) for s in (1, 2)]
    batches = [fresh(1), fresh(2)]
    with ThreadPoolExecutor(2) as pool:
        threaded = list(pool.map(lambda b: b.play_out("strong@v2", until_round_end=False), batches))
    for a, b in zip(sequential, threaded, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_log_totals_counted_late_are_the_ones_kept_all_along() -> None:
    """With the v0 observation the core counts the log's totals (discarded, declined...) only
    when a bot first asks in a round; with v1 it keeps them at every step. Random play, then the
    strong bots (which read the totals) at a few points of each round: both cores agree."""
    lanes, seed = 32, 11
    v0 = BatchGame(lanes, 4, seed=seed, backend="compiled")
    v1 = BatchGame(lanes, 4, seed=seed, backend="compiled", observation="v1")
    v0.reset(), v1.reset()
    rng = np.random.default_rng(seed)
    asked = 0
    for step in range(600):
        if step % 37 == 5:  # mid-round for most lanes: the v0 core counts from the log here
            for name in ("strong@v1", "strong@v2"):
                assert v0.bot_actions(name).tolist() == v1.bot_actions(name).tolist()
                asked += lanes
        actions = v0.random_legal(rng)
        v0.step(actions), v1.step(actions)
    assert asked >= 500
    assert [v0.game(i).to_dict() for i in range(lanes)] == [
        v1.game(i).to_dict() for i in range(lanes)
    ]
