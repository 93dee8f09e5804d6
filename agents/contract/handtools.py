"""Small, cached facts about hands that the bots share; every meld question goes to ``continental_env.melds``.

* ``partner_table(rules)`` — for each pair of card types, which contract meld kinds the two cards
  can start together. It is computed once per rule set by asking ``melds.is_valid_meld`` whether
  the pair padded with jokers is a valid trio / run, so wraparound and ``min_run`` come from the
  one validator, not from a second copy of the rules here.
* ``unseen_counts(view)`` — copies of each card type this seat has not seen this round (not in
  its hand, the discard pile, the table, nor known to be in another hand).
* ``fits_table(view, card)`` — whether a card could be laid off on some table meld now.
* ``shown_by_seat(log, players)`` — per seat, the cards it discarded or declined this round.
"""

from __future__ import annotations

from functools import lru_cache

from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract.features import count_unseen
from continental_env.contract.public_log import PublicLog
from continental_env.melds import RUN, TRIO, can_fit, is_valid_meld
from continental_env.rules import RuleConfig, deck_counts

TRIO_BIT = 1
RUN_BIT = 2


@lru_cache(maxsize=16)
def partner_table(rules: RuleConfig) -> tuple[tuple[int, ...], ...]:
    """``table[a][b]``: TRIO_BIT | RUN_BIT for the meld kinds cards a and b can start together."""
    pad_trio = [JOKER]
    pad_run = [JOKER] * (rules.min_run - 2)
    rows = []
    for a in range(NUM_TYPES):
        row = []
        for b in range(NUM_TYPES):
            bits = 0
            if is_valid_meld(TRIO, [a, b, *pad_trio], rules):
                bits |= TRIO_BIT
            if is_valid_meld(RUN, [a, b, *pad_run], rules):
                bits |= RUN_BIT
            row.append(bits)
        rows.append(tuple(row))
    return tuple(rows)


def contract_bits(contract: tuple[int, int]) -> int:
    """The meld kinds a (trios, runs) contract asks for, as TRIO_BIT | RUN_BIT."""
    trios, runs = contract
    return (TRIO_BIT if trios else 0) | (RUN_BIT if runs else 0)


def partners(hand: list[int], card: int, table: tuple[tuple[int, ...], ...], bits: int) -> int:
    """How many other cards of the hand start a contract meld with ``card``."""
    columns = _partner_columns(table, bits)[card]
    n = sum(map(hand.__getitem__, columns))
    if card in columns and hand[card] > 0:
        n -= 1  # the card itself is not its own partner (another copy of it is)
    return n


# (table, bits) -> per card, the card types that start a meld with it under ``bits``. Keyed by
# the table's identity (``pair_table`` returns one cached tuple per rules), which is kept in the
# entry so the key cannot be reused by another object.
_COLUMNS: dict[
    tuple[int, int], tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
] = {}


def _partner_columns(table: tuple[tuple[int, ...], ...], bits: int) -> tuple[tuple[int, ...], ...]:
    entry = _COLUMNS.get((id(table), bits))
    if entry is None or entry[0] is not table:
        columns = tuple(tuple(c for c in range(NUM_TYPES) if row[c] & bits) for row in table)
        entry = _COLUMNS[(id(table), bits)] = (table, columns)
    return entry[1]


def unseen_counts(view: PlayerView) -> list[int]:
    """Copies of each card type not visible to this seat this round (``features.count_unseen``)."""
    deck = deck_counts(view.rules, view.num_players, view.round)
    return count_unseen(deck, view.hand, view.discard, view.table, view.known, view.seat)


def fits_table(view: PlayerView, card: int) -> bool:
    """Whether ``card`` could be laid off on some meld on the table now."""
    rules = view.rules
    return any(can_fit(m, card, rules) for m in view.table)


def shown_by_seat(log: PublicLog | None, num_players: int) -> list[list[int]] | None:
    """Per seat, the copies of each card type it discarded or declined this round (the engine's
    public log, ``view.public_log``), or None when there is no log for this round (e.g. in a
    sampled world, whose log is empty)."""
    n = num_players
    if log is None or len(log.discarded) != NUM_TYPES * n or len(log.declined) != NUM_TYPES * n:
        return None
    out = []
    for s in range(n):
        lo = s * NUM_TYPES
        out.append([a + b for a, b in zip(log.discarded[lo : lo + NUM_TYPES],
                                           log.declined[lo : lo + NUM_TYPES], strict=True)])  # fmt: skip
    return out


def ids_of(legal: list[int], lo: int, hi: int) -> list[int]:
    """The legal ids in ``lo <= id < hi`` (legal ids are sorted)."""
    return [a for a in legal if lo <= a < hi]
