"""Games in progress and replays, independent of the web framework.

Everything a page receives is built here by ``seat_state`` from the seat's ``PlayerView``
(``agents.base``): the own hand, the table, the face-up discard, sizes, scores, claims and the
cards a seat is publicly known to hold. Opponents' other cards, the stock order, the deal seeds
and the generator state never reach a response. The log of recent actions is written from public
facts only (the action's text form, the discard top before it, the melds it added), so it cannot
name a card drawn from the stock or a closing card placed face down.

A finished game's record (``record``) holds the seed and every action as text; replaying it
through the engine rebuilds every position, hidden cards included, so a record is offered only
once the game is over. ``Replay`` steps through a record and shows each position from one seat's
view (by default the seat the person played), never from everyone's at once.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.base import PlayerView
from continental_env.cards import JOKER, NUM_TYPES, card_to_str, format_cards
from continental_env.game import CLAIM, DRAW, PASS, TAKE, Game
from continental_env.rules import PRESETS, RuleConfig

try:  # the other games plug in when their engines and bots exist
    from agents.fifteen import AGENT_NAMES as FIFTEEN_BOTS
    from continental_env.fifteen.game import Game as FifteenGame
    from continental_web import fifteen
except ImportError:  # pragma: no cover - an installation without the fifteen-card game
    fifteen = None  # type: ignore[assignment]
    FifteenGame = None  # type: ignore[assignment,misc]
    FIFTEEN_BOTS = ()
try:
    from agents.knock import AGENT_NAMES as KNOCK_BOTS
    from agents.knock import KnockView
    from continental_env.knock.game import Game as KnockGame
    from continental_web import knock
except ImportError:  # pragma: no cover - an installation without the knock game
    knock = None  # type: ignore[assignment]
    KnockGame = None  # type: ignore[assignment,misc]
    KNOCK_BOTS = ()

RECORD_FORMAT = "continental-web-replay"
RECORD_VERSION = 1
LOG_LENGTH = 40
MAX_GAMES = 64  # games kept in memory; the oldest finished (then oldest) is dropped beyond it
MAX_SEED = 2**63 - 1
BOT_NAMES = ("random", "greedy", "strong", "search")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

# Game families the page can start: label, presets with their player ranges. A game plugs in
# with an entry here, a module like ``continental_web.fifteen`` (its moves in words and a seat's
# view), and the dispatch on its engine class in ``play_logged``, ``build_state`` and ``Replay``.
GAMES: dict[str, dict[str, Any]] = {
    "continental": {
        "label": "Continental (contract game)",
        "presets": {
            name: {"min_players": r.min_players, "max_players": r.max_players}
            for name, r in PRESETS.items()
        },
    },
}
if fifteen is not None:
    GAMES["fifteen"] = {
        "label": "Fifteen-card game (sequences, chips)",
        "presets": {"fifteen": dict(fifteen.PLAYERS)},
    }
if knock is not None:
    GAMES["knock"] = {
        "label": "Knock game (knock rummy, chips and a pot)",
        "presets": {"knock": dict(knock.PLAYERS)},
    }


class WebError(Exception):
    """A refused request: ``status`` is the HTTP status, the message says what and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------- opponents


def available_bots() -> list[str]:
    """Bot names ``make_agent`` accepts on this installation (``search`` only if it exists)."""
    names = []
    for name in BOT_NAMES:
        try:
            make_agent(name, 0)
        except ValueError:
            continue
        names.append(name)
    return names


def model_files(models_dir: Path | None) -> dict[str, Path]:
    """Shipped PPO models by name (file stem); the page only ever sees the names."""
    if models_dir is None or not models_dir.is_dir():
        return {}
    return {p.stem: p for p in sorted(models_dir.glob("*.zip"))}


def default_models_dir() -> Path:
    """``agents/models`` of the installed ``agents`` package."""
    import agents

    return Path(agents.__file__).resolve().parent / "models"


