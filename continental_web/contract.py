"""The contract game at the web table: its moves in words, a round's end, a seat's hand and prompt.

Everything here reads public facts (the action's text form, the discard top before it, the melds
it added, the round's record) or a seat's ``PlayerView``; ``continental_web.view.seat_state``
puts a page together from them. ``second_person`` turns any game's log line about the person
named "you" into the second person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES, card_from_str, card_to_str, format_cards
from continental_env.contract.game import CLAIM, DRAW, PASS, TAKE, Game
from continental_env.rules import PRESETS, RuleConfig
from continental_web.errors import WebError

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
LOG_LENGTH = 150  # log lines a response carries (the page scrolls them)

# ---------------------------------------------------------------------- the table's interface
# (``continental_web.games``: every game's table module has these names)

TITLE = "contract game"
FIELDS = ("preset", "rounds")  # the start page's fields this game takes
MODEL_ABOUT = "a policy trained by self-play ({name})"


def start_options(
    preset: Any, rounds: Any, hands: Any, players: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine's options (``GameSpec.new_game``) and the game's setup from the start page's
    fields; WebError 400 naming a bad one."""
    if hands is not None:
        raise WebError(400, "hands is a field of the fifteen-card game; use rounds")
    if preset is None:
        preset = "continental"  # the default preset
    if not isinstance(preset, str) or preset not in PRESETS:
        raise WebError(400, f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    rules: RuleConfig = PRESETS[preset]
    if not rules.min_players <= players <= rules.max_players:
        raise WebError(
            400,
            f"{players} players: preset {preset!r} allows {rules.min_players}..{rules.max_players}",
        )
    if rounds is not None:
        rules = rules.with_rounds(tuple(_checked_rounds(rounds)))
    chosen = {"preset": preset, "rounds": list(rules.rounds)}
    return dict(chosen), chosen


def _checked_rounds(rounds: Any) -> list[int]:
    """The start page's rounds: 1 to 7 of them, each 1..7; WebError 400 otherwise."""
    if (
        not isinstance(rounds, list)
        or not 1 <= len(rounds) <= 7
        or any(isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 7 for r in rounds)
    ):
        raise WebError(400, f"rounds {str(rounds)[:40]} must list 1 to 7 rounds, each 1..7")
    return rounds


def record_fields(game: Game, config: dict[str, Any]) -> dict[str, Any]:
    """What a record holds of the game's setup: its preset and full rules."""
    return {"preset": config["preset"], "rules": game.rules.to_dict()}


def replay_options(record: dict[str, Any]) -> dict[str, Any]:
    """The engine options a record asks for: a preset's rules, playing a chosen list of its
    rounds (1 to 7); WebError 400 for anything else."""
    preset = record.get("preset")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise WebError(400, f"replay of an unknown preset {str(preset)[:30]!r}")
    raw = record.get("rules")
    try:
        rules = RuleConfig.from_dict(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise WebError(400, f"malformed replay file: {str(exc)[:200]}") from None
    rounds = list(rules.rounds)
    if not 1 <= len(rounds) <= 7 or PRESETS[preset].with_rounds(tuple(rounds)) != rules:
        raise WebError(
            400,
            f"malformed replay file: the rules are not those of the preset {preset!r} "
            "(a record holds a preset's rules, with 1 to 7 of its rounds)",
        )
    return {"rules": rules.to_dict()}


def first_line(game: Game, names: Sequence[str]) -> str:
    """The log's first line: the first deal."""
    state = game.state
    return (
        f"Round {state.round} dealt; {names[state.dealer]} deals, "
        f"{names[state.current]} plays first"
    )


def log_move(
    game: Game, action: int, names: Sequence[str], ends: list[dict[str, Any]] | None
) -> list[str]:
    """Apply ``action`` (ValueError if illegal, game unchanged); the log lines it makes. With
    ``ends``, a round's end appends what was shown when it was counted (``round_end``)."""
    line = describe(game, action, names) if game.is_legal(action) else ""
    melds_before, round_before = len(game.state.table), game.state.round_index
    seen = round_snapshot(game, action) if ends is not None else None
    game.apply(action)
    lines = [line, *after_move(game, melds_before, round_before, names)]
    if seen is not None and ends is not None and game.state.round_index != round_before:
        ends.append(round_end(game, *seen))
    return lines


def round_number(game: Game) -> int:
    """The round being played (the last one once the game is over), counted from 1."""
    return len(game.rules.rounds) if game.is_over else game.state.round_index + 1


def state(
    game: Game, seat: int, names: Sequence[str], log: Sequence[str], extra: dict[str, Any]
) -> dict[str, Any]:
    """Everything the page shows for ``seat``, built from its ``PlayerView``."""
    out = seat_state(PlayerView(game, seat), names, log, extra)
    if game.is_over and game.state.round_history[-1]["closer"] is not None:
        # The last round was closed: the top of the pile is the closing card, face down.
        out["discard_top"] = None
        out["discard_face_down"] = True
    return out


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move ``action`` about to be played in ``game``, in words, from public facts only."""
    seat = game.actor
    who = names[seat]
    text = game.action_to_str(action)
    top = card_to_str(game.state.discard[-1]) if game.state.discard else "?"
    if action == DRAW:
        return f"{who} draws from the stock"
    if action == TAKE:
        return f"{who} takes {top} from the discard pile"
    if action == CLAIM:
        return f"{who} claims {top} and takes a penalty card"
    if action == PASS:
        return f"{who} passes on {top}"
    kind, *args = text.split()
    if kind == "laydown":
        return f"{who} lays down"  # the melds are added by ``after_move``
    if kind == "close":
        return f"{who} closes"
    if kind == "discard":
        return f"{who} discards {args[0]}"
    if kind == "layoff":
        meld = game.state.table[int(args[1])]
        where = f"{possessive(names[meld.owner])} {meld.kind} #{args[1]}"
        end = f" at the {args[2]} end" if len(args) == 3 else ""
        return f"{who} lays off {args[0]} on {where}{end}"
    if kind == "swap":
        meld = game.state.table[int(args[1])]
        owner = possessive(names[meld.owner])
        return f"{who} swaps {args[0]} for the joker in {owner} {meld.kind} #{args[1]}"
    if kind == "movejoker":
        return f"{who} moves the joker of run #{args[0]} to the {args[2]} end of run #{args[1]}"
    return f"{who}: {text}"


def possessive(name: str) -> str:
    """``Casual (1)'s`` or ``your``."""
    return "your" if name.lower() == "you" else f"{name}'s"


# Third-person verbs of the log lines and their second-person forms ("you draw", "you are").
_SECOND_PERSON = {
    "announces": "announce",
    "buys": "buy",
    "calls": "call",
    "claims": "claim",
    "closes": "close",
    "deals": "deal",
    "discards": "discard",
    "does": "do",
    "draws": "draw",
    "goes": "go",
    "has": "have",
    "is": "are",
    "lays": "lay",
    "moves": "move",
    "passes": "pass",
    "pays": "pay",
    "plays": "play",
    "swaps": "swap",
    "takes": "take",
}
_VERB = re.compile(r"\b(" + "|".join(_SECOND_PERSON) + r")\b")
_YOU = re.compile(r"\byou(?:'s)? ", re.IGNORECASE)


def second_person(line: str) -> str:
    """A log line about the person named "you" in the second person: ``you draws`` -> ``you
    draw``, ``you claims 7C and takes`` -> ``you claim 7C and take``, ``you's trio`` ->
    ``your trio``, ``you is out`` -> ``you are out``.

    Each verb of a clause whose subject is "you" (up to the next ``;`` or ``,``) changes.
    """
    if not _YOU.search(line):
        return line
    line = re.sub(r"\b([Yy])ou's\b", r"\1our", line)
    out = []
    for part in re.split(r"([;,:])", line):
        match = re.search(r"\byou (?=\w)", part, re.IGNORECASE)
        if match:
            head, tail = part[: match.end()], part[match.end() :]
            # the verb right after "you", then any "and <verb>" in the same clause
            tail = (
                _VERB.sub(lambda m: _SECOND_PERSON[m[1]], tail, count=1)
                if _VERB.match(tail)
                else tail
            )
            tail = re.sub(
                r"\band (" + "|".join(_SECOND_PERSON) + r")\b",
                lambda m: "and " + _SECOND_PERSON[m[1]],
                tail,
            )
            part = head + tail
        out.append(part)
    return "".join(out)


def after_move(game: Game, melds_before: int, round_before: int, names: Sequence[str]) -> list[str]:
    """Extra log lines after a move: the melds a lay-down added, a round's end."""
    lines = []
    if game.state.round_index == round_before and len(game.state.table) > melds_before:
        for m in range(melds_before, len(game.state.table)):
            meld = game.state.table[m]
            lines.append(f"  {meld.kind} #{m}: {format_cards(meld.cards)}")
    if game.state.round_index != round_before:
        last = game.state.round_history[-1]
        closer = last["closer"]
        how = "nobody closed" if closer is None else f"{names[closer]} closed"
        points = ", ".join(f"{n} {p}" for n, p in zip(names, last["points"], strict=True))
        lines.append(f"Round {last['round']} over: {how}. Points: {points}")
        if not game.is_over:
            lines.append(f"Round {game.state.round} dealt; {names[game.state.dealer]} deals")
    return lines


def round_snapshot(game: Game, action: int) -> tuple[list[list[int]], list[dict[str, Any]], int]:
    """Each hand and the table before ``action``, and its actor: the round's end is counted from
    them if ``action`` ends the round (the engine deals the next round at once)."""
    hands = [list(h) for h in game.state.hands]
    actor = game.actor
    text = game.action_to_str(action).split()
    if text[0] in ("discard", "close") and len(text) > 1:
        hands[actor][card_from_str(text[1])] -= 1  # the card leaves the hand
    elif text[0] == "close":
        hands[actor] = [0] * len(hands[actor])
    table = [
        {"owner": m.owner, "kind": m.kind, "cards": [card_to_str(c) for c in m.cards]}
        for m in game.state.table
    ]
    return hands, table, actor


def round_end(
    game: Game, hands: list[list[int]], table: list[dict[str, Any]], actor: int
) -> dict[str, Any]:
    """What a finished contract round showed: every hand as counted (a seat whose counted cards
    cannot be told from the position before the last move shows none), points, the final table.

    At the table every other player counts the cards still in hand face up (RULES 1.6), so these
    are public once the round is over.
    """
    last = game.state.round_history[-1]
    pts = game.points
    shown: list[list[str] | None] = []
    for s, hand in enumerate(hands):
        if s == last["closer"]:
            shown.append([])
            continue
        cards = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(max(hand[c], 0))]
        counted = sum(n * pts[c] for c, n in enumerate(hand) if n > 0)
        shown.append(cards if counted == last["points"][s] and min(hand) >= 0 else None)
    return {
        "round": last["round"],
        "closer": last["closer"],
        "points": list(last["points"]),
        "shown": shown,
        "table": table,
    }


def contract_text(trios: int, runs: int) -> str:
    """A round's contract in words, e.g. ``2 trios`` or ``1 trio + 1 run``."""
    parts = []
    if trios:
        parts.append(f"{trios} trio{'s' if trios > 1 else ''}")
    if runs:
        parts.append(f"{runs} run{'s' if runs > 1 else ''}")
    return " + ".join(parts)


def hand_groups(view: PlayerView) -> list[dict[str, Any]]:
    """The own hand sorted by suit then rank, one group per suit, jokers last."""
    groups: list[dict[str, Any]] = []
    for suit, letter in enumerate("CDHS"):
        cards = [
            card_to_str(c) for c in range(suit * 13, suit * 13 + 13) for _ in range(view.hand[c])
        ]
        if cards:
            groups.append({"suit": SUIT_NAMES[letter], "cards": cards})
    if view.hand[JOKER]:
        groups.append({"suit": "jokers", "cards": ["JK"] * view.hand[JOKER]})
    return groups


def prompt_text(view: PlayerView, names: Sequence[str]) -> str:
    """Whose turn it is and what is asked, in words, for ``view.seat``."""
    if view.phase == "game_over":
        return "The game is over."
    me = view.seat
    top = card_to_str(view.discard[-1]) if view.discard else None
    if view.phase == "claim":
        if view.asked == me:
            return (
                f"{names[view.current]} declined {top}. Claim {top} "
                "(you also take a penalty card and discard nothing) or pass?"
            )
        return f"{names[view.asked]} is asked whether to claim {top}"
    if view.current != me:
        step = "to draw" if view.phase == "draw" else "to play"
        return f"{names[view.current]}'s turn ({step})"
    if view.phase == "draw":
        if top is None:
            return "Your turn: draw from the stock."
        return f"Your turn: take {top} from the discard pile, or draw from the stock."
    if view.hand_size == 1 and view.laid_down[me]:
        return "Your turn: close with your last card."
    if view.laid_down[me]:
        return "Your turn: lay off, swap jokers, then discard a card (click it twice)."
    return "Your turn: lay down if you can, then discard a card (click it twice)."


def round_results(game: Game) -> list[dict[str, Any]]:
    """Each finished round's points per seat and closer (public once the round is over)."""
    return [
        {
            "round": r["round"],
            "points": list(r["points"]),
            "closer": r["closer"],
            "turns": r["turns"],
            "verb": "closed",
        }
        for r in game.state.round_history
    ]


def seat_state(
    view: PlayerView,
    names: Sequence[str],
    log: Sequence[str],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the page shows for ``view.seat``, built from the view alone."""
    me = view.seat
    trios, runs = view.contract
    p = view.num_players
    seats = []
    for s in range(p):
        known = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(view.known[s][c])]
        seats.append(
            {
                "seat": s,
                "name": names[s],
                "you": s == me,
                "hand_size": view.hand_sizes[s],
                "laid_down": view.laid_down[s],
                "claims": view.claims[s],
                "score": view.scores[s],
                "dealer": s == view.dealer,
                "known": known if s != me else [],
            }
        )
    table = [
        {
            "index": m,
            "owner": meld.owner,
            "owner_name": names[meld.owner],
            "kind": meld.kind,
            "cards": [card_to_str(c) for c in meld.cards],
        }
        for m, meld in enumerate(view.table)
    ]
    actor = (
        None
        if view.phase == "game_over"
        else (view.asked if view.phase == "claim" else view.current)
    )
    legal = [{"id": a, "text": view.action_to_str(a)} for a in view.legal_actions]
    number = (extra or {}).get("round_number")
    short = f" (contract round {view.round})" if len(view.rules.rounds) < 7 else ""
    state: dict[str, Any] = {
        "game": "contract",
        "title": f"Continental · {view.rules.name}",
        "round_text": f"round {number} of {len(view.rules.rounds)}{short}",
        "goal_text": "" if view.phase == "game_over" else f"Contract: {contract_text(trios, runs)}",
        "round_label": "round",
        "auto_pass": True,  # claims out of turn: the page offers "pass on claims"
        "nobody_text": "Nobody closed (stock or turn limit)",
        "not_shown_text": "not shown",
        "preset": view.rules.name,
        "num_players": p,
        "seat": me,
        "names": list(names),
        "round": view.round,
        "round_number": None,
        "rounds": list(view.rules.rounds),
        "contract": {"trios": trios, "runs": runs, "text": contract_text(trios, runs)},
        "phase": view.phase,
        "current": view.current,
        "asked": view.asked,
        "actor": actor,
        "your_move": actor == me,
        "dealer": view.dealer,
        "turn": view.turn,
        "prompt": prompt_text(view, names),
        "hand": hand_groups(view),
        "hand_size": view.hand_size,
        "table": table,
        "discard_top": card_to_str(view.discard[-1]) if view.discard else None,
        "discard_face_down": False,
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "seats": seats,
        "legal": legal,
        "log": list(log[-LOG_LENGTH:]),
    }
    if extra:
        state.update(extra)
    return state
