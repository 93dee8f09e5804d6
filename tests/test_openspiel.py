"""The contract game as an OpenSpiel game (``continental_env.openspiel``) and OpenSpiel's ISMCTS
at the table (``agents.contract.openspiel_ismcts``). Needs the ``[openspiel]`` extra."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

try:
    import pyspiel
except ImportError:
    if os.environ.get("CI"):  # .ci/run installs the extra: a missing OpenSpiel is a failure there
        raise
    pytest.skip(
        "OpenSpiel is not installed (pip install 'continental-rl[openspiel]')",
        allow_module_level=True,
    )

from open_spiel.python.algorithms import generate_playthrough, ismcts, mcts
from test_hidden_info import swap_hidden

import continental_env.openspiel  # noqa: F401  (registers the game)
from agents.evaluate import evaluate
from agents.registry import make_agent
from continental_env.contract.game import Game

GOLDEN = Path(__file__).parent / "golden" / "openspiel_contract_2p_1round.txt"
SHORT = "max_turns=30"  # keeps the rounds of random play short


def play_random(state: pyspiel.State, rng: random.Random, stop: int | None = None) -> int:
    """Random play (chance included) to the end or ``stop`` actions; returns actions applied."""
    n = 0
    while not state.is_terminal() and (stop is None or n < stop):
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        n += 1
    return n


@pytest.mark.parametrize("players", range(2, 9))
def test_load_game_plays_full_games_at_every_table_size(players: int) -> None:
    game = pyspiel.load_game(f"continental_contract(players={players},rounds=2,{SHORT})")
    assert game.num_players() == players
    state = game.new_initial_state()
    play_random(state, random.Random(players))
    assert state.is_terminal()
    assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)
    assert len(state.engine.state.round_history) == 2


@pytest.mark.parametrize("preset", ["continental", "continental_us", "continental_es"])
def test_every_preset_plays_all_its_rounds(preset: str) -> None:
    game = pyspiel.load_game(f"continental_contract(preset={preset},players=3,max_turns=12)")
    state = game.new_initial_state()
    play_random(state, random.Random(3))
    assert state.is_terminal()
    assert len(state.engine.state.round_history) == len(game.rules.rounds)


def test_returns_are_the_relative_round_points() -> None:
    state = pyspiel.load_game(
        f"continental_contract(players=3,rounds=3,{SHORT})"
    ).new_initial_state()
    play_random(state, random.Random(11))
    expected = [0.0, 0.0, 0.0]
    for entry in state.engine.state.round_history:
        pts = entry["points"]
        for seat in range(3):
            expected[seat] += ((sum(pts) - pts[seat]) / 2 - pts[seat]) / 100
    assert state.returns() == pytest.approx(expected)


@pytest.mark.parametrize(
    "spec",
    [
        f"continental_contract(players=2,rounds=2,{SHORT})",
        f"continental_contract(players=4,preset=continental_us,rounds=2,{SHORT})",
        f"continental_contract(players=5,preset=continental_es,rounds=1,{SHORT},observation=0)",
    ],
)
def test_openspiel_random_simulation_and_serialization_checks(spec: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


def test_the_history_restores_the_state() -> None:
    game = pyspiel.load_game(f"continental_contract(players=3,rounds=2,{SHORT})")
    state = game.new_initial_state()
    play_random(state, random.Random(5), stop=150)
    again = game.deserialize_state(state.serialize())
    assert again.engine.to_dict() == state.engine.to_dict()
    assert again.information_state_string(1) == state.information_state_string(1)


def test_playthrough_matches_the_golden_file() -> None:
    # Regenerate with open_spiel.python.algorithms.generate_playthrough (docs/openspiel.md).
    from absl import flags

    if not flags.FLAGS.is_parsed():  # the playthrough reads an absl flag of its own
        flags.FLAGS.mark_as_parsed()
    original, regenerated = generate_playthrough.replay(str(GOLDEN))
    assert regenerated == original


def test_bad_parameters_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="preset 'nope' is unknown"):
        pyspiel.load_game("continental_contract(preset=nope)")
    with pytest.raises(ValueError, match=r"allows 2\.\.6 players"):
        pyspiel.load_game("continental_contract(preset=continental_us,players=8)")
    with pytest.raises(ValueError, match="rounds=9"):
        pyspiel.load_game("continental_contract(rounds=9)")


def test_bad_actions_are_refused_and_change_nothing() -> None:
    state = pyspiel.load_game("continental_contract(players=2,deals=10)").new_initial_state()
    with pytest.raises(ValueError, match="chance outcome 10 is not one of the 10 deals"):
        state.apply_action(10)
    assert state.is_chance_node() and state.history() == []
    state.apply_action(3)
    before = state.engine.to_dict()
    illegal = next(
        a for a in range(state.get_game().num_distinct_actions()) if a not in state.legal_actions()
    )
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(illegal)
    assert state.engine.to_dict() == before and state.history() == [3]


# ------------------------------------------------------------------ hidden information


def mid_game_states(seed: int, count: int) -> list[pyspiel.State]:
    game = pyspiel.load_game("continental_contract(players=3,rounds=2)")
    state = game.new_initial_state()
    rng = random.Random(seed)
    out = []
    while not state.is_terminal() and len(out) < count:
        play_random(state, rng, stop=23)
        if not state.is_terminal() and not state.is_chance_node() and state.engine.state.stock:
            out.append(state.clone())
    return out


def variant(state: pyspiel.State, data: dict) -> pyspiel.State:
    """An OpenSpiel state over the engine position ``data`` with ``state``'s public actions."""
    return state.get_game().state_from_engine(Game.from_dict(data), state._public)


