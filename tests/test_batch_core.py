"""The compiled batch core (``continental_env._batch``) against the reference engine.

Lockstep: every lane of a ``Core`` and a ``Game`` fed the same random legal actions; after
every action the lane's exported position (the engine's internal values), its v0 observation,
legal mask and actor equal the reference's, and a finished game's scores and its successor
(seeded per lane and game) too. A corrupted field is caught (positive control); illegal
actions and bad arrays are refused with nothing changed.
"""

from __future__ import annotations

import gc
import random
import weakref
from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from continental_env.contract.actions import num_actions
from continental_env.contract.aec import encode_observation, observation_layout
from continental_env.contract.batch import lane_game_seed, raw_from_state, rules_tuple
from continental_env.contract.game import Game
from continental_env.contract.public_log import KINDS
from continental_env.melds import has_contract
from continental_env.melds.laydown import laydown_plan
from continental_env.rules import PRESETS, RuleConfig

_batch = pytest.importorskip("continental_env._batch")


def make_core(rules: RuleConfig, p: int, n: int, seed: int) -> Any:
    def plan(counts: tuple, trios: int, runs: int, signature: tuple) -> Any:
        return laydown_plan(counts, trios, runs, rules, signature)

    def slow(counts: tuple, trios: int, runs: int) -> bool:
        return has_contract(counts, trios, runs, rules)

    return _batch.Core(n, p, rules_tuple(rules, p), seed, plan, slow)


def engine_raw(game: Game, game_index: int) -> dict[str, Any]:
    """The reference position in ``Core.export``'s form (the engine's internal values)."""
    raw = raw_from_state(game.state)
    raw["game_index"] = game_index
    return raw


def buffers(core: Any) -> dict[str, np.ndarray]:
    n, p = core.num_games, core.num_players
    return {
        "obs": np.zeros((n, core.obs_dim), np.float32),
        "mask": np.zeros((n, core.num_actions), np.bool_),
        "actor": np.zeros(n, np.int64),
        "round_points": np.zeros((n, p), np.int32),
        "round_end": np.zeros(n, np.bool_),
        "done": np.zeros(n, np.bool_),
        "final_scores": np.zeros((n, p), np.int32),
    }


def step(core: Any, actions: np.ndarray, b: dict[str, np.ndarray]) -> int:
    return core.step(
        actions,
        b["obs"],
        b["mask"],
        b["actor"],
        b["round_points"],
        b["round_end"],
        b["done"],
        b["final_scores"],
    )


def mismatch(core: Any, games: list[Game], index: list[int], b: dict[str, np.ndarray]) -> str:
    """The first difference between the lanes and the reference games ('' when none)."""
    p = core.num_players
    layout = observation_layout(p, 0)
    for i, game in enumerate(games):
        got = core.export(i)
        want = engine_raw(game, index[i])
        for key in want:
            if got[key] != want[key]:
                return f"lane {i} field {key}: {got[key]!r} != {want[key]!r}"
        if set(got) != set(want):
            return f"lane {i} keys {sorted(set(got) ^ set(want))}"
        legal = np.flatnonzero(b["mask"][i]).tolist()
        if legal != game.legal_actions():
            return f"lane {i} mask {legal} != {game.legal_actions()}"
        actor = -1 if game.actor is None else game.actor
        if b["actor"][i] != actor:
            return f"lane {i} actor {b['actor'][i]} != {actor}"
        if actor >= 0 and not np.array_equal(b["obs"][i], encode_observation(game, actor, layout)):
            return f"lane {i} observation differs"
    return ""


