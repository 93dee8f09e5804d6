"""The three games as single-agent environments in gymnasium's registry.

| id | game | environment |
|---|---|---|
| ``continental/Contract-v1`` | the contract game (``RULES.md`` Part 1) | ``continental_env.single_agent.SingleAgentContinental``, observation ``continental_v1`` |
| ``continental/Fifteen-v0`` | the fifteen-card game (Part 2) | ``continental_env.single_agent.SingleAgentSideGame``, observation ``fifteen_v0`` |
| ``continental/Knock-v0`` | the knock game (Part 3) | the same class, observation ``knock_v0`` |

```python
import gymnasium
env = gymnasium.make("agents.train.gym_envs:continental/Knock-v0", opponents=["strong"], stake=50)
# or: import agents.train.gym_envs; gymnasium.make("continental/Knock-v0", ...)
obs, info = env.reset(seed=0)
mask = env.unwrapped.action_masks()
```

Every id takes ``opponents=`` (bot names of that game, ``"self"``, bot objects or opponent
callables; default ``["greedy"]``), ``illegal="raise"`` (an illegal action raises ValueError and
changes nothing) or ``illegal="terminate"`` (it ends the episode with reward ``illegal_reward``,
-1 by default: what ``gymnasium.utils.env_checker.check_env`` and SB3's ``check_env`` need, as
they step unmasked random actions), ``num_players``, ``seed`` and the game's options (contract:
``preset``, ``rounds``, ``round_episodes``, ``reward``; fifteen: ``target``, ``hands``,
``max_turns_per_hand``, ``max_hands``; knock: ``stake``, ``max_turns_per_hand``, ``max_hands``).
The side games' ids also take ``features=`` (True: ``fifteen_v1`` / ``knock_v1``; ``"v2"``:
``knock_v2``; ``agents.side_features``).
``action_masks()`` on the unwrapped environment gives the learner's legal actions (sb3-contrib's
MaskablePPO finds it through gymnasium's wrappers). The registration lives here, beside the bots,
because names in ``opponents`` are built by ``agents.make_agent``; the environment classes
themselves take opponent callables and never import the bots.
"""

from __future__ import annotations

from typing import Any

import gymnasium

IDS = {
    "contract": "continental/Contract-v1",
    "fifteen": "continental/Fifteen-v0",
    "knock": "continental/Knock-v0",
}


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
    """Add the three ids to gymnasium's registry (once)."""
    for game, env_id in IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=f"agents.train.gym_envs:make_{game}")


register()
