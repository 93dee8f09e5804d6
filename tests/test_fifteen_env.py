"""The fifteen-card AEC environment: API conformance, seeding, pickling, spaces, masks, rewards,
rendering, the registry, and hidden information (with positive controls)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest
from fifteen_helpers import fifteen_state
from pettingzoo.test import api_test, seed_test
from test_env_api import warnings_are_errors

from continental_env import fifteen
from continental_env.fifteen.env import CHIP_SCALE, observation_layout
from continental_env.fifteen.game import NUM_ACTIONS, Game

SMALL = {"max_turns_per_hand": 30, "max_hands": 3}
MINE = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"
OPP = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"


def load(env: Any, game: Game) -> None:
    """Put a hand-built engine position behind a reset environment."""
    env.unwrapped.game = game


@pytest.mark.parametrize("players", [2, 4, 12])
def test_pettingzoo_api_test_passes_with_warnings_as_errors(players: int) -> None:
    with warnings_are_errors():
        api_test(fifteen.env(num_players=players, **SMALL), num_cycles=300)


@pytest.mark.parametrize("players", [2, 6])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    with warnings_are_errors():
        seed_test(lambda: fifteen.env(num_players=players, **SMALL), num_cycles=200)


def test_registry_and_module_import() -> None:
    import pettingzoo

    import continental_env.fifteen.env  # noqa: F401  (the old module path; fifteen.env stays the factory)

    env = pettingzoo.make("aec", "continental/fifteen_v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "fifteen_v0" and len(env.agents) == 3
    assert fifteen.env(num_players=2).unwrapped.num_players == 2  # still callable


def test_env_pickles_and_reloads_with_its_arguments() -> None:
    # EzPickle: an environment pickles as its constructor arguments, like PettingZoo's own.
    env = fifteen.env(num_players=3, target=30, reward="win", **SMALL)
    env.reset(seed=4)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=4)
    env.reset(seed=4)
    assert clone.unwrapped.options == env.unwrapped.options and clone.unwrapped.reward_mode == "win"
    a, b = env.observe("player_1"), clone.observe("player_1")
    assert np.array_equal(a["observation"], b["observation"])


def test_a_running_env_pickles_and_deepcopies_with_its_game() -> None:
    env = fifteen.env(num_players=3, **SMALL)
    env.reset(seed=np.int64(4))  # any integer kind
    rng = random.Random(1)
    for _ in range(37):
        env.step(rng.choice(env.unwrapped.game.legal_actions()))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()
        assert clone.agent_selection == env.agent_selection
        a = rng.choice(env.unwrapped.game.legal_actions())
        clone.step(a)
        assert clone.unwrapped.game.moves == env.unwrapped.game.moves + 1


def test_assigning_a_game_refreshes_the_cache_and_the_agent_to_act() -> None:
    env = fifteen.env(num_players=2)
    env.reset(seed=0)
    before = env.observe(env.agent_selection)["observation"].copy()
    game = Game.from_dict(fifteen_state(hands=[MINE, OPP], discard="KD"))
    env.unwrapped.game = game
    assert env.agent_selection == "player_0"
    assert not np.array_equal(env.observe("player_0")["observation"], before)
    with pytest.raises(ValueError, match="3 players"):
        env.unwrapped.game = Game.new(num_players=3, seed=1)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=1.5)


def test_game_pickles_mid_game_and_continues_identically() -> None:
    g = Game.new(num_players=3, seed=2)
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


def test_spaces_layout_and_masks() -> None:
    env = fifteen.env(num_players=4)
    env.reset(seed=1)
    raw = env.unwrapped
    layout = raw.observation_layout
    assert (
        layout == observation_layout(4)
        and layout["known_opp"].stop - layout["known_opp"].start == 3 * 65
    )
    obs, *_ = env.last()
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == (raw.obs_size,) and obs["action_mask"].shape == (109,)
    assert env.action_space("player_0").n == NUM_ACTIONS
    hand = obs["observation"][layout["hand"]].reshape(5, 13)
    assert hand.sum() == 15 and np.array_equal(
        obs["observation"][layout["hand"]][:53], raw.game.hands[raw.game.current]
    )
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    assert legal == raw.game.legal_actions()
    other = next(a for a in raw.agents if a != env.agent_selection)
    assert raw.observe(other)["action_mask"].sum() == 0


def test_bad_arguments_are_refused() -> None:
    for kwargs, match in [
        ({"num_players": 1}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"target": -5}, "target"),
    ]:
        with pytest.raises(ValueError, match=match):
            fifteen.env(**kwargs)


def test_chips_rewards_are_zero_sum_and_scaled_with_infos() -> None:
    env = fifteen.env(num_players=2)
    env.reset(seed=0)
    load(env, Game.from_dict(fifteen_state(hands=[MINE, OPP], discard="KD")))
    env.step(env.unwrapped.game.action_from_str("take"))
    env.step(env.unwrapped.game.action_from_str("out KD"))
    raw = env.unwrapped
    assert raw.rewards == {"player_0": 11 / CHIP_SCALE, "player_1": -11 / CHIP_SCALE}
    assert raw.infos["player_0"] == {"hand": 1, "chips": 11, "winner": 0}
    assert raw.infos["player_1"] == {"hand": 1, "chips": -11, "winner": 1}
    assert not any(raw.terminations.values())  # 11 < 50: the next hand is dealt


def test_win_reward_at_the_end_only() -> None:
    env = fifteen.env(num_players=3, reward="win", hands=1)
    env.reset(seed=0)
    state = fifteen_state(
        hands=[MINE, OPP, "3D 5D 7D 9D JD KD 3S 5S 7S 9S JS AS 4H 6H 8H"],
        discard="KD",
        options={"hands": 1},
    )
    load(env, Game.from_dict(state))
    env.step(env.unwrapped.game.action_from_str("take"))
    assert env.unwrapped.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    env.step(env.unwrapped.game.action_from_str("out KD"))
    assert env.unwrapped.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.unwrapped.terminations.values())


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = fifteen.env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "Fifteen-card Continental, hand 1" in text and "Up-card" in text
    env = fifteen.env(num_players=2, render_mode="human")
    env.reset(seed=3)
    env.step(0)
    assert "discard or go out" in capsys.readouterr().out


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = fifteen.env(num_players=2)
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


def test_terminate_on_illegal_mode() -> None:
    env = fifteen.env(num_players=2, illegal="terminate")
    env.reset(seed=3)
    env.step(env.unwrapped.game.action_from_str("discard 2C"))
    assert all(env.terminations.values())
    assert env.rewards[env.possible_agents[1]] == -1
    with pytest.raises(ValueError, match="illegal='maybe'"):
        fifteen.env(illegal="maybe")


# ----------------------------------------------------------------------------- hidden information


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    raw = fifteen.raw_env(num_players=game.num_players)
    raw.reset(seed=0)
    raw.game = game
    return raw.observe(f"player_{seat}")


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in ("observation", "action_mask"))


def unseen(data: dict[str, Any], seat: int) -> list[str]:
    known = list(data["known"][seat])
    out = []
    for card in data["hands"][seat]:
        if card in known:
            known.remove(card)
        else:
            out.append(card)
    return out


def swap_hidden(data: dict[str, Any], observer: int, rng: random.Random) -> dict[str, Any]:
    """Opponents' unseen cards trade places with stock cards; the stock and generator shuffled."""
    out = copy.deepcopy(data)
    out["rng"][1][0] ^= 1
    stock = out["stock"]
    for seat in range(out["num_players"]):
        if seat == observer:
            continue
        for card in unseen(out, seat)[:4]:
            choices = [i for i, c in enumerate(stock) if c != card]
            if not choices:
                continue
            i = rng.choice(choices)
            out["hands"][seat].remove(card)
            out["hands"][seat].append(stock[i])
            out["hands"][seat].sort()
            stock[i] = card
    rng.shuffle(stock)
    return out


