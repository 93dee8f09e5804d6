"""The three games as single-agent environments in gymnasium's registry.

| id | game | environment |
|---|---|---|
| ``continental/Contract-v1`` | the contract game (``RULES.md`` Part 1) | ``continental_env.single_agent.SingleAgentContinental``, observation ``continental_v1`` |
| ``continental/Fifteen-v0`` | the fifteen-card game (Part 2) | ``continental_env.single_agent.SingleAgentSideGame``, observation ``fifteen_v0`` |
| ``continental/Knock-v0`` | the knock game (Part 3) | the same class, observation ``knock_v0`` |

```python
import continental_env  # registers the ids (continental_env.registry)
import gymnasium
env = gymnasium.make("continental/Knock-v0", opponents=["strong"], stake=50)
obs, info = env.reset(seed=0)
mask = env.unwrapped.action_masks()

from stable_baselines3.common.env_util import make_vec_env
venv = make_vec_env("continental/Knock-v0", n_envs=4)
```

Every id takes ``opponents=`` (bot names of that game, ``"self"``, bot objects or opponent
callables; default ``["greedy"]``), ``illegal="raise"`` (an illegal action raises ValueError and
changes nothing) or ``illegal="terminate"`` (it ends the episode with reward ``illegal_reward``,
-1 by default: what ``gymnasium.utils.env_checker.check_env`` and SB3's ``check_env`` need, as
they step unmasked random actions), ``num_players``, ``seed``, ``render_mode`` (``"ansi"`` or
None; another mode is refused with an error that is a ValueError and a TypeError, so that SB3's
``make_vec_env``, which offers ``"rgb_array"`` and retries without it on a TypeError, makes them)
and the game's options (contract:
``preset``, ``rounds``, ``round_episodes``, ``reward``; fifteen: ``target``, ``hands``,
``max_turns_per_hand``, ``max_hands``; knock: ``stake``, ``max_turns_per_hand``, ``max_hands``).
The side games' ids also take ``features=`` (True: ``fifteen_v1`` / ``knock_v1``; ``"v2"``:
``knock_v2``; ``agents.side_features``).
``action_masks()`` on the unwrapped environment gives the learner's legal actions (sb3-contrib's
MaskablePPO finds it through gymnasium's wrappers). The factories live here, beside the bots,
because names in ``opponents`` are built by ``agents.make_agent``; the environment classes
themselves take opponent callables and never import the bots. ``continental_env`` registers the
ids (``continental_env.registry.GYM_IDS``, string entry points to these factories) when it is
imported.
"""

from __future__ import annotations

from typing import Any

from continental_env.registry import GYM_IDS, register_gym_envs

# game -> its id (the factory ``make_<game>`` is the id's entry point)
IDS = {entry.rpartition(":make_")[2]: env_id for env_id, entry in GYM_IDS.items()}


def make_contract(opponents: Any = ("greedy",), **kwargs: Any) -> Any:
    """``continental/Contract-v1``: the contract game's learner seat, observation v1."""
    from agents.train.single_agent import make_env

    kwargs.setdefault("version", 1)
    return make_env(opponents=opponents, **kwargs)


def make_fifteen(opponents: Any = ("greedy",), **kwargs: Any) -> Any:
    """``continental/Fifteen-v0``: the fifteen-card game's learner seat."""
    from agents.train.side_single_agent import make_env

    return make_env(game="fifteen", opponents=opponents, **kwargs)


def make_knock(opponents: Any = ("greedy",), **kwargs: Any) -> Any:
    """``continental/Knock-v0``: the knock game's learner seat."""
    from agents.train.side_single_agent import make_env

    return make_env(game="knock", opponents=opponents, **kwargs)


def register() -> None:
    """Add the three ids to gymnasium's registry (once; ``continental_env`` does it on import)."""
    register_gym_envs()


register()
