"""The knock game engine: one game's state, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 3 (seed 002, "Continental", the Italian-origin knock rummy),
played by a pure engine in the shape of ``continental_env.side``: no gymnasium, no numpy, seats
as ints, and a deterministic deal of every hand from that hand's own seed.

Money is counted in chips and kept per seat as *net* chips (``chips``: the ante makes everyone
start at ``-stake``) plus the ``pot``; ``sum(chips) + pot == 0`` at every moment and the pot is
empty once the game is over. Points (``scores``) are each seat's running total, lower is better.

Specifications of this implementation (where the source leaves a choice to the software):

* The dealer of hand 1 is seat 0; each later hand is dealt by the next seat to the left that is
  still in, and the next seat still in after the dealer plays first. Every player still in gets
  10 cards, seat ``s`` the ``s``-th ten from the top of the shuffled deck whoever deals, and the
  tens of seats that are out go to the bottom of the stock: in duplicate deals a seat gets the
  same cards in a hand whatever earlier hands did. There is no up-card. The jokers are set by the table size at the start (4 up to 4
  players, else one per player) and stay so when players are eliminated.
* A player may announce (``knock``, ``rummy``, ``color``, ``continental``) at the start of any
  turn, their first turn of the hand included; the announcements are offered only when the
  hand qualifies (deadwood with aces 1 at most 5; every card in lays; every natural of one suit,
  jokers counting as that suit; the 10 cards one lay). Several may qualify; the player chooses.
* Bonuses are paid by every other player who played the hand, including one the hand itself
  eliminates. Heads-up the only other player is the pot-payer, so the bonus goes to the pot.
* Stake ``S`` must be a multiple of 5, so the bonuses (0.2, 0.4, 0.8 ``S``) are whole chips. A
  pot shared by several winners is split evenly; the chips that do not divide go one each to
  the winners in seat order.
* After a hand, in this order: points are added; totals over 100 are eliminated; one player
  left wins the pot (if the hand put every player left over 100, the lowest totals among them
  share it); two left within 10 points split it; the ``max_hands``-th hand ends the game with
  the lowest totals among the players still in sharing the pot; otherwise the players still in
  with a total over 80 (and at most 100) who have two other players still in answer ``buy`` or
  ``pass`` in seat order (phase ``buy``), and the next hand is dealt. A buy-back is offered
  only when it lowers the total (the second-lowest total among the others is below the
  player's own): "buying down" in the source.
* A hand's cards are shown and recorded in ``hand_history`` when it ends (``shown``, with each
  hand's deadwood and the announcer's lays); outside a hand (phase ``buy``, ``game_over``) the
  hands, stock and discard pile are empty.
* A draw from an empty stock re-forms it from the discard pile under its top card, shuffled; if
  nothing is left to re-form it, or after ``max_turns_per_hand`` discards, the hand ends with no
  announcer: everyone scores their deadwood (aces 15) and no bonus is paid. This bounds every
  game (see ``max_game_length``). At 2-6 players the first case cannot arise (hands hold at most
  61 of the 108-110 cards, so the pile always re-forms a stock); the rule is kept as written.

Parameters (``Game.new``):

| parameter | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-6; 2 decks plus 4 jokers (5 players: 5, 6 players: 6) |
| ``seed`` | None | the deals of every hand |
| ``stake`` | 50 | the ante ``S`` (a positive multiple of 5); bonuses 0.2 / 0.4 / 0.8 ``S``, buy-backs ``S``, ``2S``, ``4S`` ... |
| ``max_turns_per_hand`` | 200 | safety net: a hand ends with no announcer after this many discards |
| ``max_hands`` | 100 | safety net: the game ends after this many hands, the lowest total winning |

Action ids (the same 220 for every table size):

| ids | text | meaning |
|---|---|---|
| 0 | ``draw`` | draw the top stock card |
| 1 | ``take`` | take the top discard |
| 2 | ``knock`` | start of a turn: end the hand, deadwood (aces 1) at most 5 |
| 3 | ``rummy`` | start of a turn: end the hand, all 10 cards in lays |
| 4 | ``color`` | start of a turn: end the hand, all 10 of one suit |
| 5 | ``continental`` | start of a turn: end the game, the 10 cards are one lay |
| 6 | ``buy`` | buy back to the second-lowest total among the others |
| 7 | ``pass`` | do not buy back |
| 8 .. 60 | ``discard C`` | discard card type C (0..52), end the turn |
| 61 .. 113 | ``rummy C`` | discard C, announce rummy with the 10 left |
| 114 .. 166 | ``color C`` | discard C, announce color with the 10 left |
| 167 .. 219 | ``continental C`` | discard C, announce continental with the 10 left |
"""