def lockstep(
    rules: RuleConfig, p: int, lanes: int, steps: int, seed: int, rich: float = 0.0
) -> Counter:
    """Run ``steps`` random legal actions per lane in lockstep; returns how often each action
    kind was played and ``"game_over"``, the games finished. With probability ``rich`` an
    action is drawn among the lay-downs, closes, lay-offs, swaps and joker moves when there are
    any, which reaches the play step's rarer actions sooner."""
    core = make_core(rules, p, lanes, seed)
    assert core.num_actions == num_actions(p)
    assert (
        core.obs_dim == encode_observation(Game.new(rules, p, 0), 0, observation_layout(p, 0)).size
    )
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    games = [Game.new(rules, p, seed=lane_game_seed(seed, i, 0)) for i in range(lanes)]
    index = [0] * lanes
    assert mismatch(core, games, index, b) == ""
    rng = random.Random(seed)
    kinds: Counter = Counter()
    for _ in range(steps):
        actions = np.array([choose(rng, g.legal_actions(), rich) for g in games], dtype=np.int64)
        assert step(core, actions, b) == -1
        for i, game in enumerate(games):
            kinds[game.layout.decode(int(actions[i]))[0]] += 1
            rounds = len(game.round_history)
            game.apply(int(actions[i]))
            ended = len(game.round_history) > rounds
            assert b["round_end"][i] == ended
            want = game.round_history[-1]["points"] if ended else [0] * p
            assert b["round_points"][i].tolist() == want
            assert b["done"][i] == game.is_over
            if game.is_over:
                kinds["game_over"] += 1
                assert b["final_scores"][i].tolist() == game.scores
                index[i] += 1
                games[i] = Game.new(rules, p, seed=lane_game_seed(seed, i, index[i]))
        problem = mismatch(core, games, index, b)
        assert problem == "", problem
    return kinds


def choose(rng: random.Random, legal: list[int], rich: float) -> int:
    play = [a for a in legal if a in (4, 5) or a >= 59]
    return rng.choice(play if play and rng.random() < rich else legal)


def short(rules: RuleConfig, turns: int = 12, rounds: tuple[int, ...] = (1, 5, 7)) -> RuleConfig:
    """A preset with short rounds, so that random play finishes games in a small test."""
    return replace(rules, name="custom", max_turns_per_round=turns, rounds=rounds)


@pytest.mark.parametrize(
    ("preset", "p"),
    [
        ("continental", 2),
        ("continental", 4),
        ("continental", 8),
        ("continental_us", 3),
        ("continental_us", 6),
        ("continental_es", 5),
        ("continental_es", 7),
    ],
)
def test_lockstep_presets(preset: str, p: int) -> None:
    """Full presets: long rounds, lay-downs, lay-offs, swaps, joker moves, claims."""
    lockstep(PRESETS[preset], p, lanes=2, steps=300, seed=1000 + p)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_lockstep_through_game_ends(preset: str) -> None:
    """Short rounds: rounds end by the turn cap and games end, the next game follows."""
    kinds = lockstep(short(PRESETS[preset]), 3, lanes=3, steps=400, seed=7)
    assert kinds["game_over"] >= 3


def test_lockstep_variants() -> None:
    """Claims after lay-down with a cap, no wraparound with a discard restriction."""
    rules = short(
        replace(
            PRESETS["continental"],
            claims_after_laydown=True,
            max_claims_per_round=2,
            ace_wraparound=False,
            discard_restriction=True,
            min_run=3,
            one_turn_bonus=-25,
        ),
        turns=20,
        rounds=(2, 3, 6),
    )
    assert lockstep(rules, 4, lanes=2, steps=400, seed=3)["game_over"] >= 1


@pytest.mark.parametrize(
    ("preset", "p", "kinds"),
    [
        ("continental", 4, {"laydown", "layoff", "swap", "close", "claim", "take"}),
        ("continental_us", 2, {"laydown", "layoff", "movejoker", "close", "claim"}),
        ("continental_es", 4, {"laydown", "layoff", "swap", "close", "claim"}),
    ],
)
def test_lockstep_reaches_every_action_kind(preset: str, p: int, kinds: set[str]) -> None:
    """Play-step actions favoured: lay-downs, lay-offs, swaps (joker moves in 003) and closes
    all happen, in lockstep, and games end."""
    played = lockstep(short(PRESETS[preset], turns=60), p, lanes=3, steps=600, seed=17, rich=0.8)
    assert kinds <= {k for k, n in played.items() if n}, played
    assert played["game_over"] >= 3


