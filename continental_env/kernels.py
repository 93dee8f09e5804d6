"""Which implementation of the hot pure functions runs: the compiled kernels or the reference.

The hot functions of the bots and the engine are pure functions of 53-count tuples behind
``lru_cache`` wrappers (``agents.strong.make_plan``, ``melds.contract_exists`` and the others
``docs/speed-kernels.md`` lists). Each has a pure-Python reference, the readable definition,
and a port in ``continental_env/_kernels.c`` that returns exactly the same values (the
differential tests in ``tests/test_kernels*.py`` compare the two). pip compiles the C file when
the package is installed; without a C compiler the install still succeeds and the references
run, with one warning at import.

``CONTINENTAL_KERNELS=0`` in the environment selects the references; so does
``kernels.use(False)`` at run time (the wrappers look at ``kernels.native`` on every call, so
clear their caches after switching if cached results must come from one side).
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType

ENV_VAR = "CONTINENTAL_KERNELS"


def _load() -> ModuleType | None:
    """The compiled module, or None (with one warning when it should have been there)."""
    if os.environ.get(ENV_VAR, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    try:
        import continental_env._kernels as _kernels
    except ImportError as exc:
        warnings.warn(
            f"continental_env: compiled kernels unavailable ({exc}); running the pure-Python "
            "reference (slower, same results). Reinstall with a C compiler to build them.",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return _kernels


compiled: ModuleType | None = _load()
native: ModuleType | None = compiled  # the module the wrappers call; None: the references


def use(enabled: bool) -> None:
    """Select the compiled kernels (when built) or the pure-Python references from now on."""
    global native
    if enabled and compiled is None:
        raise RuntimeError("the compiled kernels are not built in this installation")
    native = compiled if enabled else None


def active() -> bool:
    """Whether the compiled kernels are in use."""
    return native is not None
