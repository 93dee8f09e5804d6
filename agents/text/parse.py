"""From a model's reply to one of the legal actions' texts, or None.

A reply names an action when, tried in this order:

1. the whole reply is a legal action's text (case and spacing aside);
2. a quoted part of it (```backticks```, "double" or 'single' quotes, **bold**), its last line,
   its first line, or what follows ``action:``/``answer:`` is one, or the number of an action in
   the prompt's menu (``3``, ``3.``, ``(3)``);
3. exactly one legal text appears in it as whole words (texts that lie inside a longer one also
   found are not counted: ``discard 7C`` inside ``discard 7C 8C``).

Otherwise the reply named no legal action. Card texts are compared after ``10`` is read as ``T``
(``10H`` is ``TH``), as the card codec reads them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_QUOTED = re.compile(r"```(?:\w*\n)?(.+?)```|`([^`]+)`|\*\*(.+?)\*\*|\"([^\"]+)\"|'([^']+)'", re.S)
_LABELLED = re.compile(r"(?:action|answer|move|choice)\s*[:=-]\s*(.+)", re.I)
_MENU = re.compile(r"#?(\d{1,4})")  # the ends' marks are gone by then: (3) and 3. are 3
_TEN = re.compile(r"\b10([cdhs])\b")
# Marks around an answer that are not part of it: list bullets, trailing punctuation.
_EDGES = " \t\r\n.,;:!?*_-•>\"'`()[]"


def normalise(text: str) -> str:
    """Lower case, single spaces, ``10H`` as ``th``, no marks at the ends."""
    text = " ".join(text.lower().split())
    return _TEN.sub(r"t\1", text).strip(_EDGES)


def candidates(reply: str) -> list[str]:
    """The parts of a reply that may each be a whole answer, most explicit first."""
    out: list[str] = [m for groups in _QUOTED.findall(reply) for m in groups if m.strip()]
    lines = [line for line in reply.splitlines() if line.strip()]
    out += [m.group(1) for line in lines if (m := _LABELLED.search(line))]
    if lines:
        out += [lines[-1], lines[0]]
    return out


def parse_reply(reply: str, texts: Sequence[str]) -> int | None:
    """The index in ``texts`` (the legal actions' texts, in menu order) of the action ``reply``
    names, by the module's rules; None where it names none."""
    wanted = {normalise(t): i for i, t in enumerate(texts)}
    whole = normalise(reply)
    if whole in wanted:
        return wanted[whole]
    for part in [whole, *map(normalise, candidates(reply))]:
        if part in wanted:
            return wanted[part]
        menu = _MENU.fullmatch(part)
        if menu and 1 <= int(menu.group(1)) <= len(texts):
            return int(menu.group(1)) - 1
    return _contained(whole, wanted)


def _contained(reply: str, wanted: dict[str, int]) -> int | None:
    """The one legal text found in the reply as whole words (inner texts of a longer one found
    do not count), or None where none or several are."""
    found = [t for t in wanted if t and re.search(rf"(?<!\w){re.escape(t)}(?!\w)", reply)]
    outer = [t for t in found if not any(t != u and t in u for u in found)]
    return wanted[outer[0]] if len(outer) == 1 else None


__all__ = ["candidates", "normalise", "parse_reply"]
