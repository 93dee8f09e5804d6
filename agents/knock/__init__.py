"""Bots for the knock game (RULES.md Part 3), on the one ``act(view) -> action id`` protocol.

``KnockView`` is what a seat may see; ``GAME`` is the game's ``GameSpec`` (scored by net chips at
the end: the ante, bonuses, buy-backs and the pot); ``make_agent(name, seed)`` builds a bot by
registry name: ``random``, ``greedy`` (``agents.knock.greedy``), ``strong``
(``agents.knock.strong``), ``ppo:PATH``.

| module | what |
|---|---|
| ``view`` | ``KnockView``: the seat's hand, chips, the pot, buy-backs, who is still in |
| ``greedy`` | minimises deadwood and knocks as soon as allowed |
| ``strong`` | races to a knock on live cards, announces at once, buys back when it pays |
| ``features`` | the derived features of ``knock_v1`` and ``knock_v2`` |
| ``text`` | the knock lines of a text agent's prompt: chips, pot, players in (``agents.text``) |
"""

from __future__ import annotations

from typing import Any

from agents.knock.view import KnockView, view_for
from agents.side_spec import SideEngine

__all__ = ["AGENT_NAMES", "KnockView", "make_agent", "view_for"]


def _fingerprint(game: Any) -> str:
    """A digest of the deal: the ten cards each seat was dealt (the tens of seats that are out
    lie at the bottom of the stock, in seat order) and the stock above them."""
    from agents.spec import digest
    from continental_env.cards import to_counts
    from continental_env.knock.game import HAND_SIZE

    tens = []
    bottom = 0
    for seat in range(game.num_players):
        if game.in_game[seat]:
            tens.append(game.hands[seat])
        else:
            tens.append(to_counts(game.stock[bottom : bottom + HAND_SIZE]))
            bottom += HAND_SIZE
    return digest(*tens, game.stock[bottom:])


GAME = SideEngine("knock", totals="chips").spec(
    KnockView, "Knock game (knock rummy, chips and a pot)", deal_fingerprint=_fingerprint
)
AGENT_NAMES = GAME.agent_names
make_agent = GAME.make_agent  # (name, seed=None): a knock bot by registry name
