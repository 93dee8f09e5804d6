"""Scale-out: multi-agent self-play on Ray RLlib (the ``[rllib]`` extra).

| module | what |
|---|---|
| ``train`` | ``continental train-rllib`` (``python -m agents.rllib``): checkpoints, the run loop |
| ``config`` | its flags, their checks, the ``PPOConfig`` |
| ``env`` | the environment (frozen seats played inside it) and the seat roles |
| ``policy`` | the learner's actor exported for ``rllib:PATH``; the self-play pool |
| ``bench`` | RLlib's sampling and training throughput |

A trained RLlib policy plays through ``agents.bots.rllib_agent`` (``rllib:PATH``), without Ray.
"""