class Opponents:
    """The opponent names the server offers, and how to build each one."""

    def __init__(self, models_dir: Path | None = None) -> None:
        self.bots = available_bots()
        self.models = model_files(models_dir)

    def names(self, game: str = "continental") -> list[str]:
        """Every name the start page may send for ``game``."""
        if game == "fifteen":
            return list(FIFTEEN_BOTS)
        if game == "knock":
            return list(KNOCK_BOTS)
        return [*self.bots, *self.models]

    def build(self, name: str, seed: int, game: Any, seat: int, kind: str = "continental") -> Any:
        """The agent for ``name`` at ``seat``; WebError 400 for a name the server does not offer."""
        offered = self.names(kind)
        if not isinstance(name, str) or name not in offered:
            raise WebError(
                400, f"unknown opponent {name!r} for {kind}; choose one of {', '.join(offered)}"
            )
        if kind != "continental":
            return make_agent(name, seed, game=kind)
        if name in self.bots:
            return make_agent(name, seed)
        try:
            agent = make_agent(f"ppo:{self.models[name]}", seed)
        except ImportError as exc:
            raise WebError(400, f"opponent {name!r} needs the [train] extra: {exc}") from None
        from agents.ppo_agent import check_table

        try:
            check_table(agent, game.num_players)  # the model's own table size and observation
        except ValueError as exc:
            raise WebError(400, f"opponent {name!r}: {exc}") from None
        return agent


# ---------------------------------------------------------------------- describing moves


def describe(game: Game, action: int, names: Sequence[str]) -> str:
    """The move ``action`` about to be played in ``game``, in words, from public facts only."""
    seat = game.actor
    who = names[seat]
    text = game.action_to_str(action)
    if who.lower() == "you":  # "you pass", not "you passes"
        return _second_person(describe(game, action, [*names[:seat], "@", *names[seat + 1 :]]))
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
    """``greedy (1)'s`` or ``your``."""
    return "your" if name.lower() == "you" else f"{name}'s"


_BASE_FORMS = {
    "draws": "draw",
    "takes": "take",
    "claims": "claim",
    "passes": "pass",
    "lays": "lay",
    "closes": "close",
    "discards": "discard",
    "swaps": "swap",
    "moves": "move",
}


def _second_person(line: str) -> str:
    """``@ draws ...`` -> ``you draw ...``."""
    verb, _, rest = line[2:].partition(" ")
    return f"you {_BASE_FORMS.get(verb, verb)} {rest}".rstrip()


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


def play_logged(game: Any, action: int, names: Sequence[str], log: list[str]) -> None:
    """Apply ``action`` (ValueError if illegal, game unchanged) and append its description."""
    if FifteenGame is not None and isinstance(game, FifteenGame):
        line = fifteen.describe(game, action, names) if game.is_legal(action) else ""
        hands_before = len(game.hand_history)
        game.apply(action)
        log.append(line)
        log.extend(fifteen.after_move(game, hands_before, names))
        return
    if KnockGame is not None and isinstance(game, KnockGame):
        line = knock.describe(game, action, names) if game.is_legal(action) else ""
        hands_before, dealt_before = len(game.hand_history), game.hand_index
        game.apply(action)
        log.append(line)
        log.extend(knock.after_move(game, hands_before, names))
        if game.hand_index != dealt_before and not game.is_over:
            log.append(knock.dealt_line(game, names))
        return
    line = describe(game, action, names) if game.is_legal(action) else ""
    melds_before, round_before = len(game.state.table), game.state.round_index
    game.apply(action)
    log.append(line)
    log.extend(after_move(game, melds_before, round_before, names))


