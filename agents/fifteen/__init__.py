"""Bots for the fifteen-card game (RULES.md Part 2), on the one ``act(view) -> action id`` protocol.

``FifteenView`` is what a seat may see; ``GAME`` is the game's ``GameSpec`` (built by
``agents.side_spec.SideEngine``); ``make_agent(name, seed)`` builds a bot by registry name
(``agents.registry``): ``random`` (``agents.bots.random_agent.RandomAgent`` on this view),
``greedy`` (``agents.fifteen.greedy``), ``strong`` (``agents.fifteen.strong``), ``ppo:PATH``.

| module | what |
|---|---|
| ``view`` | ``FifteenView``: the seat's hand, the pile, known pickups, scores |
| ``greedy`` | builds toward a legal going-out shape, no look-ahead, no memory |
| ``strong`` | races to a legal shape on the cards still live and cashes the bonuses |
| ``features`` | the derived features of ``fifteen_v1`` |
| ``text`` | the fifteen-card lines of a text agent's prompt (``agents.text``) |
"""

from __future__ import annotations

from typing import Any

from agents.fifteen.view import FifteenView, view_for
from agents.side_spec import SideEngine
from agents.spec import digest

__all__ = ["AGENT_NAMES", "FifteenView", "make_agent", "view_for"]


def _fingerprint(game: Any) -> str:
    """A digest of the deal: every hand, the up-card and the stock."""
    return digest(*game.hands, game.discard, game.stock)


GAME = SideEngine("fifteen", totals="scores").spec(
    FifteenView, "Fifteen-card game (sequences, chips)", deal_fingerprint=_fingerprint
)
AGENT_NAMES = GAME.agent_names
make_agent = GAME.make_agent  # (name, seed=None): a fifteen-card bot by registry name
