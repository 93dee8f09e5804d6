"""What the side games' test helpers share (``fifteen_helpers``, ``knock_helpers``): card texts,
placing every card a position leaves unnamed, a fixed generator state, actions as text, and the
hidden-information swaps of the leak tests."""

from __future__ import annotations

import copy
import difflib
import importlib
import os
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, card_to_str, parse_cards


def cards(text: str) -> list[str]:
    """Canonical card strings of a text."""
    return [card_to_str(c) for c in parse_cards(text)]


def place_rest(
    hands: Sequence[list[str]],
    discard: str,
    stock_top: str,
    rest_to: str,
    decks: int,
    jokers: int,
) -> tuple[list[str], list[str]]:
    """The stock and the discard pile (bottom first) of a position whose hands, discard pile
    (bottom first) and stock top (the first card named is drawn first) are given: every other
    card of ``decks`` decks of naturals and ``jokers`` jokers goes to the bottom of the stock
    (``rest_to="stock"``) or of the pile, so the position conserves cards."""
    pool: Counter[int] = Counter({c: decks for c in range(NUM_NATURALS)})
    pool[JOKER] = jokers
    placed = [c for h in hands for c in h] + cards(discard) + cards(stock_top)
    for c in parse_cards(placed):
        pool[c] -= 1
        if pool[c] < 0:
            raise AssertionError(f"{card_to_str(c)} used more times than the decks hold")
    rest = [card_to_str(c) for c in sorted(pool.elements())]
    stock = list(reversed(cards(stock_top)))  # the first card named is the top (drawn first)
    pile = cards(discard)
    if rest_to == "stock":
        return rest + stock, pile
    return stock, rest + pile


def common_state(
    game: str, hands: list[list[str]], stock: list[str], pile: list[str], **fields: Any
) -> dict[str, Any]:
    """A ``to_dict`` state's keys both games have (the seed generator fixed, no seen discards
    and no known cards recorded), then the game's own ``fields``."""
    p = len(hands)
    return {
        "game": game,
        "num_players": p,
        "hands": hands,
        "stock": stock,
        "discard": pile,
        "known": [[] for _ in range(p)],
        "seen_discards": [],
        "rng": fixed_rng(),
        **fields,
    }


def fixed_rng() -> list[Any]:
    """The JSON form of a generator in a fixed state (seeded 12345)."""
    version, state, gauss = random.Random(12345).getstate()
    return [version, list(state), gauss]


def act(game: Any, text: str) -> None:
    """Apply an action given as text (ValueError, game unchanged, if it is illegal)."""
    game.apply(game.action_from_str(text))


def play_bots(game: Any, names: list[str], seed: int = 0) -> Any:
    """Play the game out with these bots by registry name (each action checked legal)."""
    from agents import make_agent

    kind = game.setup.GAME
    bots = [make_agent(n, seed + s, game=kind) for s, n in enumerate(names)]
    view_for = importlib.import_module(f"agents.{kind}").view_for
    while not game.is_over:
        action = bots[game.actor].act(view_for(game))
        assert action in game.legal_actions()
        game.apply(action)
    return game


def check_legal_ids(g: Any, num_actions: int) -> list[int]:
    """A live state's legal ids: at least one, sorted, unique, in range, each with a text form
    that parses back; returns them."""
    legal = g.legal_actions()
    assert legal, "a live state has a legal action"
    assert legal == sorted(set(legal)) and all(0 <= a < num_actions for a in legal)
    for a in legal:
        assert g.action_from_str(g.action_to_str(a)) == a
    return legal


def card_totals(g: Any) -> list[int]:
    """How many of each card type the hands, the stock and the discard pile hold together."""
    total = [0] * NUM_TYPES
    for h in g.hands:
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in g.stock + g.discard:
        total[c] += 1
    return total