# ---------------------------------------------------------------------- what a seat sees


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
    state: dict[str, Any] = {
        "game": "continental",
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


def round_results(game: Game) -> list[dict[str, Any]]:
    """Each finished round's points per seat and closer (public once the round is over)."""
    return [
        {
            "round": r["round"],
            "points": list(r["points"]),
            "closer": r["closer"],
            "turns": r["turns"],
        }
        for r in game.state.round_history
    ]


# ---------------------------------------------------------------------- a game in progress


@dataclass
class Session:
    """One game between a person and bots: engine, bots, names, log and record."""

    game: Game
    seat: int
    names: list[str]
    bots: dict[int, Any]
    config: dict[str, Any]
    seed: int
    kind: str = "continental"
    log: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    created: int = 0

    def state(self) -> dict[str, Any]:
        """The page's data for the person's seat."""
        return build_state(self.game, self.seat, self.names, self.log, self.config, self.seed)

    def move(self, text: Any) -> dict[str, Any]:
        """Play the person's move given as text; WebError 400/409 naming it if refused."""
        game = self.game
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise WebError(400, f"malformed move {text!r}: expected an action text such as 'draw'")
        if game.is_over:
            raise WebError(409, f"move {text!r} refused: the game is over")
        try:
            action = game.action_from_str(text)
        except ValueError as exc:
            raise WebError(400, f"malformed move {text!r}: {exc}") from None
        if game.actor != self.seat:
            raise WebError(
                409, f"move {text!r} refused: it is {self.names[game.actor]}'s move, not yours"
            )
        if not game.is_legal(action):
            try:
                game.apply(action)  # raises with the engine's reason and changes nothing
            except ValueError as exc:
                raise WebError(409, f"move {text!r} refused: {exc}") from None
            raise AssertionError("an illegal action was applied")  # pragma: no cover
        self._play(action)
        return self.state()

    def advance(self) -> dict[str, Any]:
        """Let the bot to act make one move; WebError 409 if the person is to act."""
        game = self.game
        if game.is_over:
            raise WebError(409, "no bot to move: the game is over")
        actor = game.actor
        if actor == self.seat:
            raise WebError(409, "no bot to move: it is your move")
        if self.kind == "fifteen":
            view = fifteen.FifteenView(game, actor)
        elif self.kind == "knock":
            view = KnockView(game, actor)
        else:
            view = PlayerView(game, actor)
        action = self.bots[actor].act(view)
        self._play(action)
        return self.state()

    def _play(self, action: int) -> None:
        text = self.game.action_to_str(action)
        play_logged(self.game, action, self.names, self.log)
        self.actions.append(text)
        del self.log[:-LOG_LENGTH]

    def record(self) -> dict[str, Any]:
        """The finished game as a replay file; WebError 409 while it is still being played."""
        if not self.game.is_over:
            raise WebError(
                409,
                "the replay is offered once the game is over (it holds the seed and every move, "
                "so it would reveal the hidden cards)",
            )
        if self.kind == "fifteen":
            rules: dict[str, Any] = {"options": fifteen.options(self.game)}
        elif self.kind == "knock":
            rules = {"options": knock.options(self.game)}
        else:
            rules = {"preset": self.config["preset"], "rules": self.game.rules.to_dict()}
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": self.kind,
            **rules,
            "num_players": self.game.num_players,
            "seed": self.seed,
            "seat": self.seat,
            "names": list(self.names),
            "opponents": list(self.config["opponents"]),
            "actions": list(self.actions),
            "scores": list(self.game.scores),
        }


def build_state(
    game: Any,
    seat: int,
    names: Sequence[str],
    log: Sequence[str],
    config: dict[str, Any],
    seed: int | None,
) -> dict[str, Any]:
    """``seat_state`` of the live game plus the finished rounds (and the seed once it is over)."""
    if FifteenGame is not None and isinstance(game, FifteenGame):
        extra: dict[str, Any] = {
            "config": dict(config),
            "rounds_played": fifteen.round_results(game),
            "round_number": len(game.hand_history) + (0 if game.is_over else 1),
            "game_over": game.is_over,
        }
        if game.is_over:
            extra["winners"] = game.winners()
            extra["seed"] = seed
        return fifteen.state(game, seat, names, log, extra)
    if KnockGame is not None and isinstance(game, KnockGame):
        extra = {
            "config": dict(config),
            "rounds_played": knock.round_results(game),
            "round_number": len(game.hand_history) + (0 if game.is_over else 1),
            "game_over": game.is_over,
        }
        if game.is_over:
            extra["winners"] = game.winners()
            extra["seed"] = seed
        return knock.state(game, seat, names, log, extra)
    view = PlayerView(game, seat)
    extra: dict[str, Any] = {
        "config": dict(config),
        "rounds_played": round_results(game),
        "round_number": game.state.round_index + 1 if not game.is_over else len(game.rules.rounds),
        "game_over": game.is_over,
    }
    if game.is_over:
        extra["winners"] = game.winners()
        extra["seed"] = seed
    state = seat_state(view, names, log, extra)
    if game.is_over and game.state.round_history[-1]["closer"] is not None:
        # The last round was closed: the top of the pile is the closing card, face down.
        state["discard_top"] = None
        state["discard_face_down"] = True
    return state


