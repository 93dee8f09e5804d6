"""Play: the terminal table (``continental play``) and the demo.

| module | what |
|---|---|
| ``terminal`` | a game in the terminal against bots (``python -m agents.play``) |
| ``demo`` | one game between bots, then a short evaluation (``python -m agents.demo``) |
"""