def play_checked(
    g: Any,
    rng: random.Random,
    check: Callable[[Any], None],
    check_every: int,
    prefer: Callable[[str], bool],
) -> int:
    """Random legal play to the end, the first action whose text ``prefer`` accepts when there
    is one, ``check`` every ``check_every`` actions and at the end; returns the actions."""
    n = 0
    while not g.is_over:
        if n % check_every == 0:
            check(g)
        legal = g.legal_actions()
        preferred = [a for a in legal if prefer(g.action_to_str(a))]
        g.apply(preferred[0] if preferred else rng.choice(legal))
        n += 1
        assert n <= g.max_game_length
    check(g)
    return n


def first_hand_played_two_ways(game: Any, players: int, turns: int) -> tuple[Any, Any]:
    """Two games dealt from seed 9 whose first hand is played out by different random moves."""
    a = game.new(num_players=players, seed=9, max_turns_per_hand=turns)
    b = game.new(num_players=players, seed=9, max_turns_per_hand=turns)
    for g, rng in ((a, random.Random(1)), (b, random.Random(2))):
        while g.hand_index == 0:
            g.apply(rng.choice(g.legal_actions()))
    return a, b


def legal_texts(game: Any) -> list[str]:
    """The legal actions as text."""
    return [game.action_to_str(a) for a in game.legal_actions()]


def scripted(app: Any, game: Any) -> str:
    """A web-table session (the person at seat 0, greedy bots) with ``game`` behind it; its id."""
    from continental_web.session import new_session

    opponents = ["greedy"] * (game.num_players - 1)
    session = new_session(app.state.opponents, game=game.setup.GAME, opponents=opponents, seed=1)
    session.game = game
    return app.state.store.add(session)


# ----------------------------------------------------------------------------- golden transcripts

GOLDEN = Path(__file__).resolve().parent / "golden"


def golden_moves(
    game: Any, seed: int, lineup: Sequence[str] | None
) -> Iterator[tuple[int, int, int]]:
    """Play the game out: uniform random actions from ``seed`` (``lineup`` None) or these bots
    by registry name; yields ``(seat, action, hands ended before it)`` after each move."""
    from agents import make_agent

    kind = game.setup.GAME
    view_for = importlib.import_module(f"agents.{kind}").view_for
    rng = random.Random(seed)
    bots = [make_agent(n, seed + s, game=kind) for s, n in enumerate(lineup or [])]
    while not game.is_over:
        seat = game.actor
        if lineup is None:
            action = rng.choice(game.legal_actions())
        else:
            action = bots[seat].act(view_for(game))
        hands = len(game.hand_history)
        game.apply(action)
        yield seat, action, hands


def check_golden(name: str, got: str) -> None:
    """Compare a transcript with ``tests/golden/<name>.txt`` (``REGEN_GOLDEN=1`` rewrites it)."""
    import pytest

    path = GOLDEN / f"{name}.txt"
    if os.environ.get("REGEN_GOLDEN"):
        path.write_text(got)
    want = path.read_text()
    if got != want:
        diff = difflib.unified_diff(
            want.splitlines(), got.splitlines(), "golden", "now", n=2, lineterm=""
        )
        pytest.fail(
            f"{path.name} differs (REGEN_GOLDEN=1 to accept on purpose):\n"
            + "\n".join(list(diff)[:60])
        )


# ----------------------------------------------------------------------------- hidden information


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in ("observation", "action_mask"))


def unseen(data: dict[str, Any], seat: int) -> list[str]:
    known = list(data["known"][seat])
    out = []
    for card in data["hands"][seat]:
        if card in known:
            known.remove(card)
        else:
            out.append(card)
    return out


def swap_hidden(data: dict[str, Any], observer: int, rng: random.Random) -> dict[str, Any]:
    """Opponents' unseen cards trade places with stock cards; the stock and generator shuffled
    (the same state keys in both games)."""
    out = copy.deepcopy(data)
    out["rng"][1][0] ^= 1
    stock = out["stock"]
    for seat in range(out["num_players"]):
        if seat == observer:
            continue
        for card in unseen(out, seat)[:4]:
            choices = [i for i, c in enumerate(stock) if c != card]
            if not choices:
                continue
            i = rng.choice(choices)
            out["hands"][seat].remove(card)
            out["hands"][seat].append(stock[i])
            out["hands"][seat].sort()
            stock[i] = card
    rng.shuffle(stock)
    return out
