"""Helpers shared by the tests: building hand-made positions and reading them back.

``make_game`` builds a ``Game`` through ``Game.from_dict`` from a few card strings: whatever
cards of the round's decks the test does not place go to the bottom of the stock (or the
bottom of the discard pile), so the position always conserves cards.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from continental_env.cards import card_to_str, parse_cards
from continental_env.contract.game import Game
from continental_env.rules import PRESETS, RuleConfig, deck_counts

_RNG_STATE = random.Random(12345).getstate()


def rng_field() -> list[Any]:
    """A JSON ``rng`` field for hand-built states."""
    version, state, gauss = _RNG_STATE
    return [version, list(state), gauss]


def deck_multiset(rules: RuleConfig, num_players: int, round_number: int) -> Counter[int]:
    """The multiset of card ids a round is played with."""
    counts = deck_counts(rules, num_players, round_number)
    return Counter({c: n for c, n in enumerate(counts) if n})


def cards(text: str) -> list[str]:
    """Card strings of a text, canonicalised (``"7h 10s"`` -> ``["7H", "TS"]``)."""
    return [card_to_str(c) for c in parse_cards(text)]


def make_state(
    preset: str | RuleConfig = "continental",
    *,
    hands: Sequence[str],
    table: Sequence[tuple[int, str, str]] = (),
    discard: str = "",
    stock_top: str = "",
    rest_to: str = "stock",
    round_number: int = 1,
    dealer: int | None = None,
    current: int = 0,
    phase: str = "play",
    asked: int | None = None,
    claim_queue: Sequence[int] | None = None,
    laid_down: Sequence[bool] | None = None,
    laid_down_turn: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    claims: Sequence[int] | None = None,
    turn: int = 0,
) -> dict[str, Any]:
    """A ``to_dict``-shaped state from card strings.

    ``hands``: one card text per seat. ``table``: (owner, kind, cards) per meld, runs in
    sequence order. ``discard``: bottom to top (top last). ``stock_top``: the next cards to be
    drawn from the stock, in the order they will be drawn. Every other card of the round's
    decks goes under the stock (``rest_to="stock"``) or under the discard pile
    (``rest_to="discard"``, leaving the stock as exactly ``stock_top``).
    """
    rules = PRESETS[preset] if isinstance(preset, str) else preset
    p = len(hands)
    deck = deck_multiset(rules, p, round_number)
    placed: Counter[int] = Counter()
    for text in hands:
        placed.update(parse_cards(text))
    for _owner, _kind, text in table:
        placed.update(parse_cards(text))
    placed.update(parse_cards(discard))
    placed.update(parse_cards(stock_top))
    over = {card_to_str(c): n for c, n in placed.items() if n > deck[c]}
    if over:
        raise AssertionError(f"test position uses more cards than the decks hold: {over}")
    rest = [card_to_str(c) for c in sorted(deck - placed) for _ in range((deck - placed)[c])]
    stock = list(reversed(cards(stock_top)))
    pile = cards(discard)
    if rest_to == "stock":
        stock = rest + stock
    else:
        pile = rest + pile
    if laid_down is None:
        owners = {owner for owner, _k, _c in table}
        laid_down = [seat in owners for seat in range(p)]
    return {
        "preset": rules.name if isinstance(preset, str) else None,
        "rules": rules.to_dict(),
        "num_players": p,
        "round": round_number,
        "round_index": rules.rounds.index(round_number),
        "dealer": (current - 1) % p if dealer is None else dealer,
        "current": current,
        "phase": phase,
        "asked": asked,
        "claim_queue": list(claim_queue)
        if claim_queue is not None
        else ([] if asked is None else [asked]),
        "hands": [cards(h) for h in hands],
        "stock": stock,
        "discard": pile,
        "table": [{"owner": o, "kind": k, "cards": cards(c)} for o, k, c in table],
        "laid_down": list(laid_down),
        "laid_down_turn": list(laid_down_turn) if laid_down_turn is not None else [-1] * p,
        "scores": list(scores) if scores is not None else [0] * p,
        "turn": turn,
        "claims": list(claims) if claims is not None else [0] * p,
        "rng": rng_field(),
    }


def make_game(preset: str | RuleConfig = "continental", **kwargs: Any) -> Game:
    """``Game.from_dict(make_state(...))``."""
    return Game.from_dict(make_state(preset, **kwargs))


def act(game: Game, *texts: str) -> None:
    """Apply actions given as text, each of which must be legal."""
    for text in texts:
        action = game.action_from_str(text)
        assert game.is_legal(action), (
            f"{text!r} is not legal; legal: {legal_texts(game)} in {game!r}"
        )
        game.apply(action)


def legal_texts(game: Game) -> list[str]:
    """Text of every legal action."""
    return [game.action_to_str(a) for a in game.legal_actions()]


def hand(game: Game, seat: int) -> list[str]:
    """A seat's hand as sorted card strings."""
    return sorted(card_to_str(c) for c in game.hand_cards(seat))


def meld_text(game: Game, m: int) -> str:
    """Cards of table meld ``m`` as text, in table order."""
    return " ".join(card_to_str(c) for c in game.table[m].cards)


def all_cards(game: Game) -> Counter[int]:
    """Every card in hands, stock, discard pile and melds."""
    total: Counter[int] = Counter()
    for seat in range(game.num_players):
        total.update(game.hand_cards(seat))
    total.update(game.stock)
    total.update(game.discard)
    for meld in game.table:
        total.update(meld.cards)
    return total


def load_script(name: str) -> ModuleType:
    """A module of ``scripts/`` (not a package) loaded from its file, e.g. ``load_script("x")``
    for ``scripts/x.py``."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses of the script look their module up by name
    spec.loader.exec_module(module)
    return module


# Every preset at every table size it allows: the tables the differential tests walk.
TABLES = [(preset, p) for preset in PRESETS for p in range(2, PRESETS[preset].max_players + 1)]


@cache
def played(preset: str, players: int, seed: int, count: int) -> tuple[Game, ...]:
    """About ``count`` positions of one seeded game of random legal play, spread over the
    whole game, and its end (game over): the positions the kernels' differential tests walk."""
    rng = random.Random(seed)
    game = Game.new(preset, players, seed=seed)
    states = []
    while not game.is_over:
        states.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    step = max(1, len(states) // count)
    return (*states[::step], game.clone())