def info(state: pyspiel.State, seat: int) -> tuple[str, np.ndarray, str, np.ndarray]:
    return (
        state.information_state_string(seat),
        np.asarray(state.information_state_tensor(seat)),
        state.observation_string(seat),
        np.asarray(state.observation_tensor(seat)),
    )


def same(a: tuple, b: tuple) -> bool:
    return (
        a[0] == b[0] and a[2] == b[2] and np.array_equal(a[1], b[1]) and np.array_equal(a[3], b[3])
    )


def test_other_seats_hidden_cards_change_no_information_state() -> None:
    rng = random.Random(2)
    changed = 0
    for state in mid_game_states(seed=1, count=12):
        data = state.engine.to_dict()
        for seat in range(3):
            swapped = swap_hidden(data, seat, rng)
            changed += swapped["hands"] != data["hands"]
            assert same(info(state, seat), info(variant(state, swapped), seat)), seat
    assert changed, "the variants never differed: the test would prove nothing"


def test_positive_control_own_hidden_card_changes_the_information_state() -> None:
    for state in mid_game_states(seed=3, count=6):
        data = state.engine.to_dict()
        seat = state.current_player()
        mine = data["hands"][seat]
        i = next(i for i, c in enumerate(data["stock"]) if c not in mine)
        mine[0], data["stock"][i] = data["stock"][i], mine[0]
        data["known"][seat] = []
        other = info(variant(state, data), seat)
        mine_before = info(state, seat)
        assert other[0] != mine_before[0]
        assert not np.array_equal(other[1], mine_before[1])