from __future__ import annotations

import random
from typing import Any

from continental_env.cards import (
    JOKER,
    NUM_NATURALS,
    NUM_TYPES,
    card_to_str,
    format_cards,
)
from continental_env.engine import state_field
from continental_env.knock.state import (
    BUY,
    COLOR,
    COLOR_BASE,
    CONTINENTAL,
    CONTINENTAL_BASE,
    DECKS,
    DISCARD_BASE,
    DRAW,
    HAND_SIZE,
    KNOCK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    PASS,
    RUMMY,
    RUMMY_BASE,
    TAKE,
    Phase,
    Setup,
    State,
    jokers_for,
)
from continental_env.knock.state_check import (
    BUY_BACK_OVER,
    ELIMINATED_OVER,
    LABEL,
    buy_back_total,
    may_buy,
    players_in,
)
from continental_env.knock.state_check import CHECKS as LOAD_CHECKS
from continental_env.melds import (
    best_lays,
    color_discards,
    continental_discards,
    deadwood,
    deadwood_within,
    is_color,
    is_continental,
    is_rummy,
    rummy_discards,
)
from continental_env.side import ActionTexts, SideGame

WORDS = ("draw", "take", "knock", "rummy", "color", "continental", "buy", "pass")
ACTIONS = ActionTexts(WORDS, ("discard", "rummy", "color", "continental"))
CARD_ACTIONS = tuple(ACTIONS.bases.items())  # (word, first id) of each card action
action_to_str = ACTIONS.to_str  # the table is in the module docstring
action_from_str = ACTIONS.from_str
PHASES = tuple(Phase)  # the phases, each equal to its JSON string
DRAW_PHASE, PLAY_PHASE, BUY_PHASE, GAME_OVER = Phase

KNOCK_LIMIT = 5  # deadwood (aces 1) at most this to knock
SPLIT_WITHIN = 10
RUMMY_POINTS = -10
COLOR_POINTS = -25
JOKER_RUMMY = 3  # a rummy with this many jokers or more earns a knock bonus per joker
# Bonuses in fifths of the stake: knock 0.2 S, rummy 0.4 S, color 0.8 S.
BONUS_FIFTHS = {"knock": 1, "rummy": 2, "color": 4}


def bonus(kind: str, stake: int, jokers: int = 0) -> int:
    """Chips each other player pays for an announcement (``knock``, ``rummy``, ``color``).

    ``jokers`` counts the jokers among a rummy's 10 cards: with 3 or more, each earns a knock
    bonus on top.
    """
    fifth = stake // 5
    extra = fifth * jokers if kind == "rummy" and jokers >= JOKER_RUMMY else 0
    return fifth * BONUS_FIFTHS[kind] + extra


def buy_cost(stake: int, buys_before: int) -> int:
    """What a buy-back costs: S the first time, 2S the second, 4S the third ..."""
    return stake * 2**buys_before