@pytest.mark.parametrize("players", [2, 4, 9])
def test_hidden_cards_never_change_an_observation(players: int) -> None:
    rng = random.Random(players)
    g = Game.new(num_players=players, seed=players, **SMALL)
    checked = 0
    for step in range(120):
        if g.is_over:
            break
        if step % 7 == 0:
            data = g.to_dict()
            for seat in range(players):
                variant = Game.from_dict(swap_hidden(data, seat, rng))
                assert variant.to_dict() != data  # the variant really differs
                assert same(observe(g, seat), observe(variant, seat))
                checked += 1
        g.apply(rng.choice(g.legal_actions()))
    assert checked > 20


def test_positive_controls_own_hand_and_taken_cards_change_the_observation() -> None:
    g = Game.new(num_players=3, seed=8)
    data = g.to_dict()
    # Positive control 1: the observer's own hand is visible.
    changed = copy.deepcopy(data)
    changed["hands"][1][0], changed["stock"][0] = changed["stock"][0], changed["hands"][1][0]
    changed["hands"][1].sort()
    if changed["hands"][1] != data["hands"][1]:
        assert not same(observe(g, 1), observe(Game.from_dict(changed), 1))
    # Positive control 2: a card an opponent took from the pile is public, so leaking the
    # swap of a known card would show: seat 1 takes, seat 2 must see it.
    g.apply(g.action_from_str("take"))
    taken = g.to_dict()
    assert taken["known"][1]
    moved = copy.deepcopy(taken)
    card = moved["known"][1][0]
    other = next(c for c in moved["stock"] if c != card)
    moved["hands"][1].remove(card)
    moved["hands"][1].append(other)
    moved["known"][1] = [other]
    i = moved["stock"].index(other)
    moved["stock"][i] = card
    assert not same(observe(g, 2), observe(Game.from_dict(moved), 2))
    # ...while the same swap of an unseen card is invisible (the test above, once more here).
    hidden = copy.deepcopy(taken)
    card = unseen(hidden, 1)[0]
    other = next(c for c in hidden["stock"] if c != card)
    hidden["hands"][1].remove(card)
    hidden["hands"][1].append(other)
    hidden["stock"][hidden["stock"].index(other)] = card
    assert same(observe(g, 2), observe(Game.from_dict(hidden), 2))


def test_a_leaky_encoder_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Positive control for the comparison itself: an encoder that leaks the next player's hand
    # into the known-cards plane makes the hidden-card test fail.
    import continental_env.fifteen.aec as env_module

    real = env_module.encode_observation

    def leaky(game: Game, seat: int, layout: dict[str, slice]) -> np.ndarray:
        obs = real(game, seat, layout)
        base = layout["known_opp"].start
        obs[base : base + 53] = game.hands[(seat + 1) % game.num_players]
        return obs

    monkeypatch.setattr(env_module, "encode_observation", leaky)
    g = Game.new(num_players=3, seed=2)
    variant = Game.from_dict(swap_hidden(g.to_dict(), 0, random.Random(0)))
    assert not same(observe(g, 0), observe(variant, 0))
