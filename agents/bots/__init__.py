"""The agent protocol and the policies that play any game: ``act(view) -> action id``.

| module | what |
|---|---|
| ``base`` | the protocol (``Agent``), ``SeededAgent`` |
| ``view`` | the one view protocol of every game (``View``) and what the views derive alike (``ViewBase``) |
| ``random_agent`` | ``random``: a uniformly random legal action, in every game |
| ``ppo_agent``, ``rllib_agent`` | trained policies of the contract game at play time (numpy forward pass, no torch) |
| ``side_policy`` | trained policies of the fifteen-card and knock games at play time |

Each game's own bots and view live in its package (``agents.contract``, ``agents.fifteen``,
``agents.knock``). Build any bot by name with ``agents.make_agent``; nothing here imports
training, evaluation or the front ends.
"""