def test_rng_matches_random() -> None:
    """The deal seeds and a shuffled deal equal ``random.Random``'s for seeds of one and two
    32-bit words (0 included)."""
    rules = PRESETS["continental"]
    for seed in (0, 1, 2**32 - 1, 2**32, 2**64 - 1, -5, 2**70 + 3):
        core = make_core(rules, 4, 2, seed)
        for lane in range(2):
            game = Game.new(rules, 4, seed=lane_game_seed(seed, lane, 0))
            assert core.export(lane) == engine_raw(game, 0)


def _swap_stock(raw: dict) -> None:
    i = next(k for k in range(1, len(raw["stock"])) if raw["stock"][k] != raw["stock"][0])
    raw["stock"][0], raw["stock"][i] = raw["stock"][i], raw["stock"][0]


def _bump(key: str, index: int | None = None) -> Any:
    def corrupt(raw: dict) -> None:
        if index is None:
            raw[key] += 1
        else:
            raw[key][index] += 1

    return corrupt


def _rng_word(raw: dict) -> None:
    version, words, gauss = raw["rng"]
    raw["rng"] = (version, (words[0] ^ 1, *words[1:]), gauss)


@pytest.mark.parametrize(
    "corrupt",
    [
        _swap_stock,
        _rng_word,
        _bump("moves"),
        _bump("scores", 1),
        _bump("deal_seeds", 2),
        lambda raw: raw["seen_discards"].__setitem__(
            raw["discard"][-1], raw["seen_discards"][raw["discard"][-1]] + 1
        ),
        lambda raw: raw["public_log"].append((0, 0, -1)),
    ],
    ids=["stock order", "rng", "moves", "scores", "deal_seeds", "seen_discards", "public_log"],
)
def test_positive_control_corrupt_field(corrupt: Any) -> None:
    """A lane with one field changed (loaded from a corrupted export) no longer matches; the
    reference's own position puts it back."""
    rules = PRESETS["continental"]
    core = make_core(rules, 3, 2, 11)
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    games = [Game.new(rules, 3, seed=lane_game_seed(11, i, 0)) for i in range(2)]
    assert mismatch(core, games, [0, 0], b) == ""
    raw = core.export(1)
    corrupt(raw)
    core.load(1, raw)
    assert mismatch(core, games, [0, 0], b).startswith("lane 1 field ")
    core.load(1, engine_raw(games[1], 0))
    core.write(b["obs"], b["mask"], b["actor"])
    assert mismatch(core, games, [0, 0], b) == ""


def test_positive_control_observation_mask_actor() -> None:
    """The comparison also catches a wrong observation entry, mask bit or actor."""
    rules = PRESETS["continental"]
    core = make_core(rules, 3, 1, 11)
    games = [Game.new(rules, 3, seed=lane_game_seed(11, 0, 0))]
    for name, spoil, words in [
        ("obs", lambda b: b["obs"][0].__setitem__(3, b["obs"][0][3] + 1), "observation"),
        ("mask", lambda b: b["mask"][0].__setitem__(1000, True), "mask"),
        ("actor", lambda b: b["actor"].__setitem__(0, 2), "actor"),
    ]:
        b = buffers(core)
        core.write(b["obs"], b["mask"], b["actor"])
        assert mismatch(core, games, [0], b) == ""
        spoil(b)
        assert words in mismatch(core, games, [0], b), name


