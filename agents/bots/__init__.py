"""The bots: every agent that plays the contract game through ``act(view) -> action id``.

| module | what |
|---|---|
| ``base`` | the protocol (``Agent``), the seat's redacted view (``PlayerView``), ``SeededAgent`` |
| ``handtools`` | hand arithmetic shared by the heuristic bots |
| ``random_agent``, ``greedy``, ``strong``, ``strong_v2`` | the heuristic bots |
| ``sampler``, ``search``, ``search_oracle`` | determinized search and its hidden-state diagnostic |
| ``ppo_agent``, ``rllib_agent`` | trained policies at play time (numpy forward pass, no torch) |

Build them by name with ``agents.make_agent``; nothing here imports training, evaluation or the
front ends.
"""