def new_session(
    opponents_offer: Opponents,
    game: Any = "continental",
    preset: Any = "continental",
    opponents: Any = ("greedy",),
    seed: Any = None,
    seat: Any = 0,
    rounds: Any = None,
    name: Any = "you",
    hands: Any = None,
) -> Session:
    """A new game from the start page's fields, each checked; WebError 400 naming a bad one."""
    if not isinstance(game, str) or game not in GAMES:
        raise WebError(400, f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    if game == "fifteen":
        return _new_fifteen(opponents_offer, opponents, seed, seat, hands, name)
    if game == "knock":
        if hands is not None or rounds is not None:
            raise WebError(400, "the knock game plays until one player is left: no rounds or hands")
        return _new_knock(opponents_offer, opponents, seed, seat, name)
    if hands is not None:
        raise WebError(400, "hands is a field of the fifteen-card game; use rounds")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise WebError(400, f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    rules: RuleConfig = PRESETS[preset]
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    if not rules.min_players <= players <= rules.max_players:
        raise WebError(
            400,
            f"{players} players: preset {preset!r} allows {rules.min_players}..{rules.max_players}",
        )
    seed = _check_common(seed, seat, players, name)
    if rounds is not None:
        if (
            not isinstance(rounds, list)
            or not rounds
            or any(isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 7 for r in rounds)
        ):
            raise WebError(400, f"rounds {rounds!r} must be a non-empty list of 1..7")
        rules = rules.with_rounds(tuple(rounds))
    g = Game.new(rules, players, seed=seed)
    names: list[str] = []
    bots: dict[int, Any] = {}
    queue = list(opponents)
    for s in range(players):
        if s == seat:
            names.append(name.strip())
            continue
        bot = queue.pop(0)
        bots[s] = opponents_offer.build(bot, seed * 1000 + s, g, s)
        names.append(f"{bot} ({s})")
    config = {
        "game": game,
        "preset": preset,
        "opponents": list(opponents),
        "seat": seat,
        "rounds": list(rules.rounds),
    }
    session = Session(g, seat, names, bots, config, seed)
    session.log.append(
        f"Round {g.state.round} dealt; {names[g.state.dealer]} deals, {names[g.state.current]} plays first"
    )
    return session


def _check_common(seed: Any, seat: Any, players: int, name: Any) -> int:
    """The seed (drawn when empty), seat and name fields; WebError 400 naming a bad one."""
    if seed is None or seed == "":
        seed = secrets.randbelow(MAX_SEED)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise WebError(400, f"seed {seed!r} must be an integer in 0..{MAX_SEED} (or empty)")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebError(400, f"seat {seat!r} must be an integer in 0..{players - 1}")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 20:
        raise WebError(400, "name must be 1..20 characters")
    return seed


def _new_fifteen(
    offer: Opponents, opponents: Any, seed: Any, seat: Any, hands: Any, name: Any
) -> Session:
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    limits = GAMES["fifteen"]["presets"]["fifteen"]
    if not limits["min_players"] <= players <= limits["max_players"]:
        raise WebError(
            400,
            f"{players} players: the fifteen-card game allows "
            f"{limits['min_players']}..{limits['max_players']}",
        )
    seed = _check_common(seed, seat, players, name)
    if hands is not None and (
        isinstance(hands, bool) or not isinstance(hands, int) or not 1 <= hands <= 20
    ):
        raise WebError(400, f"hands {hands!r} must be an integer in 1..20 (or empty: to 50 chips)")
    g = fifteen.new_game(players, seed, hands)
    names: list[str] = []
    bots: dict[int, Any] = {}
    queue = list(opponents)
    for s in range(players):
        if s == seat:
            names.append(name.strip())
            continue
        bot = queue.pop(0)
        bots[s] = offer.build(bot, seed * 1000 + s, g, s, kind="fifteen")
        names.append(f"{bot} ({s})")
    config = {
        "game": "fifteen",
        "preset": "fifteen",
        "opponents": list(opponents),
        "seat": seat,
        "hands_to_play": hands,
    }
    session = Session(g, seat, names, bots, config, seed, kind="fifteen")
    session.log.append(f"Hand 1 dealt; {names[g.dealer]} deals, {names[g.current]} plays first")
    return session


def _new_knock(offer: Opponents, opponents: Any, seed: Any, seat: Any, name: Any) -> Session:
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    limits = GAMES["knock"]["presets"]["knock"]
    if not limits["min_players"] <= players <= limits["max_players"]:
        raise WebError(
            400,
            f"{players} players: the knock game allows "
            f"{limits['min_players']}..{limits['max_players']}",
        )
    seed = _check_common(seed, seat, players, name)
    g = knock.new_game(players, seed)
    names: list[str] = []
    bots: dict[int, Any] = {}
    queue = list(opponents)
    for s in range(players):
        if s == seat:
            names.append(name.strip())
            continue
        bot = queue.pop(0)
        bots[s] = offer.build(bot, seed * 1000 + s, g, s, kind="knock")
        names.append(f"{bot} ({s})")
    config = {"game": "knock", "preset": "knock", "opponents": list(opponents), "seat": seat}
    session = Session(g, seat, names, bots, config, seed, kind="knock")
    session.log.append(knock.dealt_line(g, names))
    return session


class SessionStore:
    """Games by unguessable id; one lock for the dictionary, one per game for its moves."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self.max_games = max_games
        self._games: dict[str, Session] = {}
        self._replays: dict[str, Replay] = {}
        self._lock = threading.Lock()
        self._counter = 0

    def add(self, session: Session) -> str:
        """Store a session under a fresh id."""
        with self._lock:
            self._counter += 1
            session.created = self._counter
            game_id = secrets.token_urlsafe(16)
            self._games[game_id] = session
            while len(self._games) > self.max_games:
                victim = min(
                    self._games,
                    key=lambda k: (not self._games[k].game.is_over, self._games[k].created),
                )
                del self._games[victim]
            return game_id

    def get(self, game_id: str) -> Session:
        """The session for an id; WebError 404 if there is none."""
        with self._lock:
            session = self._games.get(game_id)
        if session is None:
            raise WebError(404, "no such game (it may have ended and been dropped)")
        return session

    def run(self, game_id: str, fn: Callable[[Session], Any]) -> Any:
        """Call ``fn(session)`` holding that game's lock."""
        session = self.get(game_id)
        with session.lock:
            return fn(session)

    def add_replay(self, replay: Replay) -> str:
        """Store a replay under a fresh id."""
        with self._lock:
            replay_id = secrets.token_urlsafe(16)
            self._replays[replay_id] = replay
            while len(self._replays) > self.max_games:
                del self._replays[next(iter(self._replays))]
            return replay_id

    def get_replay(self, replay_id: str) -> Replay:
        """The replay for an id; WebError 404 if there is none."""
        with self._lock:
            replay = self._replays.get(replay_id)
        if replay is None:
            raise WebError(404, "no such replay")
        return replay


# ---------------------------------------------------------------------- replays


class Replay:
    """A recorded game replayed through the engine, shown step by step from one seat."""

    def __init__(self, record: Any) -> None:
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise WebError(400, f'not a replay file: expected "format": "{RECORD_FORMAT}"')
        if record.get("version") != RECORD_VERSION:
            raise WebError(400, f"replay version {record.get('version')!r} is not {RECORD_VERSION}")
        kind = record.get("game", "continental")
        if kind not in GAMES:
            raise WebError(400, f"replay of an unknown game {kind!r}")
        try:
            rules = None if kind in ("fifteen", "knock") else RuleConfig.from_dict(record["rules"])
            players = record["num_players"]
            seed = record["seed"]
            names = record["names"]
            actions = record["actions"]
            seat = record.get("seat", 0)
        except (KeyError, TypeError, ValueError) as exc:
            raise WebError(400, f"malformed replay file: {exc}") from None
        if not isinstance(players, int) or not isinstance(seed, int) or isinstance(seed, bool):
            raise WebError(400, "malformed replay file: num_players and seed must be integers")
        if (
            not isinstance(names, list)
            or len(names) != players
            or not all(isinstance(n, str) for n in names)
        ):
            raise WebError(400, "malformed replay file: names must list one string per seat")
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise WebError(400, "malformed replay file: actions must be a list of action texts")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise WebError(400, f"malformed replay file: seat {seat!r}")
        try:
            if kind == "fifteen":
                opts = record.get("options")
                allowed = {"target", "hands", "max_turns_per_hand", "max_hands"}
                if not isinstance(opts, dict) or not set(opts) <= allowed:
                    raise ValueError(f"options must be a dict with keys among {sorted(allowed)}")
                self.start = FifteenGame.new(players, seed=seed, **opts)
            elif kind == "knock":
                opts = record.get("options")
                allowed = {"stake", "max_turns_per_hand", "max_hands"}
                if not isinstance(opts, dict) or not set(opts) <= allowed:
                    raise ValueError(f"options must be a dict with keys among {sorted(allowed)}")
                self.start = KnockGame.new(players, seed=seed, **opts)
            else:
                self.start = Game.new(rules, players, seed=seed)
        except (TypeError, ValueError) as exc:
            raise WebError(400, f"malformed replay file: {exc}") from None
        self.names = [str(n)[:40] for n in names]
        self.seat = seat
        self.kind = kind
        self.preset = str(record.get("preset") or (rules.name if rules else kind))
        # Check the whole record once: every action legal where it is played.
        self.ids: list[int] = []
        game = self.start.clone()
        for i, text in enumerate(actions):
            try:
                action = game.action_from_str(text)
                game.apply(action)
            except ValueError as exc:
                raise WebError(400, f"replay move {i} {text!r} refused: {exc}") from None
            self.ids.append(action)
        self.final_scores = list(game.scores)
        self.lock = threading.Lock()
        self._cursor = self.start.clone()
        self._cursor_log: list[str] = ["Dealt"]
        self._cursor_step = 0

    @property
    def steps(self) -> int:
        """Number of moves in the record."""
        return len(self.ids)

    def frame(self, step: Any, seat: Any = None) -> dict[str, Any]:
        """The position after ``step`` moves, from ``seat``'s view (default the recorded seat)."""
        seat = self.seat if seat is None else seat
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise WebError(400, f"step {step!r} must be in 0..{self.steps}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            raise WebError(400, f"seat {seat!r} must be in 0..{len(self.names) - 1}")
        with self.lock:
            if step < self._cursor_step:
                self._cursor = self.start.clone()
                self._cursor_log = ["Dealt"]
                self._cursor_step = 0
            while self._cursor_step < step:
                play_logged(self._cursor, self.ids[self._cursor_step], self.names, self._cursor_log)
                self._cursor_step += 1
            game = self._cursor
            config = {"game": self.kind, "preset": self.preset}
            state = build_state(game, seat, self.names, self._cursor_log, config, None)
            following = self._next_text(step)
        state["legal"] = []  # a replay is watched, not played
        state["your_move"] = False
        state["replay"] = {
            "step": step,
            "steps": self.steps,
            "seat": seat,
            "recorded_seat": self.seat,
            "next": following,
            "final_scores": self.final_scores,
        }
        return state

    def _next_text(self, step: int) -> str | None:
        """Who moves next, without naming a hidden card (the move itself shows on the next step)."""
        if step >= self.steps:
            return None
        actor = self._cursor.actor
        return None if actor is None else f"{self.names[actor]} to move"


def load_record_file(results_dir: Path | None, name: Any) -> dict[str, Any]:
    """A replay file from ``results_dir`` chosen by its listed name, never by a path."""
    import json

    files = record_files(results_dir)
    if not isinstance(name, str) or name not in files:
        raise WebError(400, f"no replay file named {name!r} in the results folder")
    try:
        return json.loads((results_dir / name).read_text(encoding="utf-8"))  # type: ignore[operator]
    except (OSError, ValueError) as exc:
        raise WebError(400, f"cannot read replay file {name!r}: {exc}") from None


def record_files(results_dir: Path | None) -> list[str]:
    """Names of the replay files in ``results_dir`` (JSON files with the replay format tag)."""
    if results_dir is None or not results_dir.is_dir():
        return []
    names = []
    for path in sorted(results_dir.glob("*.json")):
        try:
            head = path.read_text(encoding="utf-8")[:200]
        except OSError:
            continue
        if RECORD_FORMAT in head:
            names.append(path.name)
    return names
