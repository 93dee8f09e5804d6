"""``PlayerView``: what one seat of a contract game may see, copied out at construction.

Its own hand, the table, the discard pile, cards other seats are publicly known to hold, sizes
and scores. Hidden cards (the stock order, opponents' unrevealed cards, penalty cards) are not
reachable through it; a test checks that no bot's decision changes when they change.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from agents.bots.view import ViewBase
from continental_env.contract.game import Game
from continental_env.contract.public_log import PublicLog
from continental_env.contract.state import State
from continental_env.melds import Meld
from continental_env.rules import RuleConfig

if TYPE_CHECKING:
    import numpy as np

    from continental_env.contract.aec import ObservationEncoder


class PlayerView(ViewBase):
    """What seat ``seat`` may see of a game, copied out of the engine at construction.

    The view holds a redacted copy of the position (``State.redacted``) and nothing else of the
    game: the hidden fields (other hands' unseen cards, the stock's order, the generator, the
    deal seeds) are not reachable through it. The copy costs a few shallow list copies: hidden
    fields are built empty rather than copied, and the generator is a shared placeholder that
    draws nothing. A bot may change the view's lists freely; the game does not see it.
    """

    def __init__(self, game: Game, seat: int, *, redact: bool = True) -> None:
        # A copy of the position with everything this seat may not see emptied out: which fields
        # are hidden is declared once, on the fields of ``continental_env.contract.state.State``.
        # ``redact=False`` reads the position in place instead (``in_world``).
        state = game.state.redacted(seat) if redact else game.state
        if redact:
            _rekey_log(game, state)
        self.seat = seat
        self.num_players = game.num_players
        self.rules: RuleConfig = game.rules
        self.round = state.round
        self.phase = state.phase
        self.current = state.current
        self.asked = state.asked
        self.dealer = state.dealer
        self.contract = game.contract
        self.hand: list[int] = state.hands[seat]  # counts per card type
        self.hand_size = state.hand_sizes[seat]
        self.table: list[Meld] = state.table
        self.discard: list[int] = state.discard  # face-up pile, top last
        self.seen_discards: list[int] = state.seen_discards
        self.known: list[list[int]] = state.known
        self.hand_sizes: list[int] = state.hand_sizes
        self.laid_down: list[bool] = state.laid_down
        self.scores: list[int] = state.scores
        self.claims: list[int] = state.claims
        self.stock_size = len(state.stock)
        self.turn = state.turn
        self.layout = game.layout
        self.points = game.points
        # Legal actions depend only on the actor's own hand and public state.
        self.legal_actions: list[int] = list(game.legal_actions()) if game.actor == seat else []
        self._setup = game.setup
        self._state = state  # the redacted position (the sampled world itself for in_world)
        self._observations: dict[int, np.ndarray] = {}

    @classmethod
    def in_world(cls, world: Game, seat: int) -> PlayerView:
        """A view of a *sampled* world that reads its position in place, without the copy.

        For the search bot's rollouts only: every hidden card of ``world`` was itself sampled
        from the searching seat's information, so there is nothing to hide, and the rollout
        bots (``strong``, ``greedy``) only read a view, never change it. Their decisions do not
        depend on the hidden fields (``tests/test_hidden_info.py``), so this gives the same
        moves as ``PlayerView(world, seat)`` without copying the position at every decision.
        """
        return cls(world, seat, redact=False)

    @property
    def public_log(self) -> PublicLog:
        """The round's public action log (who discarded, declined, claimed what), as everyone saw it."""
        return self._state.public_log

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        return self.layout.to_str(action)

    def observation(self, version: int = 0) -> np.ndarray:
        """The environment's observation vector for this seat (``continental_env.env``) of an
        observation version (0: ``continental_v0``, 1: ``continental_v1``)."""
        obs = self._observations.get(version)
        if obs is None:
            # The redacted position as a game: the encoder reads only the seat's own hand and
            # public state, so this is the live game's vector (tests/test_agents.py checks it).
            # The environment's incremental encoder, shared per table size and version, gives
            # ``encode_observation``'s vector (tests/test_observation*.py) in a fresh array.
            game = Game.from_state(self._setup, self._state)
            encoder = _encoder(self.num_players, version)
            obs = self._observations[version] = encoder.encode(game, self.seat)
        return obs

    def action_mask(self) -> np.ndarray:
        """int8 mask of the legal actions."""
        import numpy as np

        mask = np.zeros(self.layout.num_actions, dtype=np.int8)
        mask[self.legal_actions] = 1
        return mask


def _rekey_log(game: Game, state: State) -> None:
    """Key the redacted copy's public log by the redacted deal seeds.

    A log's key names its round by the round's deal seed, which is hidden (it fixes the deal):
    the copy gets the key of its own, redacted, position when the log is the current round's,
    and no key otherwise, so that its entries stay readable and the seed unreachable.
    """
    log = state.public_log
    live = PublicLog.key_for(game.state.round_index, game.state.deal_seeds)
    log.key = PublicLog.key_for(state.round_index, state.deal_seeds) if log.key == live else None


@functools.cache
def _encoder(num_players: int, version: int) -> ObservationEncoder:
    from continental_env.contract.aec import ObservationEncoder

    return ObservationEncoder(num_players, version)


def _redacted(game: Game, seat: int) -> Game:
    """A copy of the game with everything ``seat`` cannot see emptied out (``State.redacted``).

    Opponents' hands keep only their publicly known cards, the stock holds placeholder cards
    (only its size is public), the generator and deal seeds are reset.
    """
    return Game.from_state(game.setup, game.state.redacted(seat))


def view_for(game: Game, seat: int | None = None) -> PlayerView:
    """The view of the seat to act (or of ``seat``)."""
    return PlayerView(game, game.actor if seat is None else seat)


__all__ = ["PlayerView", "view_for"]
