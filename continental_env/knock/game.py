"""The knock game engine: one game's state, its legal moves, and their effects.

Rules source: ``RULES.md`` Part 3 (seed 002, "Continental", the Italian-origin knock rummy). The
engine receives actions; it never asks agents for them. Seats are ints. It is pure Python (no
gymnasium, no numpy) and deterministic given its seed: each hand is dealt, and its re-formed
stocks are shuffled, by a generator seeded from that hand's own seed, drawn from the game's seed
at creation, so duplicate deals stay identical in every hand whatever earlier hands did.

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

import operator
import random
from typing import Any

from continental_env.cards import (
    JOKER,
    NUM_NATURALS,
    NUM_TYPES,
    card_from_str,
    card_to_str,
    format_cards,
)
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

DRAW, TAKE, KNOCK, RUMMY, COLOR, CONTINENTAL, BUY, PASS = range(8)
WORDS = ("draw", "take", "knock", "rummy", "color", "continental", "buy", "pass")
DISCARD_BASE = 8
RUMMY_BASE = DISCARD_BASE + NUM_TYPES  # 61
COLOR_BASE = RUMMY_BASE + NUM_TYPES  # 114
CONTINENTAL_BASE = COLOR_BASE + NUM_TYPES  # 167
NUM_ACTIONS = CONTINENTAL_BASE + NUM_TYPES  # 220
CARD_ACTIONS = (("discard", DISCARD_BASE), ("rummy", RUMMY_BASE), ("color", COLOR_BASE))
CARD_ACTIONS += (("continental", CONTINENTAL_BASE),)
HAND_SIZE = 10
DECKS = 2
PHASES = ("draw", "play", "buy", "game_over")
MIN_PLAYERS, MAX_PLAYERS = 2, 6

KNOCK_LIMIT = 5  # deadwood (aces 1) at most this to knock
ELIMINATED_OVER = 100
BUY_BACK_OVER = 80
SPLIT_WITHIN = 10
RUMMY_POINTS = -10
COLOR_POINTS = -25
JOKER_RUMMY = 3  # a rummy with this many jokers or more earns a knock bonus per joker
# Bonuses in fifths of the stake: knock 0.2 S, rummy 0.4 S, color 0.8 S.
BONUS_FIFTHS = {"knock": 1, "rummy": 2, "color": 4}


def jokers_for(num_players: int) -> int:
    """Jokers in the two decks: 4, or one per player at 5 and 6 players."""
    return max(4, num_players)


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


def action_to_str(action: int) -> str:
    """Text form of an action id (the table is in the module docstring)."""
    try:
        action = operator.index(action)
    except TypeError:
        raise ValueError(f"action {action!r} is not an integer id") from None
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action!r} is out of range 0..{NUM_ACTIONS - 1}")
    if action < DISCARD_BASE:
        return WORDS[action]
    word, base = CARD_ACTIONS[(action - DISCARD_BASE) // NUM_TYPES]
    return f"{word} {card_to_str(action - base)}"


def action_from_str(text: str) -> int:
    """Action id of a text form (the inverse of ``action_to_str``)."""
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} must be a string")
    tokens = text.split()
    head = tokens[0].lower() if tokens else ""
    if len(tokens) == 1 and head in WORDS:
        return WORDS.index(head)
    if len(tokens) == 2:
        for word, base in CARD_ACTIONS:
            if head == word:
                return base + card_from_str(tokens[1])
    raise ValueError(
        f"unknown action {text!r}: expected draw, take, knock, rummy, color, continental, buy, "
        "pass, or 'discard C', 'rummy C', 'color C', 'continental C'"
    )


class Game:
    """One game of the knock game. Build it with ``Game.new``; see the module docstring."""

    num_actions = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        stake: int = 50,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
    ) -> None:
        _check_options(num_players, stake, max_turns_per_hand, max_hands)
        p = num_players
        self.num_players = p
        self.stake = stake
        self.max_turns_per_hand = max_turns_per_hand
        self.max_hands = max_hands
        self.jokers = jokers_for(p)
        self.rng = random.Random()  # this hand's generator: its deal and re-formed stocks
        self.deal_seeds: list[int] = []
        self.hand_index = 0  # 0-based index of the hand dealt last
        self.dealer = 0
        self.current = 0
        self.phase = "draw"
        self.hands: list[list[int]] = [[0] * NUM_TYPES for _ in range(p)]
        self.stock: list[int] = []
        self.discard: list[int] = []
        self.scores = [0] * p  # points, lower is better
        self.in_game = [True] * p
        self.chips = [-stake] * p  # net chips: everyone antes
        self.pot = stake * p
        self.buys = [0] * p
        self.buyers: list[int] = []  # seats still to answer buy / pass (phase "buy")
        self.turn = 0  # discards in this hand
        self.known: list[list[int]] = [[0] * NUM_TYPES for _ in range(p)]
        self.seen_discards = [0] * NUM_TYPES
        self.hand_history: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None  # how the game ended, once over
        self.moves = 0  # actions applied in the whole game
        self._legal: list[int] | None = None

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
        if seed is not None:
            try:
                seed = operator.index(seed)  # any integer kind: int, numpy integers
            except TypeError:
                raise ValueError(f"seed {seed!r} must be an integer or None") from None
        game = cls(num_players, stake, max_turns_per_hand, max_hands)
        master = random.Random(seed)
        # One seed per possible hand, drawn up front: a hand's cards never depend on how many
        # shuffles earlier hands used, so duplicate deals stay identical in every hand.
        game.deal_seeds = [master.getrandbits(64) for _ in range(game.max_hands)]
        game._deal(first=True)
        return game

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
        for k in range(1, p + 1):
            s = (seat + k) % p
            if self.in_game[s]:
                return s
        raise AssertionError("no player is still in")  # the game ends before this can happen

    def _deal(self, first: bool = False) -> None:
        p = self.num_players
        if not first:
            self.hand_index += 1
            self.dealer = self._next_in(self.dealer)
        self.rng = random.Random(self.deal_seeds[self.hand_index])
        deck = [c for c in range(NUM_NATURALS) for _ in range(DECKS)] + [JOKER] * self.jokers
        self.rng.shuffle(deck)
        self.hands = [[0] * NUM_TYPES for _ in range(p)]
        set_aside: list[int] = []
        for seat in range(p):  # seat s gets the s-th ten cards from the top, whoever deals
            cards = deck[len(deck) - HAND_SIZE :]
            del deck[len(deck) - HAND_SIZE :]
            if self.in_game[seat]:
                for c in cards:
                    self.hands[seat][c] += 1
            else:
                set_aside += cards
        self.stock = set_aside + deck  # the cards of seats that are out go to the bottom
        self.discard = []
        self.turn = 0
        self.known = [[0] * NUM_TYPES for _ in range(p)]
        self.seen_discards = [0] * NUM_TYPES
        self.current = self._next_in(self.dealer)
        self.phase = "draw"
        self._legal = None

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == "game_over"

    @property
    def actor(self) -> int | None:
        """The seat whose action the state awaits (None when the game is over)."""
        return None if self.phase == "game_over" else self.current

    @property
    def players_in(self) -> list[int]:
        """Seats still in the game."""
        return [s for s in range(self.num_players) if self.in_game[s]]

    def hand_cards(self, seat: int) -> list[int]:
        """Sorted card ids in a seat's hand."""
        hand = self.hands[seat]
        return [c for c in range(NUM_TYPES) for _ in range(hand[c])]

    def hand_size(self, seat: int) -> int:
        """Cards in a seat's hand."""
        return sum(self.hands[seat])

    def winners(self) -> list[int]:
        """Seats that won (or shared) the pot; empty while the game runs."""
        return [] if self.result is None else list(self.result["winners"])

    def action_to_str(self, action: int) -> str:
        """Text form of an action id, e.g. ``"rummy 7H"``."""
        return action_to_str(action)

    def action_from_str(self, text: str) -> int:
        """Action id of a text form (the inverse of ``action_to_str``)."""
        return action_from_str(text)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, in increasing order (empty when over).

        A new list each call: the caller may change it without touching the game's cache.
        """
        return self._legal_ids().copy()

    def _legal_ids(self) -> list[int]:
        """The cached legal ids (shared: never hand this list out)."""
        if self._legal is None:
            if self.phase == "draw":
                self._legal = self._draw_legal_actions()
            elif self.phase == "play":
                self._legal = self._play_legal_actions()
            elif self.phase == "buy":
                self._legal = [BUY, PASS]
            else:
                self._legal = []
        return self._legal

    def _draw_legal_actions(self) -> list[int]:
        hand = self.hands[self.current]
        legal = [DRAW]
        if self.discard:
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

    def _play_legal_actions(self) -> list[int]:
        hand = self.hands[self.current]
        legal = [DISCARD_BASE + c for c in range(NUM_TYPES) if hand[c]]
        legal += [RUMMY_BASE + c for c in rummy_discards(hand)]
        legal += [COLOR_BASE + c for c in color_discards(hand)]
        legal += [CONTINENTAL_BASE + c for c in continental_discards(hand)]
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether an action id is legal now."""
        return action in self._legal_ids()

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and why if it is illegal."""
        try:
            action = operator.index(action)  # ints and numpy integers; 2.5 or "2" are refused
        except TypeError:
            raise ValueError(f"action {action!r} is not an integer id") from None
        if not self.is_legal(action):
            raise ValueError(self._illegal_reason(action))
        self.moves += 1
        self._legal = None
        seat = self.current
        if action == DRAW:
            self._do_draw(seat)
        elif action == TAKE:
            card = self.discard.pop()
            self.hands[seat][card] += 1
            self.known[seat][card] += 1
            self.phase = "play"
        elif action in (KNOCK, RUMMY, COLOR, CONTINENTAL):
            self._end_hand(seat, WORDS[action])
        elif action in (BUY, PASS):
            self._answer(seat, action == BUY)
        else:
            kind, base = CARD_ACTIONS[(action - DISCARD_BASE) // NUM_TYPES]
            card = action - base
            self._remove(seat, card)
            self.discard.append(card)
            self.seen_discards[card] += 1
            if kind == "discard":
                self._end_turn(seat)
            else:
                self._end_hand(seat, kind, discarded=card)

    def _do_draw(self, seat: int) -> None:
        if not self.stock and len(self.discard) > 1:
            # RULES 3.3: the discard pile except its top card becomes the new stock.
            top = self.discard.pop()
            self.stock = self.discard
            self.rng.shuffle(self.stock)
            self.discard = [top]
        if not self.stock:
            self._end_hand(None, "stock")
            return
        self.hands[seat][self.stock.pop()] += 1
        self.phase = "play"

    def _remove(self, seat: int, card: int) -> None:
        self.hands[seat][card] -= 1
        if self.known[seat][card]:
            self.known[seat][card] -= 1

    def _end_turn(self, seat: int) -> None:
        self.turn += 1
        if self.turn >= self.max_turns_per_hand:
            self._end_hand(None, "turn_limit")
            return
        self.current = self._next_in(seat)
        self.phase = "draw"

    # ------------------------------------------------------------------ the end of a hand

    def _end_hand(self, announcer: int | None, end: str, discarded: int | None = None) -> None:
        p = self.num_players
        players = self.players_in
        dead = {s: deadwood(self.hands[s]) for s in players}
        points = [0] * p
        chips = [0] * p
        record: dict[str, Any] = {
            "hand": self.hand_index + 1,
            "dealer": self.dealer,
            "players": list(players),
            "announcer": announcer,
            "end": end,
            "discarded": None if discarded is None else card_to_str(discarded),
            "lays": None,
            "shown": [format_cards(self.hand_cards(s)) if s in dead else None for s in range(p)],
            "deadwood": [dead.get(s) for s in range(p)],
            "points": points,
            "bonus": 0,
            "pot_payer": None,
            "chips": chips,
            "eliminated": [],
            "buys": [],
            "turns": self.turn,
        }
        if announcer is not None:
            ace = 1 if end == "knock" else 15
            own, lays = best_lays(self.hands[announcer], ace)
            record["lays"] = [format_cards(lay) for lay in lays]
            if end == "knock":
                record["deadwood"][announcer] = own
        self.hand_history.append(record)
        self.hands = [[0] * NUM_TYPES for _ in range(p)]
        self.stock, self.discard = [], []
        self.turn = 0
        self.known = [[0] * NUM_TYPES for _ in range(p)]
        self.seen_discards = [0] * NUM_TYPES
        if end == "continental":  # RULES 3.4: the game ends, the announcer takes the pot
            self._finish([announcer], "continental")
            return
        for s in players:
            points[s] = dead[s]
        if announcer is not None:
            points[announcer] = {
                "knock": record["deadwood"][announcer],
                "rummy": RUMMY_POINTS,
                "color": COLOR_POINTS,
            }[end]
            self._pay_bonus(record, announcer, players)
        for s in players:
            self.scores[s] += points[s]
        out = [s for s in players if self.scores[s] > ELIMINATED_OVER]
        for s in out:
            self.in_game[s] = False
        record["eliminated"] = out
        self._after_hand(players)

    def _pay_bonus(self, record: dict[str, Any], announcer: int, players: list[int]) -> None:
        """RULES 3.4: every other player pays the bonus; the one with the most points in the
        hand (ties: the latest in turn order after the announcer) pays it into the pot."""
        p = self.num_players
        end = record["end"]
        jokers = sum(1 for c in record["shown"][announcer].split() if c == "JK")
        amount = bonus(end, self.stake, jokers)
        order = [(announcer + k) % p for k in range(1, p)]
        payers = [s for s in order if s in players]
        pot_payer = payers[0]
        for s in payers:
            if record["points"][s] >= record["points"][pot_payer]:
                pot_payer = s
        chips = record["chips"]
        for s in payers:
            chips[s] -= amount
            self.chips[s] -= amount
            if s == pot_payer:
                self.pot += amount
            else:
                chips[announcer] += amount
                self.chips[announcer] += amount
        record["bonus"] = amount
        record["pot_payer"] = pot_payer

    def _after_hand(self, players: list[int]) -> None:
        alive = self.players_in
        if len(alive) == 1:
            self._finish(alive, "last_player")
        elif not alive:  # the hand put every player left over 100: the lowest totals share
            low = min(self.scores[s] for s in players)
            self._finish([s for s in players if self.scores[s] == low], "last_player")
        elif len(alive) == 2 and abs(self.scores[alive[0]] - self.scores[alive[1]]) <= SPLIT_WITHIN:
            self._finish(alive, "split")
        elif self.hand_index + 1 >= self.max_hands:
            low = min(self.scores[s] for s in alive)
            self._finish([s for s in alive if self.scores[s] == low], "max_hands")
        else:
            self.buyers = [s for s in alive if self._may_buy(s)]
            if self.buyers:
                self.phase = "buy"
                self.current = self.buyers[0]
            else:
                self._deal()

    def _may_buy(self, seat: int) -> bool:
        """RULES 3.5: still in, over 80 (and at most 100), at least two others still in, and
        the buy-back lowers the total."""
        if not self.in_game[seat] or not BUY_BACK_OVER < self.scores[seat] <= ELIMINATED_OVER:
            return False
        others = sum(1 for s in self.players_in if s != seat)
        return others >= 2 and self.buy_back_total(seat) < self.scores[seat]

    def buy_back_total(self, seat: int) -> int:
        """The total a buy-back sets: the second-lowest among the other players still in."""
        others = sorted(self.scores[s] for s in self.players_in if s != seat)
        return others[1]

    def _answer(self, seat: int, buy: bool) -> None:
        record = self.hand_history[-1]
        if buy:
            cost = buy_cost(self.stake, self.buys[seat])
            total = self.buy_back_total(seat)
            record["buys"].append(
                {"seat": seat, "cost": cost, "from": self.scores[seat], "to": total}
            )
            self.scores[seat] = total
            self.buys[seat] += 1
            self.chips[seat] -= cost
            record["chips"][seat] -= cost
            self.pot += cost
        self.buyers.pop(0)
        if self.buyers:
            self.current = self.buyers[0]
        else:
            self._deal()

    def _finish(self, winners: list[int], end: str) -> None:
        """The game is over: the winners share the pot (the odd chips one each, in seat order)."""
        pot = self.pot
        share, odd = divmod(pot, len(winners))
        record = self.hand_history[-1]
        for k, s in enumerate(sorted(winners)):
            won = share + (1 if k < odd else 0)
            self.chips[s] += won
            record["chips"][s] += won
        self.pot = 0
        self.result = {"end": end, "winners": sorted(winners), "pot": pot}
        self.buyers = []
        self.phase = "game_over"
        self._legal = []

    # ------------------------------------------------------------------ explanations

    def _illegal_reason(self, action: int) -> str:
        try:
            text = action_to_str(action)
        except ValueError as exc:
            return f"illegal action: {exc}"
        head = f"illegal action {action} ({text!r}) in phase {self.phase!r}"
        if self.phase == "game_over":
            return f"{head}: the game is over"
        seat = self.current
        if self.phase == "buy":
            return f"{head}: seat {seat} answers 'buy' or 'pass' (buy-back)"
        if action in (BUY, PASS):
            return f"{head}: buying back is only offered between hands"
        if action < DISCARD_BASE and self.phase != "draw":
            return f"{head}: {text!r} is only legal at the start of a turn, before drawing"
        if action >= DISCARD_BASE and self.phase != "play":
            return f"{head}: draw or take a card first"
        if action == TAKE:
            return f"{head}: the discard pile is empty"
        why = {
            KNOCK: f"seat {seat}'s deadwood (aces 1) is {deadwood(self.hands[seat], 1)}, over 5",
            RUMMY: "not all 10 cards are in lays",
            COLOR: "the 10 cards are not all of one suit",
            CONTINENTAL: "the 10 cards are not one lay (a 10-card straight flush or 10 of a kind)",
        }
        if action in why:
            return f"{head}: {why[action]}"
        kind, base = CARD_ACTIONS[(action - DISCARD_BASE) // NUM_TYPES]
        card = action - base
        if not self.hands[seat][card]:
            return f"{head}: {card_to_str(card)} is not in seat {seat}'s hand"
        return f"{head}: {why[WORDS.index(kind)]} once {card_to_str(card)} is discarded"

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> Game:
        """An independent copy (the generator too)."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        g.deal_seeds = list(self.deal_seeds)
        g.hands = [list(h) for h in self.hands]
        g.stock = list(self.stock)
        g.discard = list(self.discard)
        g.scores = list(self.scores)
        g.in_game = list(self.in_game)
        g.chips = list(self.chips)
        g.buys = list(self.buys)
        g.buyers = list(self.buyers)
        g.known = [list(k) for k in self.known]
        g.seen_discards = list(self.seen_discards)
        g.hand_history = [copy_record(r) for r in self.hand_history]
        g.result = None if self.result is None else copy_result(self.result)
        g._legal = list(self._legal) if self._legal is not None else None
        return g

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that ``from_dict`` restores exactly."""
        version, state, gauss = self.rng.getstate()

        def cards(counts: list[int]) -> list[str]:
            return [card_to_str(c) for c in range(NUM_TYPES) for _ in range(counts[c])]

        return {
            "game": "knock",
            "num_players": self.num_players,
            "options": {
                "stake": self.stake,
                "max_turns_per_hand": self.max_turns_per_hand,
                "max_hands": self.max_hands,
            },
            "hand_index": self.hand_index,
            "dealer": self.dealer,
            "current": self.current,
            "phase": self.phase,
            "hands": [cards(h) for h in self.hands],
            "stock": [card_to_str(c) for c in self.stock],
            "discard": [card_to_str(c) for c in self.discard],
            "scores": list(self.scores),
            "in_game": list(self.in_game),
            "chips": list(self.chips),
            "pot": self.pot,
            "buys": list(self.buys),
            "buyers": list(self.buyers),
            "turn": self.turn,
            "known": [cards(k) for k in self.known],
            "seen_discards": cards(self.seen_discards),
            "hand_history": [copy_record(r) for r in self.hand_history],
            "result": None if self.result is None else copy_result(self.result),
            "moves": self.moves,
            "deal_seeds": list(self.deal_seeds),
            "rng": [version, list(state), gauss],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Restore a game from ``to_dict``; one ValueError with the reason if it is malformed."""
        from continental_env.knock.state_check import load_state

        return load_state(cls, data)

    def __repr__(self) -> str:
        return (
            f"knock.Game(players={self.num_players}, hand={self.hand_index + 1}, "
            f"phase={self.phase}, current={self.current}, scores={self.scores}, pot={self.pot})"
        )


