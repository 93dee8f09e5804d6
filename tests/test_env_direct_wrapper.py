"""``DirectOrderEnforcingWrapper`` behaves as PettingZoo's ``OrderEnforcingWrapper``.

Its ``last()``, ``observe()``, ``step()`` and ``agent_iter()`` skip the wrappers that only pass
a call on, after the first reset. Checked here against PettingZoo's own wrapper over the same
stack: the same errors before reset, the same ``last()`` tuples and agents through whole
seeded games (both illegal-action modes), the same order check in ``agent_iter``, and a
wrapper with its own ``observe`` (``TerminateIllegalWrapper``) still sees every observation.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import continental_env
from continental_env.card_game_env import DirectOrderEnforcingWrapper
from continental_env.contract.aec import raw_env


def pair(illegal: str) -> tuple[Any, Any]:
    """(our wrapped env, PettingZoo's plain OrderEnforcingWrapper over the same stack)."""
    ours = continental_env.env(num_players=3, version=1, illegal=illegal)
    plain = wrappers.OrderEnforcingWrapper(
        continental_env.env(num_players=3, version=1, illegal=illegal).env
    )
    assert isinstance(ours, DirectOrderEnforcingWrapper)
    assert type(plain) is wrappers.OrderEnforcingWrapper
    return ours, plain


def error_of(call: Any) -> tuple[type, str]:
    with pytest.raises(BaseException) as info:
        call()
    return info.type, str(info.value)


def test_before_reset_every_call_keeps_pettingzoos_error() -> None:
    ours, plain = pair("raise")
    for name in ("last", "agent_iter", "state"):
        assert error_of(getattr(ours, name)) == error_of(getattr(plain, name)), name
    assert error_of(lambda: ours.observe("player_0")) == error_of(lambda: plain.observe("player_0"))
    assert error_of(lambda: ours.step(0)) == error_of(lambda: plain.step(0))
    assert error_of(lambda: ours.agent_selection) == error_of(lambda: plain.agent_selection)


@pytest.mark.parametrize("illegal", ["raise", "terminate"])
def test_whole_games_read_the_same_as_through_pettingzoos_wrapper(illegal: str) -> None:
    ours, plain = pair(illegal)
    for seed in (0, 1):
        rng = random.Random(seed)
        seen = []
        for env in (ours, plain):
            env.reset(seed=seed)
            rng.seed(seed)
            trace = []
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                again = env.observe(agent)
                trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
                trace.append((reward, term, trunc, dict(info), again["observation"].tobytes()))
                if term or trunc:
                    env.step(None)
                    continue
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[rng.randrange(len(legal))]))
            seen.append(trace)
        assert seen[0] == seen[1]
        assert len(seen[0]) > 200


def test_agent_iter_still_asks_for_a_step_between_agents() -> None:
    ours, plain = pair("raise")
    for env in (ours, plain):
        env.reset(seed=3)
        agents = iter(env.agent_iter())
        next(agents)
        with pytest.raises(AssertionError, match="need to call step"):
            next(agents)
    for env in (ours, plain):
        env.reset(seed=3)
        assert list(env.agent_iter(max_iter=0)) == []


def test_a_wrapper_with_its_own_observe_still_sees_each_observation() -> None:
    """``TerminateIllegalWrapper`` records the last observation (its ``observe``) to judge an
    illegal action by its mask: ``last()`` goes through it."""
    env = continental_env.env(num_players=2, illegal="terminate")
    inner = env.env.env  # under ExplainedOutOfBoundsWrapper
    assert isinstance(inner, wrappers.TerminateIllegalWrapper)
    assert env._observer is inner
    env.reset(seed=0)
    obs, *_ = env.last()
    assert inner._prev_obs is obs
    agent = env.agent_selection
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the wrapper announces the illegal move with a warning
        env.step(illegal)
    assert env.unwrapped.rewards[agent] == -1
    assert all(env.unwrapped.terminations.values())


def test_observe_goes_to_the_raw_env_when_the_wrappers_only_pass_it_on() -> None:
    env = continental_env.env(num_players=2)
    assert env._observer is env.unwrapped
    assert isinstance(env.unwrapped, raw_env)