def test_resampled_worlds_keep_the_information_state_and_vary_the_hidden_cards() -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)  # seeded: fresh numbers each call
    differ = 0
    for state in mid_game_states(seed=4, count=5):
        seat = state.current_player()
        before = state.engine.to_dict()
        world = state.resample_from_infostate(seat, sampler)
        assert state.engine.to_dict() == before  # the real state is not touched
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(
            world.information_state_tensor(seat), state.information_state_tensor(seat)
        )
        assert world.legal_actions() == state.legal_actions()
        ws = world.engine.state
        assert ws.hand_sizes == [sum(h) for h in ws.hands] == state.engine.state.hand_sizes
        assert all(h[c] >= k[c] for h, k in zip(ws.hands, ws.known, strict=True) for c in range(53))
        assert sorted(
            ws.stock + [c for h in ws.hands for c in range(53) for _ in range(h[c])]
        ) == sorted(
            state.engine.state.stock
            + [c for h in state.engine.state.hands for c in range(53) for _ in range(h[c])]
        )
        hands = [state.engine.state.hands[s] for s in range(3) if s != seat]
        differ += hands != [world.engine.state.hands[s] for s in range(3) if s != seat]
    assert differ, "every world dealt the real hidden cards: the sampler sampled nothing"


# ------------------------------------------------------------------ OpenSpiel's bots


def test_openspiels_ismcts_plays_a_game_through_resample_from_infostate() -> None:
    game = pyspiel.load_game("continental_contract(players=2,rounds=1,max_turns=8)")
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 1.0, 4, random_state=rs)
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(game.max_chance_outcomes()))
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)


def test_ismcts_agent_plays_through_the_harness() -> None:
    report = evaluate(["openspiel-ismcts:2", "greedy"], players=2, games=1, seed=3, rounds=[1])
    assert report["candidate"] == "openspiel-ismcts:2"
    assert report["config"]["games"] == 2  # one duplicate deal: the candidate in each seat
    assert report["rounds"]["rounds"] == 2


def test_ismcts_agent_budget_is_checked() -> None:
    assert make_agent("openspiel-ismcts:3", seed=0).name == "openspiel-ismcts:3"
    assert make_agent("openspiel-ismcts:5:points", seed=0).name == "openspiel-ismcts:5:points"
    with pytest.raises(ValueError, match="unknown evaluator 'deep'"):
        make_agent("openspiel-ismcts:5:deep", seed=0)
    with pytest.raises(ValueError, match="budget must be an integer"):
        make_agent("openspiel-ismcts:x", seed=0)
    with pytest.raises(ValueError, match="at least 1 simulation"):
        make_agent("openspiel-ismcts:0", seed=0)


def test_points_evaluator_values_the_hands_as_they_stand() -> None:
    from agents.contract.openspiel_ismcts import HandPointsEvaluator

    for state in mid_game_states(seed=6, count=4):
        values = HandPointsEvaluator().evaluate(state)
        g = state.engine
        pts = [g.hand_points(s) for s in range(3)]
        expected = [
            r + ((sum(pts) - p) / 2 - p) / 100 for r, p in zip(state.returns(), pts, strict=True)
        ]
        assert values == pytest.approx(expected)
        assert sum(values) == pytest.approx(0.0, abs=1e-9)


def test_ismcts_points_agent_plays_through_the_harness() -> None:
    report = evaluate(
        ["openspiel-ismcts:4:points", "greedy"], players=2, games=1, seed=4, rounds=[1]
    )
    assert report["candidate"] == "openspiel-ismcts:4:points"
    assert report["config"]["games"] == 2


def test_ismcts_agent_decisions_ignore_hidden_cards() -> None:
    from agents.contract.view import PlayerView

    rng = random.Random(8)
    compared = changed = 0
    for state in mid_game_states(seed=9, count=8):
        game = state.engine
        seat = game.actor
        if len(game.legal_actions()) < 2:
            continue
        swapped = swap_hidden(game.to_dict(), seat, rng)
        changed += swapped["hands"] != game.to_dict()["hands"]
        other = Game.from_dict(swapped)
        a = make_agent("openspiel-ismcts:6:points", seed=5).act(PlayerView(game, seat))
        b = make_agent("openspiel-ismcts:6:points", seed=5).act(PlayerView(other, seat))
        assert a == b
        compared += 1
    assert compared and changed, "no decision compared on differing hidden cards"