def test_load_mid_game_position_continues_in_lockstep() -> None:
    """A position played by the engine, loaded on a lane, steps exactly as the engine does."""
    rules = PRESETS["continental_us"]
    game = Game.new(rules, 3, seed=5)
    rng = random.Random(5)
    for _ in range(150):
        game.apply(rng.choice(game.legal_actions()))
    core = make_core(rules, 3, 1, 99)
    core.load(0, engine_raw(game, 4))
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    assert mismatch(core, [game], [4], b) == ""
    for _ in range(100):
        action = rng.choice(game.legal_actions())
        assert step(core, np.array([action], np.int64), b) == -1
        game.apply(action)
        if game.is_over:
            break
        assert mismatch(core, [game], [4], b) == ""


def test_load_refuses_bad_values_and_keeps_the_lane() -> None:
    rules = PRESETS["continental"]
    core = make_core(rules, 4, 1, 2)
    before = core.export(0)
    bad = [
        ("phase", "dance", "'phase'"),
        ("current", 9, "'current'"),
        ("hand_sizes", [1, 2, 3, 4], "hand_sizes"),
        ("stock", [*before["stock"], 3], "conserved"),
        ("table", [(0, "run", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0], 0, -1, 0)], "table"),
        ("rng", (3, (0,) * 624 + (700,), None), "rng"),
        ("deal_seeds", [-1] * 7, "deal_seeds"),
        ("public_log", [(0, 12, 3)], "public_log"),
    ]
    for key, value, words in bad:
        raw = dict(before, **{key: value})
        with pytest.raises(ValueError, match=words):
            core.load(0, raw)
        assert core.export(0) == before
    with pytest.raises(ValueError, match="missing field 'moves'"):
        core.load(0, {k: v for k, v in before.items() if k != "moves"})


def test_step_refuses_an_illegal_action_and_changes_nothing() -> None:
    rules = PRESETS["continental"]
    core = make_core(rules, 4, 3, 8)
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    before = [core.export(i) for i in range(3)]
    obs = b["obs"].copy()
    # Lane 0 draws (legal), lane 1 discards in the draw phase (illegal), lane 2 out of range.
    assert step(core, np.array([0, 6, 0], np.int64), b) == 1
    assert step(core, np.array([0, 0, core.num_actions], np.int64), b) == 2
    assert step(core, np.array([-1, 0, 0], np.int64), b) == 0
    assert [core.export(i) for i in range(3)] == before
    assert np.array_equal(b["obs"], obs)


def test_arrays_and_arguments_are_checked() -> None:
    rules = PRESETS["continental"]
    core = make_core(rules, 4, 2, 1)
    assert (core.num_games, core.num_players, core.num_actions, core.obs_dim) == (2, 4, 1631, 745)
    b = buffers(core)
    with pytest.raises(TypeError, match="obs must have dtype float32"):
        core.write(b["obs"].astype(np.float64), b["mask"], b["actor"])
    with pytest.raises(ValueError, match=r"mask must have shape \(2, 1631\)"):
        core.write(b["obs"], b["mask"][:, :10].copy(), b["actor"])
    with pytest.raises(TypeError, match="C-contiguous"):
        core.write(np.zeros((2, 2 * core.obs_dim), np.float32)[:, ::2], b["mask"], b["actor"])
    with pytest.raises(TypeError, match="actions must have dtype int64"):
        step(core, np.zeros(2, np.int32), b)
    with pytest.raises(ValueError, match="num_players = 9"):
        _batch.Core(2, 9, rules_tuple(rules, 4), 0, print, print)
    bad = list(rules_tuple(rules, 4))
    bad[0] = 2
    with pytest.raises(ValueError, match="min_run = 2"):
        _batch.Core(2, 4, tuple(bad), 0, print, print)
    with pytest.raises(ValueError, match="lane = 2"):
        core.export(2)


def test_public_log_kinds_match() -> None:
    """The log's kind indices are the engine's ``KINDS`` (the C enum follows the action ids)."""
    assert KINDS[:6] == ("draw", "take", "claim", "pass", "laydown", "close")
    assert KINDS[6:] == ("discard", "layoff", "swap", "movejoker")


