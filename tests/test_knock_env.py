"""The knock AEC environment: API conformance, seeding, pickling, spaces, masks, rewards,
rendering, the registry, and hidden information (with positive controls)."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest
from knock_helpers import knock_state
from pettingzoo.test import api_test, seed_test
from test_env_api import warnings_are_errors
from test_fifteen_env import same, swap_hidden, unseen  # the same state keys in both games

from continental_env import knock
from continental_env.knock.env import observation_layout
from continental_env.knock.game import NUM_ACTIONS, Game

SMALL = {"max_turns_per_hand": 30, "max_hands": 4}
KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


def load(env: Any, game: Game) -> None:
    """Put a hand-built engine position behind a reset environment."""
    env.unwrapped.game = game


@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_api_test_passes_with_warnings_as_errors(players: int) -> None:
    with warnings_are_errors():
        api_test(knock.env(num_players=players, **SMALL), num_cycles=300)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    with warnings_are_errors():
        seed_test(lambda: knock.env(num_players=players, **SMALL), num_cycles=200)


def test_registry_and_module_import() -> None:
    import pettingzoo

    import continental_env.knock.env  # noqa: F401  (the old module path; knock.env stays the factory)

    env = pettingzoo.make("aec", "continental/knock_v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "knock_v0" and len(env.agents) == 3
    assert knock.env(num_players=2).unwrapped.num_players == 2  # still callable


def test_env_pickles_and_reloads_with_its_arguments() -> None:
    env = knock.env(num_players=3, stake=100, reward="win", **SMALL)
    env.reset(seed=4)
    clone = pickle.loads(pickle.dumps(env))
    clone.reset(seed=4)
    env.reset(seed=4)
    assert clone.unwrapped.options == env.unwrapped.options and clone.unwrapped.reward_mode == "win"
    a, b = env.observe("player_1"), clone.observe("player_1")
    assert np.array_equal(a["observation"], b["observation"])


def test_a_running_env_pickles_and_deepcopies_with_its_game() -> None:
    env = knock.env(num_players=3, **SMALL)
    env.reset(seed=np.int64(4))  # any integer kind
    rng = random.Random(1)
    for _ in range(37):
        env.step(rng.choice(env.unwrapped.game.legal_actions()))
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()
        assert clone.agent_selection == env.agent_selection
        assert clone.unwrapped._paid == env.unwrapped._paid
        a = rng.choice(env.unwrapped.game.legal_actions())
        clone.step(a)
        assert clone.unwrapped.game.moves == env.unwrapped.game.moves + 1


def test_assigning_a_game_refreshes_the_cache_and_the_agent_to_act() -> None:
    env = knock.env(num_players=2)
    env.reset(seed=0)
    before = env.observe(env.agent_selection)["observation"].copy()
    env.unwrapped.game = Game.from_dict(knock_state(hands=[KNOCK5, LOOSE1], current=0))
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
    env = knock.env(num_players=4)
    env.reset(seed=1)
    raw = env.unwrapped
    layout = raw.observation_layout
    assert (
        layout == observation_layout(4)
        and layout["known_opp"].stop - layout["known_opp"].start == 3 * 65
    )
    obs, *_ = env.last()
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == (raw.obs_size,) and obs["action_mask"].shape == (220,)
    assert env.action_space("player_0").n == NUM_ACTIONS
    hand = obs["observation"][layout["hand"]].reshape(5, 13)
    assert hand.sum() == 10 and np.array_equal(
        obs["observation"][layout["hand"]][:53], raw.game.hands[raw.game.current]
    )
    assert obs["observation"][layout["pot"]][0] == 4.0  # 4 antes of one stake
    assert list(obs["observation"][layout["chips"]]) == [-1.0] * 4
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    assert legal == raw.game.legal_actions()
    other = next(a for a in raw.agents if a != env.agent_selection)
    assert raw.observe(other)["action_mask"].sum() == 0


def test_bad_arguments_are_refused() -> None:
    for kwargs, match in [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"stake": 3}, "stake"),
    ]:
        with pytest.raises(ValueError, match=match):
            knock.env(**kwargs)


def test_chips_rewards_count_the_ante_then_every_chip_moved() -> None:
    env = knock.env(num_players=4)
    env.reset(seed=0)
    load(env, Game.from_dict(knock_state(hands=[KNOCK5, LOOSE1, LOOSE2, LOOSE3], current=0)))
    env.step(env.unwrapped.game.action_from_str("knock"))
    raw = env.unwrapped
    # The position was loaded with the antes paid: only the knock's chips are rewarded.
    assert raw.rewards == {"player_0": 0.4, "player_1": -0.2, "player_2": -0.2, "player_3": -0.2}
    assert raw.infos["player_0"] == {"hand": 1, "points": 5, "chips": 20, "announcer": 0}
    assert raw.infos["player_1"]["announcer"] == 3  # relative seat
    env = knock.env(num_players=3)
    env.reset(seed=2)
    env.step(0)  # the first step brings the ante
    assert env.unwrapped.rewards == {"player_0": -1.0, "player_1": -1.0, "player_2": -1.0}


def test_chips_rewards_sum_to_the_net_chips_over_a_game() -> None:
    env = knock.env(num_players=3, **SMALL)
    env.reset(seed=5)
    total = {a: 0.0 for a in env.possible_agents}
    rng = random.Random(5)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    game = env.unwrapped.game
    assert game.is_over
    for seat, agent in enumerate(env.possible_agents):
        assert total[agent] == pytest.approx(game.chips[seat] / game.stake)
    assert sum(total.values()) == pytest.approx(0.0)


def test_win_reward_at_the_end_only() -> None:
    env = knock.env(num_players=3, reward="win")
    env.reset(seed=0)
    state = knock_state(hands=["AH 2H 3H 4H 5H 6H 7H 8H 9H TH", LOOSE1, LOOSE2], current=0)
    load(env, Game.from_dict(state))
    env.step(env.unwrapped.game.action_from_str("continental"))
    assert env.unwrapped.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.unwrapped.terminations.values())


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    env = knock.env(num_players=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "Knock Continental, hand 1" in text and "pot 100" in text
    env = knock.env(num_players=2, render_mode="human")
    env.reset(seed=3)
    env.step(0)
    assert "discard or announce" in capsys.readouterr().out


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = knock.env(num_players=2)
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
    env = knock.env(num_players=2, illegal="terminate")
    env.reset(seed=3)
    env.step(env.unwrapped.game.action_from_str("discard 2C"))
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="illegal='maybe'"):
        knock.env(illegal="maybe")


# ----------------------------------------------------------------------------- hidden information
# ``swap_hidden`` trades opponents' unseen cards with stock cards and reshuffles the stock and the
# generator; ``same`` compares observations and masks (shared with the fifteen-card tests).


def observe(game: Game, seat: int) -> dict[str, np.ndarray]:
    raw = knock.raw_env(num_players=game.num_players)
    raw.reset(seed=0)
    raw.game = game
    return raw.observe(f"player_{seat}")


@pytest.mark.parametrize("players", [2, 4, 6])
def test_hidden_cards_never_change_an_observation(players: int) -> None:
    rng = random.Random(players)
    g = Game.new(num_players=players, seed=players, **SMALL)
    checked = 0
    for step in range(150):
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


def test_positive_controls_own_hand_and_taken_cards_change_the_observation() -> None:
    g = Game.new(num_players=3, seed=8)
    data = g.to_dict()
    # Positive control 1: the observer's own hand is visible.
    changed = copy.deepcopy(data)
    i = next(k for k, c in enumerate(changed["stock"]) if c not in changed["hands"][1])
    changed["hands"][1][0], changed["stock"][i] = changed["stock"][i], changed["hands"][1][0]
    changed["hands"][1].sort()
    assert not same(observe(g, 1), observe(Game.from_dict(changed), 1))
    # Positive control 2: a card an opponent took from the pile is public. Seat 1 draws and
    # discards, seat 2 takes that card: seat 0 must see it among seat 2's known cards.
    g.apply(g.action_from_str("draw"))
    g.apply(g.legal_actions()[0])
    g.apply(g.action_from_str("take"))
    taken = g.to_dict()
    assert taken["known"][2]
    moved = copy.deepcopy(taken)
    card = moved["known"][2][0]
    other = next(c for c in moved["stock"] if c != card)
    moved["hands"][2].remove(card)
    moved["hands"][2].append(other)
    moved["known"][2] = [other]
    moved["stock"][moved["stock"].index(other)] = card
    assert not same(observe(g, 0), observe(Game.from_dict(moved), 0))
    # ...while the same swap of an unseen card is invisible.
    hidden = copy.deepcopy(taken)
    card = unseen(hidden, 2)[0]
    other = next(c for c in hidden["stock"] if c != card)
    hidden["hands"][2].remove(card)
    hidden["hands"][2].append(other)
    hidden["stock"][hidden["stock"].index(other)] = card
    assert same(observe(g, 0), observe(Game.from_dict(hidden), 0))


def test_a_leaky_encoder_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Positive control for the comparison itself: an encoder that leaks the next player's hand
    # into the known-cards plane makes the hidden-card test fail.
    import continental_env.knock.aec as env_module

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
