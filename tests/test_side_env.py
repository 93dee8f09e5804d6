"""The two side games' AEC environments (``fifteen``, ``knock``), the same checks for both: API
conformance, seeding, pickling, spaces, masks, rendering, the registry, illegal actions, and
hidden information (with positive controls). Each game's rewards are in its own test file."""

from __future__ import annotations

import copy
import importlib
import pickle
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from side_helpers import same, swap_hidden, unseen
from test_env_api import warnings_are_errors
from test_side_play import STATES

GAMES = ["fifteen", "knock"]
SMALL = {
    "fifteen": {"max_turns_per_hand": 30, "max_hands": 3},
    "knock": {"max_turns_per_hand": 30, "max_hands": 4},
}
# Each game's own option, for the pickling test.
OPTION = {"fifteen": {"target": 30}, "knock": {"stake": 100}}
NUM_ACTIONS = {"fifteen": 109, "knock": 220}
HAND_SIZE = {"fifteen": 15, "knock": 10}
BAD_ARGUMENTS = {
    "fifteen": [
        ({"num_players": 1}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"target": -5}, "target"),
    ],
    "knock": [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"stake": 3}, "stake"),
    ],
}
# The ansi table's title and a detail, and the human render after a draw.
RENDER = {
    "fifteen": ("Fifteen-card Continental, hand 1", "Up-card", "discard or go out"),
    "knock": ("Knock Continental, hand 1", "pot 100", "discard or announce"),
}


def package(game: str) -> Any:
    return importlib.import_module(f"continental_env.{game}")


def engine(game: str) -> Any:
    return importlib.import_module(f"continental_env.{game}.game").Game


@pytest.mark.parametrize(
    ("game", "players"),
    [("fifteen", 2), ("fifteen", 4), ("fifteen", 12), *(("knock", p) for p in (2, 4, 6))],
)
def test_pettingzoo_api_test_passes_with_warnings_as_errors(game: str, players: int) -> None:
    with warnings_are_errors():
        api_test(package(game).env(num_players=players, **SMALL[game]), num_cycles=300)


@pytest.mark.parametrize(
    ("game", "players"), [("fifteen", 2), ("fifteen", 6), ("knock", 2), ("knock", 5)]
)
def test_pettingzoo_seed_test_passes(game: str, players: int) -> None:
    with warnings_are_errors():
        seed_test(lambda: package(game).env(num_players=players, **SMALL[game]), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_registry_and_module_import(game: str) -> None:
    import pettingzoo

    # The old module path; ``<game>.env`` stays the factory.
    importlib.import_module(f"continental_env.{game}.env")

    env = pettingzoo.make("aec", f"continental/{game}_v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == f"{game}_v0" and len(env.agents) == 3
    assert package(game).env(num_players=2).unwrapped.num_players == 2  # still callable


@pytest.mark.parametrize("game", GAMES)
def test_env_pickles_and_reloads_with_its_arguments(game: str) -> None:
    # EzPickle: an environment pickles as its constructor arguments, like PettingZoo's own.
    env = package(game).env(num_players=3, reward="win", **OPTION[game], **SMALL[game])
    env.reset(seed=4)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=4)
    env.reset(seed=4)
    assert clone.unwrapped.options == env.unwrapped.options and clone.unwrapped.reward_mode == "win"
    assert clone.unwrapped.options == {**env.unwrapped.options, **OPTION[game]}
    a, b = env.observe("player_1"), clone.observe("player_1")
    assert np.array_equal(a["observation"], b["observation"])


@pytest.mark.parametrize("game", GAMES)
def test_a_running_env_pickles_and_deepcopies_with_its_game(game: str) -> None:
    env = package(game).env(num_players=3, **SMALL[game])
    env.reset(seed=np.int64(4))  # any integer kind
    rng = random.Random(1)
    for _ in range(37):
        env.step(rng.choice(env.unwrapped.game.legal_actions()))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()
        assert clone.agent_selection == env.agent_selection
        if game == "knock":  # the chips already given as rewards travel with the position
            assert clone.unwrapped._paid == env.unwrapped._paid
        a = rng.choice(env.unwrapped.game.legal_actions())
        clone.step(a)
        assert clone.unwrapped.game.moves == env.unwrapped.game.moves + 1


@pytest.mark.parametrize("game", GAMES)
def test_assigning_a_game_refreshes_the_cache_and_the_agent_to_act(game: str) -> None:
    Game = engine(game)
    env = package(game).env(num_players=2)
    env.reset(seed=0)
    before = env.observe(env.agent_selection)["observation"].copy()
    env.unwrapped.game = Game.from_dict(STATES[game]())  # seat 0 to act
    assert env.agent_selection == "player_0"
    assert not np.array_equal(env.observe("player_0")["observation"], before)
    with pytest.raises(ValueError, match="3 players"):
        env.unwrapped.game = Game.new(num_players=3, seed=1)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=1.5)


