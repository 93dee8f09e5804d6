"""Every header a compiled extension includes is among its ``depends`` in pyproject.toml: the
sdist ships only the files it names, and a change to one of them rebuilds the extension."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def included(source: Path) -> set[str]:
    """The project headers ``source`` includes, directly or through another header."""
    found: set[str] = set()
    todo = [source]
    while todo:
        text = todo.pop().read_text()
        for name in re.findall(r'^#include "([^"]+)"', text, flags=re.M):
            path = f"continental_env/{name}"
            if path not in found:
                found.add(path)
                todo.append(ROOT / path)
    return found


def test_every_included_header_is_a_dependency() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    modules = config["tool"]["setuptools"]["ext-modules"]
    assert {m["name"] for m in modules} == {"continental_env._kernels", "continental_env._batch"}
    for module in modules:
        headers = set().union(*(included(ROOT / s) for s in module["sources"]))
        assert headers  # the walk reached the includes
        missing = sorted(headers - set(module["depends"]))
        assert not missing, f"{module['name']} includes {missing} without depending on them"
