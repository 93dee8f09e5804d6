"""The ``continental_v1`` observation: the v0 vector followed by the derived features.

It must equal ``agents.contract.feature_agent.feature_observation`` (the preview the first datasets and clones
were built with) entry for entry, through the environment's incremental encoder, the reference
``encode_observation`` and the single-learner environment; its layout is named; both versions are
registered; and it holds no hidden information (a deliberately leaking variant is caught).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_hidden_info import random_states, swap_hidden

import continental_env
from agents.contract.feature_agent import feature_observation
from agents.contract.view import PlayerView
from continental_env.contract.aec import (
    ObservationEncoder,
    encode_observation,
    observation_layout,
    observation_size,
)
from continental_env.contract.features import feature_layout
from continental_env.contract.game import Game


def played(preset: str, players: int, seed: int, every: int) -> list[Game]:
    """Positions of a random game (clones), every few actions, the last round's end included."""
    rng = random.Random(seed)
    game = Game.new(preset, players, seed=seed)
    out = []
    step = 0
    while not game.is_over:
        if step % every == 0:
            out.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        step += 1
    out.append(game)
    return out


@pytest.mark.parametrize("players", [2, 4, 8])
def test_the_layout_is_v0_then_the_features(players: int) -> None:
    v0, v1 = observation_layout(players, 0), observation_layout(players, 1)
    base = observation_size(v0)
    assert list(v1)[: len(v0)] == list(v0) and all(v1[k] == v0[k] for k in v0)
    for name, sl in feature_layout(players).items():
        assert v1[name] == slice(base + sl.start, base + sl.stop)
    stop = 0
    for sl in v1.values():  # contiguous, no gap or overlap
        assert sl.start == stop
        stop = sl.stop
    assert observation_size(v1) == stop
    if players == 4:
        assert (base, stop) == (745, 1827)


@pytest.mark.parametrize(
    ("preset", "players"), [("continental", 4), ("continental_us", 3), ("continental_es", 2)]
)
def test_v1_equals_the_preview_feature_observation(preset: str, players: int) -> None:
    layout = observation_layout(players, 1)
    encoder = ObservationEncoder(players, 1)
    positions = played(preset, players, seed=players, every=29)
    random.Random(0).shuffle(positions)  # unrelated positions in turn: nothing may carry over
    for game in positions:
        for seat in range(players):
            expected = feature_observation(game, seat)
            assert np.array_equal(encode_observation(game, seat, layout), expected)
            got = encoder.encode(game, seat)
            assert got.dtype == np.float32 and np.array_equal(got, expected)
            if not game.is_over and seat == game.actor:  # what a v1 ppo:PATH agent observes
                assert np.array_equal(PlayerView(game, seat).observation(1), expected)


def test_the_environment_serves_v1_with_its_spaces_and_name() -> None:
    env = continental_env.env(num_players=4, version=1)
    env.reset(seed=3)
    raw = env.unwrapped
    assert raw.metadata["name"] == "continental_v1" and raw.obs_size == 1827
    rng = random.Random(3)
    for _ in range(300):
        agent = env.agent_selection
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert np.array_equal(
            obs["observation"], feature_observation(raw.game, raw.agent_name_mapping[agent])
        )
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    v0 = continental_env.env(num_players=4)
    assert v0.unwrapped.metadata["name"] == "continental_v0" and v0.unwrapped.obs_size == 745


def test_both_versions_are_registered() -> None:
    import pettingzoo

    import continental_env.contract.aec  # noqa: F401  (registers both names)

    for version in (0, 1):
        env = pettingzoo.make("aec", f"continental/continental_v{version}")
        env.reset(seed=0)
        assert env.unwrapped.version == version


def test_a_bad_version_is_refused_with_its_value() -> None:
    for bad in (2, "1", None, True):
        with pytest.raises(ValueError, match=f"version={bad!r}"):
            continental_env.raw_env(version=bad)


def test_the_single_learner_env_serves_v1_through_the_encoder() -> None:
    from agents.train.single_agent import make_env

    env = make_env(opponents=["greedy"], num_players=3, version=1, seed=2)
    assert env.observation_space.shape == (1573,) and env.observation_space.dtype == np.float32
    assert env.observation_space.low.min() == -np.inf  # the bounds the preview models have
    obs, _ = env.reset(seed=2)
    for _ in range(60):
        assert np.array_equal(obs, feature_observation(env.game, env.learner))
        legal = np.flatnonzero(env.action_masks())
        obs, _, done, _, _ = env.step(int(legal[0]))
        if done:
            obs, _ = env.reset()
    assert make_env(opponents=["greedy"], features=True).version == 1  # the alias


# ----------------------------------------------------------------------------- hidden information


def observe(game: Game, seat: int) -> np.ndarray:
    return encode_observation(game, seat, observation_layout(game.num_players, 1))


def leaky(game: Game, seat: int) -> np.ndarray:
    """A deliberately leaking variant: the next seat's hand counted in ``unseen``'s place."""
    out = observe(game, seat)
    sl = observation_layout(game.num_players, 1)["unseen"]
    out[sl] = game.hands[(seat + 1) % game.num_players]
    return out


def leaks(encode, states: list[Game], seed: int) -> int:
    rng = random.Random(seed)
    found = varied = 0
    for game in states:
        data = game.to_dict()
        for seat in range(game.num_players):
            variant = swap_hidden(data, seat, rng)
            other = Game.from_dict(variant)
            varied += variant["hands"] != data["hands"]
            found += not np.array_equal(encode(game, seat), encode(other, seat))
    assert varied, "the variants never differed: the check would prove nothing"
    return found


@pytest.mark.parametrize(
    ("preset", "players"), [("continental", 4), ("continental_us", 3), ("continental_es", 2)]
)
def test_hidden_cards_do_not_change_the_v1_observation(preset: str, players: int) -> None:
    states = random_states(preset, players, seed=players + 10, count=12)
    assert sum(bool(g.public_log.items) for g in states) > len(states) // 2  # histories seen
    assert leaks(observe, states, seed=1) == 0
    assert leaks(leaky, states, seed=1) > 0  # positive control: the check catches a leak
