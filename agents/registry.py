"""Every bot of every game by name: the one registry the harness, training, the terminal table
and the web table build their bots from (``make_agent(name, seed, game=...)``).

| game | name | bot |
|---|---|---|
| all | ``random`` | uniform over the legal actions (``agents.bots.random_agent``) |
| all | ``greedy`` | the simplest sound play (``agents.contract.greedy``, ``agents.{fifteen,knock}.greedy``) |
| all | ``strong`` | the best heuristic bot (contract: today ``strong@v1``, see ``CURRENT``) |
| all | ``ppo:PATH`` | a trained MaskablePPO policy, played by a numpy forward pass |
| contract | ``strong@v1`` | plays to win: card values from the cards seen, claims weighed (``agents.contract.strong``), frozen |
| contract | ``strong@v2`` | v1 with a whole-table feed model, danger-aware dumping, inference from discards (``agents.contract.strong_tuned``), frozen |
| contract | ``strong-v2:K=V[:K=V...]`` | experimental: ``strong@v2`` with constants overridden (``:v1`` first starts from v1's), for ablations and tuning |
| contract | ``search``, ``search:N`` | the best search bot (today ``search@v6``, ``search@v6:N``) |
| contract | ``search@v1``, ``search@v1:N`` | determinized search: N sampled worlds per decision, ``strong@v1`` rollouts (``agents.contract.search``), frozen |
| contract | ``search@v2``, ``search@v2:N`` | wider search: discards searched once an opponent is down, worlds added while a decision is close, up to N (``agents.contract.search_adaptive``), frozen |
| contract | ``search@v3``, ``search@v3:N`` | ``search@v2`` over worlds whose opponents are resampled toward their contract as real players are (``agents.contract.beliefs``), frozen |
| contract | ``search@v4``, ``search@v4:N`` | ``search@v3`` whose resampled opponents also hold few partners of the cards they discarded or declined this round (``agents.contract.beliefs``, history), frozen |
| contract | ``search@v5``, ``search@v5:N`` | ``search@v4`` whose close decisions may grow to 48 worlds (16 before), frozen |
| contract | ``search@v6``, ``search@v6:N`` | ``search@v5``'s search guarding the move of ``ppo:selfplay3_continental_4p`` instead of ``strong@v1``'s (``agents.contract.search_prior``), frozen |
| contract | ``search-v2:K=V[:K=V...]`` | experimental: ``search@v2`` with settings overridden, for ablations |
| contract | ``search-prior[:model=NAME][:K=V...]`` | experimental: ``search@v5``'s search guarding a network's move (``ppo:selfplay3_continental_4p`` unless named) instead of ``strong@v1``'s (``agents.contract.search_prior``) |
| contract | ``search-oracle``, ``search-oracle:N`` | diagnostic only: search rolling out the *real* hidden hands (``agents.contract.search_oracle``); refused by the harness unless allowed |
| contract | ``search-oracle-v2``, ``search-oracle-v2:N`` | diagnostic only: the same for ``search@v2`` |
| contract | ``search-oracle-v6``, ``search-oracle-v6:N`` | diagnostic only: the same for ``search@v6`` |
| contract | ``openspiel-ismcts``, ``openspiel-ismcts:N`` | OpenSpiel's information-set MCTS, N simulations per decision over worlds sampled from the view (``agents.contract.openspiel_ismcts``; the ``[openspiel]`` extra) |
| contract | ``bc:PATH`` | ``ppo:PATH`` for a ``continental_v1`` model only (``agents.contract.feature_agent``) |
| contract | ``rllib:PATH`` | a policy trained with Ray RLlib (``agents.bots.rllib_agent``), played without Ray |

**Versions.** ``name@vK`` is a frozen bot: the same seeds give the same decisions forever
(``tests/test_versions.py`` pins them on recorded games). The bare names ``strong`` and ``search``
(and ``search:N``) name the current best version (``CURRENT``) and may move to a later one;
``versioned_name`` says which version a name plays, and reports print it. Names containing
``oracle`` read the true hidden state: diagnostics, never ordinary players (``is_oracle``).

**Bots of your own** (the evaluation harness and the leaderboard only; ``make_harness_agent``):
``package.module:Name`` names a class or factory built as ``Name(seed)`` (or ``Name(seed=seed)``),
or an object with ``act(view)`` used as is; the module is imported from the current directory or
``sys.path``. An installed package may register names in the entry-point group
``continental_rl.agents`` (``ENTRY_POINT_GROUP``), each pointing at such a class, factory or
object. Registry names come first: a user name never replaces a bot above. The web and terminal
tables build only registry bots (``make_agent``): they never import a module a request names.

**Text agents** (the evaluation harness and the leaderboard only; ``make_harness_agent``):
``llm:BASE_URL`` asks an OpenAI-compatible chat endpoint for each move, with the settings of
``agents.text.llm.llm_options`` (``--llm-model``); the prompt is the game's ``TEXT_PROMPTS``
entry (``agents.<game>.text``), a reply naming no legal action is played by the fallback bot of
the same game (``docs/llm-agents.md``).

**Adding a bot** is one entry: a plain name in ``BOTS[game]`` (``"module:Class"``, built as
``Class(seed)``), or a family with an argument in ``FAMILIES[game]`` (a prefix and a function of
``(name, seed)``). ``offered(game)`` lists what players are offered; nothing else names bots.
Bot modules are imported only when their bot is asked for, and never import this module.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable
from typing import Any

DEFAULT_GAME = "contract"
# The version each bare contract name plays. A frozen version never changes; only this moves.
CURRENT = {"strong": "strong@v1", "search": "search@v6"}
VERSIONS = {
    "strong": ("strong@v1", "strong@v2"),
    "search": ("search@v1", "search@v2", "search@v3", "search@v4", "search@v5", "search@v6"),
}
# Plain names: "module:Class", built as Class(seed) and imported on first use.
BOTS: dict[str, dict[str, str]] = {
    "contract": {
        "random": "agents.bots.random_agent:RandomAgent",
        "greedy": "agents.contract.greedy:GreedyAgent",
        "strong@v1": "agents.contract.strong:StrongAgent",
        "strong@v2": "agents.contract.strong_tuned:StrongV2Agent",
    },
    "fifteen": {
        "random": "agents.bots.random_agent:RandomAgent",
        "greedy": "agents.fifteen.greedy:FifteenGreedyAgent",
        "strong": "agents.fifteen.strong:FifteenStrongAgent",
    },
    "knock": {
        "random": "agents.bots.random_agent:RandomAgent",
        "greedy": "agents.knock.greedy:KnockGreedyAgent",
        "strong": "agents.knock.strong:KnockStrongAgent",
    },
}
# Each game's part of a text agent's prompt (``agents.text``), imported on first use; a game
# without one is described by the shared lines alone.
TEXT_PROMPTS: dict[str, str] = {
    "contract": "agents.contract.text:PROMPT",
    "fifteen": "agents.fifteen.text:PROMPT",
    "knock": "agents.knock.text:PROMPT",
}
TEXT_PREFIX = "llm:"
# How an error message names each game.
GAME_WORDS = {"contract": "contract", "fifteen": "fifteen-card", "knock": "knock"}
# What a player is offered at a table, strongest last (the web table's list, the harness's help).
OFFERED: dict[str, tuple[str, ...]] = {
    "contract": ("random", "greedy", "strong", "search"),
    "fifteen": ("random", "greedy", "strong"),
    "knock": ("random", "greedy", "strong"),
}


def is_oracle(name: str) -> bool:
    """Whether the agent ``name`` reads the true hidden state (a diagnostic, not a player); a
    text agent's URL may hold the word (``llm:https://oracle.example/v1``) and reads none."""
    return "oracle" in name.lower() and not name.startswith(TEXT_PREFIX)