def test_has_contract_fallback_calls_back() -> None:
    """A hand for which ``contract_exists`` says yes with stealing and no without (2S QS and
    nine jokers; two trios and a run): the core asks ``has_contract_slow``, follows its answer
    (here no lay-down, as the engine decides) and passes its errors on."""
    rules = replace(PRESETS["continental"], name="custom", jokers_per_deck=6, rounds=(5,))
    target = [40, 50] + [52] * 9
    for seed in range(50):
        game = Game.new(rules, 3, seed=seed)
        game.apply(0)  # draw; everyone passes
        while game.phase == "claim":
            game.apply(3)
        s = game.state
        seat = s.current
        stock = s.stock + [c for c in range(53) for _ in range(s.hands[seat][c])]
        if any(stock.count(c) < target.count(c) for c in set(target)):
            continue
        for c in target:
            stock.remove(c)
        s.stock = stock
        s.hands[seat] = [target.count(c) for c in range(53)]
        s.hand_sizes[seat] = len(target)
        s.known[seat] = [0] * 53
        game._invalidate()
        break
    assert 4 not in game.legal_actions()
    calls = []

    def slow(counts: tuple, trios: int, runs: int) -> bool:
        calls.append(counts)
        return has_contract(counts, trios, runs, rules)

    def plan(counts: tuple, trios: int, runs: int, signature: tuple) -> Any:
        return laydown_plan(counts, trios, runs, rules, signature)

    core = _batch.Core(1, 3, rules_tuple(rules, 3), 0, plan, slow)
    core.load(0, engine_raw(game, 0))
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    assert calls == [tuple(game.hands[seat])]
    assert mismatch(core, [game], [0], b) == ""

    def broken(counts: tuple, trios: int, runs: int) -> bool:
        raise ZeroDivisionError("slow path")

    core = _batch.Core(1, 3, rules_tuple(rules, 3), 0, plan, broken)
    core.load(0, engine_raw(game, 0))
    with pytest.raises(ZeroDivisionError, match="slow path"):
        core.write(b["obs"], b["mask"], b["actor"])


def test_laydown_is_chosen_in_c_without_the_callback() -> None:
    """The lay-down's arrangement is the compiled ``melds.laydown_plan`` (``_laydown_c.h``): the
    ``laydown_plan`` argument is no longer called (a raising one, or None, changes nothing) and
    the lay-down matches the engine's."""
    rules = PRESETS["continental"]
    game = Game.new(rules, 3, seed=1)
    rng = random.Random(1)
    while 4 not in game.legal_actions():
        game.apply(rng.choice(game.legal_actions()))

    def broken(counts: tuple, trios: int, runs: int, signature: tuple) -> Any:
        raise KeyError("plan")

    raw = engine_raw(game, 0)
    game.apply(4)
    for plan in (broken, None):
        core = _batch.Core(1, 3, rules_tuple(rules, 3), 0, plan, print)
        core.load(0, raw)
        b = buffers(core)
        core.write(b["obs"], b["mask"], b["actor"])
        assert step(core, np.array([4], np.int64), b) == -1
        assert mismatch(core, [game], [0], b) == ""
    with pytest.raises(TypeError, match="laydown_plan must be None or callable"):
        _batch.Core(1, 3, rules_tuple(rules, 3), 0, 5, print)


def test_finished_game_loads_and_refuses_every_action() -> None:
    """A finished game loaded on a lane: no actor, a zero mask and observation, and any action
    is refused (``step`` names the lane)."""
    rules = short(PRESETS["continental_es"], turns=4, rounds=(3,))
    game = Game.new(rules, 4, seed=2)
    rng = random.Random(2)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    core = make_core(rules, 4, 2, 0)
    core.load(1, engine_raw(game, 3))
    assert core.export(1) == engine_raw(game, 3)
    b = buffers(core)
    b["obs"][:] = 1.0
    core.write(b["obs"], b["mask"], b["actor"])
    assert b["actor"][1] == -1 and not b["mask"][1].any() and not b["obs"][1].any()
    assert b["actor"][0] >= 0 and b["mask"][0].any()
    assert step(core, np.array([0, 0], np.int64), b) == 1