@pytest.mark.parametrize("game", GAMES)
def test_game_pickles_mid_game_and_continues_identically(game: str) -> None:
    g = engine(game).new(num_players=3, seed=2)
    rng = random.Random(2)
    for _ in range(50):
        g.apply(rng.choice(g.legal_actions()))
    back = pickle.loads(pickle.dumps(g))
    assert back.to_dict() == g.to_dict()
    for _ in range(30):
        a = rng.choice(g.legal_actions())
        g.apply(a)
        back.apply(a)
    assert back.to_dict() == g.to_dict()


@pytest.mark.parametrize("game", GAMES)
def test_spaces_layout_and_masks(game: str) -> None:
    env = package(game).env(num_players=4)
    env.reset(seed=1)
    raw = env.unwrapped
    layout = raw.observation_layout
    aec = importlib.import_module(f"continental_env.{game}.aec")
    assert (
        layout == aec.observation_layout(4)
        and layout["known_opp"].stop - layout["known_opp"].start == 3 * 65
    )
    obs, *_ = env.last()
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == (raw.obs_size,)
    assert obs["action_mask"].shape == (NUM_ACTIONS[game],)
    assert env.action_space("player_0").n == aec.NUM_ACTIONS == NUM_ACTIONS[game]
    hand = obs["observation"][layout["hand"]].reshape(5, 13)
    assert hand.sum() == HAND_SIZE[game] and np.array_equal(
        obs["observation"][layout["hand"]][:53], raw.game.hands[raw.game.current]
    )
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    assert legal == raw.game.legal_actions()
    other = next(a for a in raw.agents if a != env.agent_selection)
    assert raw.observe(other)["action_mask"].sum() == 0