def versioned_name(name: str) -> str:
    """The frozen version a registry name plays: ``strong`` -> ``strong@v1``, ``search:8`` ->
    ``search@v3:8``; names without versions (``greedy``, ``ppo:PATH``) are returned as given."""
    base, sep, rest = name.partition(":")
    if base in CURRENT and not name.startswith(("ppo:", "bc:", "rllib:")):
        return CURRENT[base] + sep + rest
    return name


def game_names() -> tuple[str, ...]:
    """The games with bots."""
    return tuple(BOTS)


def offered(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The bot names players are offered for ``game``."""
    _check_game(game)
    return OFFERED[game]


def _check_game(game: str) -> None:
    if game not in BOTS:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(BOTS)}")


def _build(target: str, seed: int | None) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)(seed)


# ------------------------------------------------------------------ families with an argument


def _ppo(name: str, seed: int | None) -> Any:
    from agents.bots.ppo_agent import load_agent

    return load_agent(name.removeprefix("ppo:"), seed)


def _side_ppo(game: str) -> Callable[[str, int | None], Any]:
    def load(name: str, seed: int | None) -> Any:
        from agents.bots.side_policy import load_policy

        return load_policy(game, name.removeprefix("ppo:"), seed)

    return load


def _rllib(name: str, seed: int | None) -> Any:
    from agents.bots.rllib_agent import load_agent

    return load_agent(name.removeprefix("rllib:"), seed)


def _load(target: str) -> Any:
    """The attribute ``"module:name"``, its module imported on first use: the registry names
    the game packages' builders and imports none of them, so every package of bots sits above
    it."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _lazy(target: str) -> Callable[[str, int | None], Any]:
    """A family builder ``"module:function"`` (``function(name, seed)``), imported on first use."""

    def build(name: str, seed: int | None) -> Any:
        return _load(target)(name, seed)

    build.__qualname__ = f"_lazy({target!r})"
    return build


def _search_version(name: str, seed: int | None) -> Any:
    """``search@v1[:N]`` (``agents.contract.search``) or a later frozen version (``FROZEN`` of
    ``agents.contract.search_adaptive``)."""
    base, sep, rest = name.partition(":")
    if base == "search@v6":  # a network's move guarded by the search: search_prior.FROZEN_PRIOR
        return _load("agents.contract.search_prior:make_frozen")(name, seed)
    if base in VERSIONS["search"] and base != "search@v1":  # v2 on: search_adaptive.FROZEN
        return _load("agents.contract.search_adaptive:make_frozen")(name, seed)
    if base != "search@v1":
        raise ValueError(f"unknown agent version {name!r}; {known_versions()}")
    bot = _load("agents.contract.search:make_search")("search" + sep + rest, seed)
    bot.name = name
    return bot


def _current(name: str, seed: int | None) -> Any:
    """A bare ``strong``/``search[:N]``: the current version, named as asked."""
    bot = make_agent(versioned_name(name), seed)
    bot.name = name
    return bot


# prefix -> (name, seed) -> bot; the first prefix that matches builds it (exact names first).
FAMILIES: dict[str, dict[str, Callable[[str, int | None], Any]]] = {
    "contract": {
        "ppo:": _ppo,
        "bc:": _lazy("agents.contract.feature_agent:make_bc_agent"),
        "rllib:": _rllib,
        "strong-v2:": _lazy("agents.contract.strong_tuned:make_variant"),
        "search-oracle": _lazy("agents.contract.search_oracle:make_oracle_search"),
        "search-oracle-v2": _lazy("agents.contract.search_oracle:make_oracle_search"),
        "search-oracle-v6": _lazy("agents.contract.search_oracle:make_oracle_search"),
        "search-v2": _lazy("agents.contract.search_adaptive:make_search_v2"),
        "search-prior": _lazy("agents.contract.search_prior:make_search_prior"),
        "openspiel-ismcts": _lazy("agents.contract.openspiel_ismcts:make_openspiel_ismcts"),
        "search@": _search_version,
        "strong": _current,
        "search": _current,
    },
    "fifteen": {"ppo:": _side_ppo("fifteen")},
    "knock": {"ppo:": _side_ppo("knock")},
}


def known_versions() -> str:
    known = ", ".join(v for vs in VERSIONS.values() for v in vs)
    return f"known versions: {known} (search@vK:N)"


def _family(game: str, name: str) -> Callable[[str, int | None], Any] | None:
    for prefix, build in FAMILIES[game].items():
        if name.startswith(prefix) and _matches(prefix, name):
            return build
    return None


def _matches(prefix: str, name: str) -> bool:
    """A prefix without a separator of its own (``strong``, ``search``, ``search-oracle``)
    matches the bare name or the name followed by ``:``; ``search@`` any version."""
    if prefix.endswith((":", "@")):
        return True
    return name == prefix or name.startswith(prefix + ":")


def make_agent(name: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Any:
    """A bot by registry name for ``game`` (module docstring); ValueError naming the choices."""
    _check_game(game)
    if name in BOTS[game]:
        bot = _build(BOTS[game][name], seed)
        if "@" in name:
            bot.name = name
        return bot
    build = _family(game, name)
    if build is not None:
        return build(name, seed)
    if game == DEFAULT_GAME and "@" in name:
        raise ValueError(f"unknown agent version {name!r}; {known_versions()}")
    families = ", ".join(p + ("PATH" if p.endswith(":") else "") for p in FAMILIES[game])
    raise ValueError(
        f"unknown agent {name!r} for the {GAME_WORDS[game]} game; choose one of "
        f"{', '.join(OFFERED[game])}, {families}"
    )


# ----------------------------------------------------------------------------- bots of your own

ENTRY_POINT_GROUP = "continental_rl.agents"
# ``package.module:Name``: a dotted module path, a colon, an attribute name.
USER_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
PROTOCOL = "a bot is an object with act(view), or a class or factory building one from a seed"


def is_builtin(name: str, game: str = DEFAULT_GAME) -> bool:
    """Whether ``name`` is one of the registry's names or families for ``game``."""
    _check_game(game)
    return name in BOTS[game] or _family(game, name) is not None


def entry_points() -> dict[str, Any]:
    """The installed packages' bots: name -> entry point of ``ENTRY_POINT_GROUP``."""
    return _entry_points(tuple(sys.path))


@functools.lru_cache(maxsize=8)
def _entry_points(path: tuple[str, ...]) -> dict[str, Any]:
    # Read once per sys.path (every seat of every game asks): the scan reads every installed
    # package's metadata.
    from importlib.metadata import entry_points as installed

    return {ep.name: ep for ep in installed(group=ENTRY_POINT_GROUP)}


def is_user_name(name: str, game: str = DEFAULT_GAME) -> bool:
    """Whether ``name`` names a bot of your own: an installed entry point or ``module:Name``
    (and no registry name, which comes first)."""
    if is_builtin(name, game):
        return False
    return bool(USER_NAME.fullmatch(name)) or name in entry_points()


def refuse_user_oracle(name: str) -> None:
    """ValueError for a bot of your own whose name contains ``oracle``: that word marks the
    registry's diagnostics that read the hidden state, which a bot of your own never does."""
    if is_oracle(name):
        raise ValueError(
            f"agent {name!r}: names containing 'oracle' mark the registry's diagnostics that "
            "read the hidden state; a bot of your own plays from its seat's view only, so "
            "give it another name"
        )


def make_harness_agent(name: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Any:
    """A bot for the evaluation harness: a registry name (``make_agent``), else
    ``package.module:Name``, else an installed entry point's name (the module docstring);
    ValueError naming the value and why it does not fit."""
    if is_builtin(name, game):
        return make_agent(name, seed, game)
    if name.startswith(TEXT_PREFIX):
        return make_text_agent(name, seed, game)
    if USER_NAME.fullmatch(name):
        refuse_user_oracle(name)
        return build_user_agent(_import_target(name), seed, name, name)
    points = entry_points()
    if name in points:
        refuse_user_oracle(name)
        ep = points[name]
        what = f"entry point {name} = {ep.value} ({ENTRY_POINT_GROUP})"
        try:
            target = ep.load()
        except Exception as exc:  # the package's own import error, said in one line
            raise ValueError(f"agent {name!r}: {what} cannot be loaded ({_said(exc)})") from None
        return build_user_agent(target, seed, name, what)
    try:
        return make_agent(name, seed, game)
    except ValueError as exc:
        raise ValueError(f"{exc}; or a bot of your own as package.module:Name") from None


def text_prompt(game: str = DEFAULT_GAME) -> Any:
    """The game's part of a text agent's prompt (``TEXT_PROMPTS``; ``agents.text.prompt``)."""
    _check_game(game)
    return _load(TEXT_PROMPTS.get(game, "agents.text.prompt:GENERIC"))


def make_text_agent(name: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Any:
    """The text agent ``llm:BASE_URL`` for ``game``: its prompt part (``TEXT_PROMPTS``) and its
    fallback, a bot of this registry for the same game (``agents.text.llm.make_llm_agent``)."""
    prompt = text_prompt(game)

    def fallback_of(fallback: str, fallback_seed: int | None) -> Any:
        return make_agent(fallback, fallback_seed, game)

    return _load("agents.text.llm:make_llm_agent")(name, seed, prompt, fallback_of)


def _import_target(name: str) -> Any:
    """The attribute ``Name`` of ``package.module``, imported from the current directory (put on
    ``sys.path`` for this import: a user's ``mybot.py`` beside the command) or ``sys.path``."""
    module_name, _, attribute = name.partition(":")
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name + ".").startswith(exc.name + "."):
            raise ValueError(
                f"agent {name!r}: no module {exc.name!r} in the current directory ({cwd}) or on "
                "sys.path"
            ) from None
        raise ValueError(f"agent {name!r}: importing {module_name} failed ({_said(exc)})") from None
    except Exception as exc:  # the module's own error at import, said in one line
        raise ValueError(f"agent {name!r}: importing {module_name} failed ({_said(exc)})") from None
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)
    if not hasattr(module, attribute):
        where = getattr(module, "__file__", None) or module_name
        raise ValueError(f"agent {name!r}: module {module_name} ({where}) has no {attribute!r}")
    return getattr(module, attribute)


def _said(exc: BaseException) -> str:
    """An exception in one line: ``TypeError: message``."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def is_factory(target: Any) -> bool:
    """A class, or a callable without ``act`` (a factory): built from a seed, not used as is."""
    return isinstance(target, type) or (
        callable(target) and not callable(getattr(target, "act", None))
    )


def build_user_agent(target: Any, seed: int | None, label: str, what: str) -> Any:
    """A bot of your own from ``target``: a class or factory called as ``target(seed)`` (or
    ``target(seed=seed)``), or an object with ``act(view)`` used as is. ValueError naming
    ``label`` and why it does not fit (``what``: where it came from)."""
    bot = target
    if is_factory(target):
        bot = _call_with_seed(target, seed, label, what)
    if not callable(getattr(bot, "act", None)):
        made = f"{what} gave" if bot is not target else f"{what} is"
        raise ValueError(
            f"agent {label!r}: {made} a {type(bot).__name__} without an act(view) method; "
            f"{PROTOCOL}"
        )
    if getattr(bot, "reads_hidden_state", False):
        raise ValueError(
            f"agent {label!r}: it declares reads_hidden_state, but only the registry's oracle "
            "diagnostics may read the hidden state; a bot of your own plays from its seat's view"
        )
    return bot


def _call_with_seed(factory: Any, seed: int | None, label: str, what: str) -> Any:
    """``factory(seed)``, or ``factory(seed=seed)`` where only the keyword fits its signature."""
    args: tuple[Any, ...] = (seed,)
    kwargs: dict[str, Any] = {}
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin without a signature: try it positionally
        signature = None
    if signature is not None:
        try:
            signature.bind(seed)
        except TypeError:
            try:
                signature.bind(seed=seed)
            except TypeError:
                raise ValueError(
                    f"agent {label!r}: {what} cannot be called as Name(seed) or Name(seed=seed) "
                    f"(its signature is {signature}); {PROTOCOL}"
                ) from None
            args, kwargs = (), {"seed": seed}
    try:
        return factory(*args, **kwargs)
    except Exception as exc:  # the bot's own error, said in one line
        call = f"{getattr(factory, '__name__', 'Name')}({'seed=' if kwargs else ''}{seed})"
        raise ValueError(f"agent {label!r}: {call} raised {_said(exc)} ({what})") from None


__all__ = [
    "BOTS",
    "CURRENT",
    "DEFAULT_GAME",
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "OFFERED",
    "TEXT_PREFIX",
    "TEXT_PROMPTS",
    "VERSIONS",
    "build_user_agent",
    "entry_points",
    "game_names",
    "is_builtin",
    "is_oracle",
    "is_user_name",
    "known_versions",
    "make_agent",
    "make_harness_agent",
    "make_text_agent",
    "offered",
    "text_prompt",
    "versioned_name",
]
