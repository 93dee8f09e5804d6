"""Play: the terminal table (``continental play``) and the demo.

| module | what |
|---|---|
| ``table`` | the terminal table of any game with a ``GameSpec`` |
| ``contract`` | the contract game's words in the terminal, and ``continental play`` itself (``--game``) |
| ``fifteen`` | the fifteen-card game's words in the terminal |
| ``knock`` | the knock game's words in the terminal |
| ``demo`` | one game between bots, then a short evaluation (``python -m agents.demo``) |
"""
