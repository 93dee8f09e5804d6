"""Loading a fifteen-card game from its JSON form, every field checked (``Game.from_dict``)."""

from __future__ import annotations

import random
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, card_from_str, card_to_str

_REQUIRED = (
    "num_players",
    "hand_index",
    "dealer",
    "current",
    "phase",
    "hands",
    "stock",
    "discard",
    "scores",
    "rng",
    "deal_seeds",
)


def _fail(msg: str) -> None:
    raise ValueError(f"malformed fifteen-card game state: {msg}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _counts(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        _fail(f"{where} must be a list of card strings")
    counts = [0] * NUM_TYPES
    for c in value:
        if not isinstance(c, str):
            _fail(f"{where}: {c!r} is not a card string")
        try:
            counts[card_from_str(c)] += 1
        except ValueError as exc:
            _fail(f"{where}: {exc}")
    return counts


def _cards(value: Any, where: str) -> list[int]:
    counts = _counts(value, where)  # validates
    del counts
    return [card_from_str(c) for c in value]


def _per_seat(data: dict, key: str, p: int, check: Any, what: str, default: Any = None) -> list:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != p:
        _fail(f"{key!r} must be a list with one entry per seat ({p})")
    if not all(check(v) for v in value):
        _fail(f"{key!r} entries must be {what}")
    return list(value)


def load_state(cls: type, data: Any) -> Any:
    """Build a ``Game`` from ``Game.to_dict`` output, validating as it goes."""
    if not isinstance(data, dict):
        _fail("expected a dict")
    if data.get("game", "fifteen") != "fifteen":
        _fail(f"'game' is {data.get('game')!r}, not 'fifteen'")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        _fail(f"missing fields {missing}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        _fail("'options' must be a dict")
    unknown = set(options) - {"target", "hands", "max_turns_per_hand", "max_hands"}
    if unknown:
        _fail(f"unknown options {sorted(unknown)}")
    try:
        game = cls(
            data["num_players"],
            options.get("target", 50),
            options.get("hands"),
            options.get("max_turns_per_hand", 200),
            options.get("max_hands", 100),
        )
    except ValueError as exc:
        _fail(str(exc))
    p = game.num_players
    phase = data["phase"]
    if phase not in ("draw", "play", "game_over"):
        _fail(f"unknown phase {phase!r}")
    game.phase = phase
    idx = data["hand_index"]
    last = game.hands_cap if phase == "game_over" else game.hands_cap - 1
    if not _is_int(idx) or not 0 <= idx <= last:
        _fail(f"hand_index {idx!r} must be 0..{last}")
    game.hand_index = idx
    for key in ("dealer", "current"):
        v = data[key]
        if not _is_int(v) or not 0 <= v < p:
            _fail(f"{key!r} must be a seat 0..{p - 1}, got {v!r}")
    game.dealer = data["dealer"]
    game.current = data["current"]
    if phase != "game_over" and game.dealer != idx % p:
        _fail(f"dealer {game.dealer} is not the dealer of hand {idx + 1} (seat {idx % p})")

    hands = data["hands"]
    if not isinstance(hands, list) or len(hands) != p:
        _fail(f"'hands' must hold one list per seat ({p})")
    game.hands = [_counts(h, f"hands[{s}]") for s, h in enumerate(hands)]
    game.stock = _cards(data["stock"], "stock")
    game.discard = _cards(data["discard"], "discard")
    game.scores = _per_seat(data, "scores", p, _is_int, "ints")
    if sum(game.scores) != 0:
        _fail(f"scores {game.scores} must sum to 0 (every payment is zero-sum)")
    game.turn = data.get("turn", 0)
    if not _is_int(game.turn) or not 0 <= game.turn < game.max_turns_per_hand:
        _fail(f"'turn' must be an int in 0..{game.max_turns_per_hand - 1}")
    default_played = [False] * p
    game.has_played = _per_seat(
        data, "has_played", p, lambda v: isinstance(v, bool), "bools", default_played
    )
    known = data.get("known", [[] for _ in range(p)])
    if not isinstance(known, list) or len(known) != p:
        _fail(f"'known' must hold one list per seat ({p})")
    game.known = [_counts(k, f"known[{s}]") for s, k in enumerate(known)]
    for s in range(p):
        if any(game.known[s][c] > game.hands[s][c] for c in range(NUM_TYPES)):
            _fail(f"known[{s}] lists cards that are not in that hand")
    game.seen_discards = _counts(data.get("seen_discards", []), "seen_discards")
    history = data.get("hand_history", [])
    if not isinstance(history, list) or any(
        not isinstance(r, dict) or not isinstance(r.get("chips"), list) for r in history
    ):
        _fail("'hand_history' must be a list of records with 'chips'")
    from continental_env.fifteen.game import _copy_record

    game.hand_history = [_copy_record(r) for r in history]
    moves = data.get("moves", 0)
    if not _is_int(moves) or moves < 0:
        _fail("'moves' must be a non-negative int")
    game.moves = moves

    if phase != "game_over":
        # Hand sizes: 15 each, 16 for the player in turn after drawing.
        for s in range(p):
            want = 16 if phase == "play" and s == game.current else 15
            if sum(game.hands[s]) != want:
                _fail(f"hands[{s}] holds {sum(game.hands[s])} cards, expected {want}")
        # Every card of the decks is somewhere, exactly once.
        total = [0] * NUM_TYPES
        for h in game.hands:
            for c in range(NUM_TYPES):
                total[c] += h[c]
        for c in game.stock + game.discard:
            total[c] += 1
        expected = [game.decks] * NUM_NATURALS + [game.decks]
        if total != expected:
            wrong = next(c for c in range(NUM_TYPES) if total[c] != expected[c])
            _fail(
                f"cards are not conserved: {card_to_str(wrong)} appears {total[wrong]} times, "
                f"expected {expected[wrong]} ({game.decks} decks and {game.decks} "
                f"{card_to_str(JOKER)})"
            )
    rng = data["rng"]
    try:
        version, state, gauss = rng
        game.rng = random.Random()
        game.rng.setstate((version, tuple(state), gauss))
    except (TypeError, ValueError) as exc:
        _fail(f"rng: {exc}")
    seeds = data["deal_seeds"]
    if (
        not isinstance(seeds, list)
        or len(seeds) != game.hands_cap
        or not all(_is_int(x) for x in seeds)
    ):
        _fail(f"'deal_seeds' must be a list of {game.hands_cap} ints, one per possible hand")
    game.deal_seeds = list(seeds)
    game._legal = None
    return game
