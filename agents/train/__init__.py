"""Learning: MaskablePPO training (``continental train``), behaviour cloning, the KL-regularised
policy, tuning the heuristic bots' constants, and the single-learner environments they train on.

| module | what |
|---|---|
| ``sb3`` | ``continental train`` (``python -m agents.train``): the command and its run loop |
| ``config`` | its ``Config`` (every flag with its help text), the parser, the checks |
| ``checkpoints`` | its checkpoints: atomic save, the newest readable one, RNG states |
| ``warm_start`` | its behaviour-cloning warm start (``--bc-teacher``) |
| ``callback`` | its callback, stop request and vectorised environments |
| ``selfplay`` | self-play masked PPO on ``BatchGame``: every seat the current policy, one file |
| ``kl_ppo`` | MaskablePPO's policy with a KL penalty toward a frozen reference |
| ``imitation`` | behaviour cloning from a teacher bot, and the feature policy it trains |
| ``cloning`` | behaviour cloning's one update, shared by the warm start and ``imitation`` |
| ``expert`` | expert iteration: states labelled by the search (``label``), merged into a dataset (``merge``) |
| ``tune_strong`` | CMA-ES over ``strong@v2``'s constants |
| ``single_agent``, ``side_single_agent`` | one learner, the other seats played by bots by name |
| ``gym_envs`` | those environments in gymnasium's registry |

This package imports nothing on its own: torch and SB3 load only with ``sb3``, ``kl_ppo`` and
``selfplay``.
"""