def test_hand_built_position_without_history_loads() -> None:
    """An engine position built by hand (no round history, no moves counted) loads and steps
    in lockstep: the lane keeps the engine's shorter history."""
    rules = short(PRESETS["continental"], turns=6, rounds=(1, 2, 3))
    game = Game.new(rules, 3, seed=4)
    rng = random.Random(4)
    while game.round_index < 1:
        game.apply(rng.choice(game.legal_actions()))
    data = game.to_dict()
    del data["round_history"]
    data["moves"] = 0
    game = Game.from_dict(data)
    assert game.round_history == [] and game.round_index == 1
    core = make_core(rules, 3, 1, 0)
    core.load(0, engine_raw(game, 0))
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        assert step(core, np.array([action], np.int64), b) == -1
        game.apply(action)
        if not game.is_over:
            assert mismatch(core, [game], [0], b) == ""
    assert b["done"][0] and b["final_scores"][0].tolist() == game.scores


def test_reset_all_restarts_every_lane_at_game_zero() -> None:
    rules = short(PRESETS["continental_us"], turns=3, rounds=(1,))
    core = make_core(rules, 2, 3, 21)
    b = buffers(core)
    core.write(b["obs"], b["mask"], b["actor"])
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in b["mask"]], np.int64)
        assert step(core, actions, b) == -1
    assert any(core.export(i)["game_index"] > 0 for i in range(3))
    core.reset_all()
    for i in range(3):
        assert core.export(i) == engine_raw(Game.new(rules, 2, seed=lane_game_seed(21, i, 0)), 0)


@pytest.mark.parametrize("discard_left", [1, 4])
def test_empty_stock_reforms_or_ends_the_round(discard_left: int) -> None:
    """The stock runs out: with more than one discard the pile is shuffled into a new stock
    (the round's generator), with one the round ends without a closer; a claim then gets no
    penalty card. Both in lockstep with the engine."""
    rules = PRESETS["continental"]
    for seed in range(40):
        game = Game.new(rules, 3, seed=seed)
        s = game.state
        other = (s.current + 1) % 3
        # Every stock card and all but `discard_left` discards into another hand.
        moved = s.stock + s.discard[:-1]
        s.discard = s.discard[-1:]
        while len(s.discard) < discard_left:
            s.discard.insert(0, moved.pop())
        for c in moved:
            s.hands[other][c] += 1
        s.hand_sizes[other] += len(moved)
        s.stock = []
        s.seen_discards = [s.discard.count(c) for c in range(53)]
        game._invalidate()
        rng = random.Random(seed)
        core = make_core(rules, 3, 1, 0)
        core.load(0, engine_raw(game, 0))
        b = buffers(core)
        core.write(b["obs"], b["mask"], b["actor"])
        rounds = 0
        for _ in range(12):
            action = rng.choice(game.legal_actions())
            assert step(core, np.array([action], np.int64), b) == -1
            game.apply(action)
            rounds += int(b["round_end"][0])
            assert mismatch(core, [game], [0], b) == ""
        if discard_left == 1 and rounds:
            assert game.round_history[0]["closer"] is None
            return
        if discard_left > 1 and game.state.round_index == 0 and game.state.stock:
            return
    raise AssertionError("no seed reached the case")


def test_a_core_in_a_reference_cycle_is_collected() -> None:
    """Callbacks that close over the object holding the core form a cycle the collector frees."""
    rules = PRESETS["continental"]

    class Holder:
        core: Any = None

    def build() -> weakref.ref:
        holder = Holder()
        holder.core = _batch.Core(
            1, 2, rules_tuple(rules, 2), 0, lambda *a: holder.core, lambda *a: holder.core
        )
        return weakref.ref(holder)

    ref = build()
    gc.collect()
    assert ref() is None