class Game(SideGame):
    """One game of the knock game. Build it with ``Game.new``; see the module docstring."""

    STATE, SETUP, ACTIONS = State, Setup, ACTIONS
    DRAW_PHASE, PLAY_PHASE, GAME_OVER = DRAW_PHASE, PLAY_PHASE, GAME_OVER
    STATE_CHECKS, LABEL = LOAD_CHECKS, LABEL  # state_check.py: the loader's relations, the name
    # This game's options (and the jokers they imply), bound on the game by ``SideGame._attach``.
    SETUP_ATTRIBUTES = ("stake", "jokers")
    stake: int
    jokers: int

    # The position's fields are declared in ``state.py``; ``SideGame`` has the ones both games
    # share (the piles, hands, turn, scores, history ...), these are this game's own.
    in_game = state_field("in_game", "whether each seat is still in the game", True)
    chips = state_field("chips", "each seat's net chips", True)
    pot = state_field("pot", "chips in the pot", True)
    buys = state_field("buys", "buy-backs each seat has made", True)
    buyers = state_field("buyers", "in phase buy, the seats still to answer", True)
    result = state_field("result", "how the game ended, once over", True)

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        num_players: int = 4,
        seed: int | None = None,
        stake: int = 50,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
    ) -> Game:
        """A new game with the antes in the pot and the first hand dealt; the same seed deals
        the same cards."""
        game = cls(
            num_players, stake=stake, max_turns_per_hand=max_turns_per_hand, max_hands=max_hands
        )
        return game._start(seed)

    @property
    def max_game_length(self) -> int:
        """A proven upper bound on the actions of one game.

        A hand ends at its ``max_turns_per_hand``-th discard at the latest, and every turn is a
        draw and a discard (two actions), or one announcement or one draw that ends the hand:
        at most ``2 * max_turns_per_hand`` actions per hand. Between two hands each seat answers
        ``buy`` or ``pass`` at most once: ``num_players`` more. A game has at most ``max_hands``
        hands.
        """
        return (2 * self.max_turns_per_hand + self.num_players) * self.max_hands

    def _next_in(self, seat: int) -> int:
        """The next seat to the left of ``seat`` that is still in the game."""
        p = self.num_players
        in_game = self.state.in_game
        for k in range(1, p + 1):
            s = (seat + k) % p
            if in_game[s]:
                return s
        raise AssertionError("no player is still in")  # the game ends before this can happen

    def _next_hand(self) -> None:
        """The next seat still in deals the next hand."""
        s = self.state
        s.hand_index += 1
        s.dealer = self._next_in(s.dealer)
        self._deal()

    def _deal(self) -> None:
        s = self.state
        p = self.num_players
        s.reset_round(self.setup)
        s.rng = random.Random(s.deal_seeds[s.hand_index])
        deck = [c for c in range(NUM_NATURALS) for _ in range(DECKS)] + [JOKER] * self.jokers
        s.rng.shuffle(deck)
        set_aside: list[int] = []
        for seat in range(p):  # seat s gets the s-th ten cards from the top, whoever deals
            cards = deck[len(deck) - HAND_SIZE :]
            del deck[len(deck) - HAND_SIZE :]
            if s.in_game[seat]:
                for c in cards:
                    s.hands[seat][c] += 1
            else:
                set_aside += cards
        s.stock = set_aside + deck  # the cards of seats that are out go to the bottom
        s.current = self._next_in(s.dealer)
        s.phase = DRAW_PHASE
        self._invalidate()

    # ------------------------------------------------------------------ queries

    # ``is_over``, ``actor``, ``hand_cards``, ``hand_size`` and the action texts are
    # ``SideGame``'s.

    @property
    def players_in(self) -> list[int]:
        """Seats still in the game."""
        return players_in(self.state)

    def winners(self) -> list[int]:
        """Seats that won (or shared) the pot; empty while the game runs."""
        result = self.state.result
        return [] if result is None else list(result["winners"])

    def buy_back_total(self, seat: int) -> int:
        """The total a buy-back sets: the second-lowest among the other players still in."""
        return buy_back_total(self.state, seat)

    # ------------------------------------------------------------------ legal actions

    def _other_legal_actions(self) -> list[int]:
        """Between hands (phase ``buy``): buy back or pass."""
        return [BUY, PASS] if self.state.phase == BUY_PHASE else []

    def _draw_legal_actions(self) -> list[int]:
        s = self.state
        hand = s.hands[s.current]
        legal = [DRAW]
        if s.discard:
            legal.append(TAKE)
        if deadwood_within(hand, KNOCK_LIMIT, ace=1):
            legal.append(KNOCK)
        if is_rummy(hand):
            legal.append(RUMMY)
        if is_color(hand):
            legal.append(COLOR)
        if is_continental(hand):
            legal.append(CONTINENTAL)
        return legal

    def _discard_announcements(self, hand: list[int]) -> list[int]:
        legal = [RUMMY_BASE + c for c in rummy_discards(hand)]
        legal += [COLOR_BASE + c for c in color_discards(hand)]
        legal += [CONTINENTAL_BASE + c for c in continental_discards(hand)]
        return legal

    # ------------------------------------------------------------------ applying actions

    def _perform_own(self, action: int, seat: int) -> None:
        """An announcement, a buy-back answer or a discard (``SideGame._perform`` draws)."""
        if action in (KNOCK, RUMMY, COLOR, CONTINENTAL):
            self._end_hand(seat, WORDS[action])
        elif action in (BUY, PASS):
            self._answer(seat, action == BUY)
        else:
            kind, base = CARD_ACTIONS[(action - DISCARD_BASE) // NUM_TYPES]
            card = action - base
            self._lay_discard(seat, card)
            if kind == "discard":
                self._end_turn(seat)
            else:
                self._end_hand(seat, kind, discarded=card)

    def _end_turn(self, seat: int) -> None:
        s = self.state
        s.turn += 1
        if s.turn >= self.max_turns_per_hand:
            self._end_hand(None, "turn_limit")
            return
        s.current = self._next_in(seat)
        s.phase = DRAW_PHASE

    # ------------------------------------------------------------------ the end of a hand

    def _end_hand(self, announcer: int | None, end: str, discarded: int | None = None) -> None:
        s = self.state
        players = self.players_in
        dead = {seat: deadwood(s.hands[seat]) for seat in players}
        record = self._hand_record(players, dead, announcer, end, discarded)
        s.hand_history.append(record)
        s.reset_round(self.setup)  # the hands are shown: hands, stock and pile empty
        if end == "continental":  # RULES 3.4: the game ends, the announcer takes the pot
            self._finish([announcer], "continental")  # type: ignore[list-item]
            return
        points = record["points"]
        for seat in players:
            points[seat] = dead[seat]
        if announcer is not None:
            points[announcer] = {
                "knock": record["deadwood"][announcer],
                "rummy": RUMMY_POINTS,
                "color": COLOR_POINTS,
            }[end]
            self._pay_bonus(record, announcer, players)
        for seat in players:
            s.scores[seat] += points[seat]
        out = [seat for seat in players if s.scores[seat] > ELIMINATED_OVER]
        for seat in out:
            s.in_game[seat] = False
        record["eliminated"] = out
        self._after_hand(players)

    def _hand_record(
        self,
        players: list[int],
        dead: dict[int, int],
        announcer: int | None,
        end: str,
        discarded: int | None,
    ) -> dict[str, Any]:
        """The ``hand_history`` record of the hand ending now, its hands shown."""
        s = self.state
        p = self.num_players
        record: dict[str, Any] = {
            "hand": s.hand_index + 1,
            "dealer": s.dealer,
            "players": list(players),
            "announcer": announcer,
            "end": end,
            "discarded": None if discarded is None else card_to_str(discarded),
            "lays": None,
            "shown": [format_cards(self.hand_cards(x)) if x in dead else None for x in range(p)],
            "deadwood": [dead.get(x) for x in range(p)],
            "points": [0] * p,
            "bonus": 0,
            "pot_payer": None,
            "chips": [0] * p,
            "eliminated": [],
            "buys": [],
            "turns": s.turn,
        }
        if announcer is not None:
            ace = 1 if end == "knock" else 15
            own, lays = best_lays(s.hands[announcer], ace)
            record["lays"] = [format_cards(lay) for lay in lays]
            if end == "knock":
                record["deadwood"][announcer] = own
        return record

    def _pay_bonus(self, record: dict[str, Any], announcer: int, players: list[int]) -> None:
        """RULES 3.4: every other player pays the bonus; the one with the most points in the
        hand (ties: the latest in turn order after the announcer) pays it into the pot."""
        s = self.state
        p = self.num_players
        end = record["end"]
        jokers = sum(1 for c in record["shown"][announcer].split() if c == "JK")
        amount = bonus(end, self.stake, jokers)
        order = [(announcer + k) % p for k in range(1, p)]
        payers = [seat for seat in order if seat in players]
        pot_payer = payers[0]
        for seat in payers:
            if record["points"][seat] >= record["points"][pot_payer]:
                pot_payer = seat
        chips = record["chips"]
        for seat in payers:
            chips[seat] -= amount
            s.chips[seat] -= amount
            if seat == pot_payer:
                s.pot += amount
            else:
                chips[announcer] += amount
                s.chips[announcer] += amount
        record["bonus"] = amount
        record["pot_payer"] = pot_payer

    def _after_hand(self, players: list[int]) -> None:
        s = self.state
        scores = s.scores
        alive = self.players_in
        if len(alive) == 1:
            self._finish(alive, "last_player")
        elif not alive:  # the hand put every player left over 100: the lowest totals share
            low = min(scores[seat] for seat in players)
            self._finish([seat for seat in players if scores[seat] == low], "last_player")
        elif len(alive) == 2 and abs(scores[alive[0]] - scores[alive[1]]) <= SPLIT_WITHIN:
            self._finish(alive, "split")
        elif s.hand_index + 1 >= self.max_hands:
            low = min(scores[seat] for seat in alive)
            self._finish([seat for seat in alive if scores[seat] == low], "max_hands")
        else:
            s.buyers = [seat for seat in alive if may_buy(s, seat)]
            if s.buyers:
                s.phase = BUY_PHASE
                s.current = s.buyers[0]
            else:
                self._next_hand()

    def _answer(self, seat: int, buy: bool) -> None:
        s = self.state
        record = s.hand_history[-1]
        if buy:
            cost = buy_cost(self.stake, s.buys[seat])
            total = buy_back_total(s, seat)
            record["buys"].append({"seat": seat, "cost": cost, "from": s.scores[seat], "to": total})
            s.scores[seat] = total
            s.buys[seat] += 1
            s.chips[seat] -= cost
            record["chips"][seat] -= cost
            s.pot += cost
        s.buyers.pop(0)
        if s.buyers:
            s.current = s.buyers[0]
        else:
            self._next_hand()

    def _finish(self, winners: list[int], end: str) -> None:
        """The game is over: the winners share the pot (the odd chips one each, in seat order)."""
        s = self.state
        pot = s.pot
        share, odd = divmod(pot, len(winners))
        record = s.hand_history[-1]
        for k, seat in enumerate(sorted(winners)):
            won = share + (1 if k < odd else 0)
            s.chips[seat] += won
            record["chips"][seat] += won
        s.pot = 0
        s.result = {"end": end, "winners": sorted(winners), "pot": pot}
        s.buyers = []
        s.phase = GAME_OVER
        self._invalidate()

    # ------------------------------------------------------------------ explanations

    def _refusal(self, action: int, text: str) -> str:
        """Why an action is illegal in a live position (``SideGame._illegal_reason``)."""
        phase = self.state.phase
        if phase == BUY_PHASE:
            return f"seat {self.state.current} answers 'buy' or 'pass' (buy-back)"
        if action in (BUY, PASS):
            return "buying back is only offered between hands"
        if action < DISCARD_BASE and phase != DRAW_PHASE:
            return f"{text!r} is only legal at the start of a turn, before drawing"
        if action >= DISCARD_BASE and phase != PLAY_PHASE:
            return "draw or take a card first"
        return self._rule_broken(action)

    def _rule_broken(self, action: int) -> str:
        """Why an action of the right phase is illegal."""
        s = self.state
        seat = s.current
        if action == TAKE:
            return "the discard pile is empty"
        why = {
            KNOCK: f"seat {seat}'s deadwood (aces 1) is {deadwood(s.hands[seat], 1)}, over 5",
            RUMMY: "not all 10 cards are in lays",
            COLOR: "the 10 cards are not all of one suit",
            CONTINENTAL: "the 10 cards are not one lay (a 10-card straight flush or 10 of a kind)",
        }
        if action in why:
            return why[action]
        kind, base = CARD_ACTIONS[(action - DISCARD_BASE) // NUM_TYPES]
        card = action - base
        if not s.hands[seat][card]:
            return f"{card_to_str(card)} is not in seat {seat}'s hand"
        return f"{why[WORDS.index(kind)]} once {card_to_str(card)} is discarded"

    # ``clone``, ``to_dict`` and ``from_dict`` are ``GameBase``'s, ``repr`` is ``SideGame``'s.

    def _repr_extra(self) -> str:
        return f", pot={self.state.pot}"


__all__ = [
    "BUY",
    "BUY_BACK_OVER",
    "COLOR",
    "COLOR_BASE",
    "CONTINENTAL",
    "CONTINENTAL_BASE",
    "DISCARD_BASE",
    "DRAW",
    "ELIMINATED_OVER",
    "HAND_SIZE",
    "KNOCK",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "PASS",
    "PHASES",
    "RUMMY",
    "RUMMY_BASE",
    "TAKE",
    "Game",
    "Phase",
    "action_from_str",
    "action_to_str",
    "bonus",
    "buy_cost",
    "jokers_for",
]