def copy_record(record: dict[str, Any]) -> dict[str, Any]:
    """An independent copy of a ``hand_history`` record."""
    out = dict(record)
    for key in ("players", "shown", "deadwood", "points", "chips", "eliminated"):
        out[key] = list(record[key])
    if record.get("lays") is not None:
        out["lays"] = list(record["lays"])
    out["buys"] = [dict(b) for b in record["buys"]]
    return out


def copy_result(result: dict[str, Any]) -> dict[str, Any]:
    """An independent copy of a game's ``result``."""
    return {**result, "winners": list(result["winners"])}


def _check_options(num_players: Any, stake: Any, max_turns_per_hand: Any, max_hands: Any) -> None:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players={num_players!r}: the knock game seats 2..6")
    if not is_int(stake) or stake < 5 or stake % 5:
        raise ValueError(
            f"stake={stake!r}: must be a positive multiple of 5 (bonuses are 0.2, 0.4 and 0.8 of it)"
        )
    if not is_int(max_turns_per_hand) or max_turns_per_hand < 1:
        raise ValueError(f"max_turns_per_hand={max_turns_per_hand!r}: must be a positive int")
    if not is_int(max_hands) or max_hands < 1:
        raise ValueError(f"max_hands={max_hands!r}: must be a positive int")


__all__ = [
    "BUY",
    "COLOR",
    "COLOR_BASE",
    "CONTINENTAL",
    "CONTINENTAL_BASE",
    "DISCARD_BASE",
    "DRAW",
    "KNOCK",
    "NUM_ACTIONS",
    "PASS",
    "RUMMY",
    "RUMMY_BASE",
    "TAKE",
    "Game",
    "action_from_str",
    "action_to_str",
    "bonus",
    "buy_cost",
    "jokers_for",
]