@pytest.mark.parametrize(
    ("game", "kwargs", "match"), [(g, k, m) for g in GAMES for k, m in BAD_ARGUMENTS[g]]
)
def test_bad_arguments_are_refused(game: str, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        package(game).env(**kwargs)


@pytest.mark.parametrize("game", GAMES)
def test_render_modes(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    title, detail, after_draw = RENDER[game]
    env = package(game).env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert title in text and detail in text
    env = package(game).env(num_players=2, render_mode="human")
    env.reset(seed=3)
    env.step(0)
    assert after_draw in capsys.readouterr().out


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_raises_and_changes_nothing(game: str) -> None:
    env = package(game).env(num_players=2)
    env.reset(seed=3)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="'discard 2C'"):
        env.step(env.unwrapped.game.action_from_str("discard 2C"))
    for bad, match in ((10**6, "out of range"), (2.5, "not an integer"), (-1, "out of range")):
        with pytest.raises(ValueError, match=match):
            env.step(bad)
    assert env.unwrapped.game.to_dict() == before
    env.step(np.int64(0))  # numpy integers are actions too
    assert env.unwrapped.game.phase == "play"


@pytest.mark.parametrize("game", GAMES)
def test_terminate_on_illegal_mode(game: str) -> None:
    env = package(game).env(num_players=2, illegal="terminate")
    env.reset(seed=3)
    env.step(env.unwrapped.game.action_from_str("discard 2C"))
    assert all(env.terminations.values())
    assert env.rewards[env.possible_agents[1]] == -1
    with pytest.raises(ValueError, match="illegal='maybe'"):
        package(game).env(illegal="maybe")


# ----------------------------------------------------------------------------- hidden information


def observe(game: Any, seat: int) -> dict[str, np.ndarray]:
    raw = package(game.setup.GAME).raw_env(num_players=game.num_players)
    raw.reset(seed=0)
    raw.game = game
    return raw.observe(f"player_{seat}")


@pytest.mark.parametrize(
    ("game", "players", "steps"),
    [*(("fifteen", p, 120) for p in (2, 4, 9)), *(("knock", p, 150) for p in (2, 4, 6))],
)
def test_hidden_cards_never_change_an_observation(game: str, players: int, steps: int) -> None:
    Game = engine(game)
    rng = random.Random(players)
    g = Game.new(num_players=players, seed=players, **SMALL[game])
    checked = 0
    for step in range(steps):
        if g.is_over:
            break
        if step % 7 == 0 and g.phase in ("draw", "play"):
            data = g.to_dict()
            for seat in range(players):
                variant = Game.from_dict(swap_hidden(data, seat, rng))
                assert variant.to_dict() != data  # the variant really differs
                assert same(observe(g, seat), observe(variant, seat))
                checked += 1
        g.apply(rng.choice(g.legal_actions()))
    assert checked > 20


def _take_a_card(g: Any) -> tuple[int, int]:
    """Play until an opponent takes a card from the pile; (the taker, an observer)."""
    if g.setup.GAME == "fifteen":  # seat 1 takes the up-card, seat 2 watches
        g.apply(g.action_from_str("take"))
        return 1, 2
    # Knock has no up-card: seat 1 draws and discards, seat 2 takes it, seat 0 watches.
    g.apply(g.action_from_str("draw"))
    g.apply(g.legal_actions()[0])
    g.apply(g.action_from_str("take"))
    return 2, 0


@pytest.mark.parametrize("game", GAMES)
def test_positive_controls_own_hand_and_taken_cards_change_the_observation(game: str) -> None:
    Game = engine(game)
    g = Game.new(num_players=3, seed=8)
    data = g.to_dict()
    # Positive control 1: the observer's own hand is visible.
    changed = copy.deepcopy(data)
    i = next(k for k, c in enumerate(changed["stock"]) if c not in changed["hands"][1])
    changed["hands"][1][0], changed["stock"][i] = changed["stock"][i], changed["hands"][1][0]
    changed["hands"][1].sort()
    assert not same(observe(g, 1), observe(Game.from_dict(changed), 1))
    # Positive control 2: a card an opponent took from the pile is public, so leaking the
    # swap of a known card would show.
    taker, observer = _take_a_card(g)
    taken = g.to_dict()
    assert taken["known"][taker]
    moved = copy.deepcopy(taken)
    card = moved["known"][taker][0]
    other = next(c for c in moved["stock"] if c != card)
    moved["hands"][taker].remove(card)
    moved["hands"][taker].append(other)
    moved["known"][taker] = [other]
    moved["stock"][moved["stock"].index(other)] = card
    assert not same(observe(g, observer), observe(Game.from_dict(moved), observer))
    # ...while the same swap of an unseen card is invisible (the test above, once more here).
    hidden = copy.deepcopy(taken)
    card = unseen(hidden, taker)[0]
    other = next(c for c in hidden["stock"] if c != card)
    hidden["hands"][taker].remove(card)
    hidden["hands"][taker].append(other)
    hidden["stock"][hidden["stock"].index(other)] = card
    assert same(observe(g, observer), observe(Game.from_dict(hidden), observer))


@pytest.mark.parametrize("game", GAMES)
def test_a_leaky_encoder_is_caught(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Positive control for the comparison itself: an encoder that leaks the next player's hand
    # into the known-cards plane makes the hidden-card test fail.
    env_module = importlib.import_module(f"continental_env.{game}.aec")
    real = env_module.encode_observation

    def leaky(g: Any, seat: int, layout: dict[str, slice]) -> np.ndarray:
        obs = real(g, seat, layout)
        base = layout["known_opp"].start
        obs[base : base + 53] = g.hands[(seat + 1) % g.num_players]
        return obs

    monkeypatch.setattr(env_module, "encode_observation", leaky)
    g = engine(game).new(num_players=3, seed=2)
    variant = engine(game).from_dict(swap_hidden(g.to_dict(), 0, random.Random(0)))
    assert not same(observe(g, 0), observe(variant, 0))
