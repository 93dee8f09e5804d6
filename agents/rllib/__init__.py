"""Scale-out: multi-agent self-play on Ray RLlib (the ``[rllib]`` extra).

| module | what |
|---|---|
| ``train`` | ``continental train-rllib`` (``python -m agents.rllib``) |
| ``bench`` | RLlib's sampling and training throughput |

A trained RLlib policy plays through ``agents.bots.rllib_agent`` (``rllib:PATH``), without Ray.
"""
