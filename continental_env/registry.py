"""Names the outside world looks the environments up by: registry ids and old module paths.

**Registry ids.** ``register_envs()`` adds the four PettingZoo ids (below) to PettingZoo's
registry; each points at a plain factory function, so ``pettingzoo.make`` imports the game's
environment only when called. Every env module calls it when it loads (a first ``env()`` does),
and the package calls it at import when PettingZoo is already loaded, which costs nothing then:
``import pettingzoo`` followed by any ``import continental_env...`` is enough for
``pettingzoo.make("aec", "continental/knock_v0")``. Without PettingZoo loaded the package imports
none of it (the engine stays free of RL libraries), and ``register_envs()`` does the import.

| id | factory |
|---|---|
| ``continental/continental_v0`` | ``continental_env.contract.aec:env_v0`` |
| ``continental/continental_v1`` | ``continental_env.contract.aec:env_v1`` |
| ``continental/fifteen_v0`` | ``continental_env.fifteen:env`` |
| ``continental/knock_v0`` | ``continental_env.knock:env`` |

**Gymnasium ids.** The three single-learner environments (``agents.train.gym_envs``) are
``continental/Contract-v1``, ``continental/Fifteen-v0`` and ``continental/Knock-v0`` in
gymnasium's registry once ``continental_env`` is imported, with string entry points (nothing is
imported until ``gymnasium.make``). Gymnasium is not imported for this: when it is loaded already
the ids are added at once, otherwise ``register_gym_envs_on_import`` puts a finder on
``sys.meta_path`` that adds them right after gymnasium's own import (``import continental_env``
stays at the engine's cost; ``import gymnasium`` alone costs about 0.2 s).

**Old module paths.** The env modules were once ``continental_env.env``,
``continental_env.fifteen.env`` and ``continental_env.knock.env``: the same names as the
packages' factory functions, so importing one rebound the factory to a module (Python sets a
package attribute per imported submodule), and the factory no longer pickled. The modules are
now ``aec``; ``alias_module`` keeps each old path importable (``from continental_env.env import
raw_env``) as an entry in ``sys.modules``, a plain module whose attributes are read from the new
module on first use (PEP 562 ``__getattr__``). An import finds the entry there and binds nothing
on the package, so ``continental_env.env`` stays the factory function whatever is imported.

**Factories.** ``game_factories(package, env_class)`` makes the ``env`` and ``raw_env`` of a game
package (``continental_env.fifteen``, ``continental_env.knock``): plain functions that import the
package's environment module ``aec`` when called, so that the engine imports without gymnasium or
PettingZoo, named as the package's own (``continental_env.knock.env``) so that they pickle by
reference (``functools.partial(knock.env, num_players=2)`` into a spawned process); it also keeps
the old path ``<package>.env`` importable (``alias_module``).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

AEC_IDS = {
    "continental/continental_v0": "continental_env.contract.aec:env_v0",
    "continental/continental_v1": "continental_env.contract.aec:env_v1",
    "continental/fifteen_v0": "continental_env.fifteen:env",
    "continental/knock_v0": "continental_env.knock:env",
}


def register_envs() -> None:
    """Add the ``AEC_IDS`` to PettingZoo's registry (once; skipped on a PettingZoo without one)."""
    try:
        from pettingzoo import register, spec
        from pettingzoo.env_registry.exceptions import PettingZooRegistryError
    except ImportError:  # an older PettingZoo without a registry
        return
    for env_id, entry_point in AEC_IDS.items():
        try:
            spec("aec", env_id)  # the registry keys ids in its own spelling (_v0 as -v0)
        except PettingZooRegistryError:  # not registered yet
            register("aec", env_id, entry_point=entry_point)


def register_if_pettingzoo_loaded() -> None:
    """``register_envs()`` when PettingZoo is already imported (free then); else nothing."""
    if "pettingzoo" in sys.modules:
        register_envs()


# The gymnasium ids' factories build bots by name, so they live with the bots (``agents``).
GYM_IDS = {
    "continental/Contract-v1": "agents.train.gym_envs:make_contract",
    "continental/Fifteen-v0": "agents.train.gym_envs:make_fifteen",
    "continental/Knock-v0": "agents.train.gym_envs:make_knock",
}


def register_gym_envs() -> None:
    """Add the ``GYM_IDS`` to gymnasium's registry (once; imports gymnasium)."""
    import gymnasium

    for env_id, entry_point in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry_point)


def register_gym_envs_on_import() -> None:
    """``register_gym_envs()`` now if gymnasium is loaded, else right after it is imported."""
    if "gymnasium" in sys.modules:
        register_gym_envs()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("gymnasium", _register_quietly))


def _register_quietly() -> None:
    try:
        register_gym_envs()
    except Exception as exc:  # never let the ids break ``import gymnasium`` itself
        warnings.warn(f"continental gymnasium ids not registered: {exc}", stacklevel=2)


class _AfterImport:
    """A ``sys.meta_path`` finder: the first time ``name`` is loaded, ``then()`` runs once the
    module has executed (the module's own spec, found by the other finders, with its loader
    wrapped). It stays on ``sys.meta_path`` until that load: a mere probe for the module
    (``importlib.util.find_spec``, as TorchRL makes) loads nothing, so it must not use it up.
    Duck-typed: ``importlib.abc`` alone would cost the engine's import 10 ms."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name = name
        self.then = then
        self._finding = False

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name or self._finding:
            return None
        import importlib.util

        self._finding = True  # the search below asks the finders again, this one included
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenLoader(spec.loader, self._loaded)
        return spec

    def _loaded(self) -> None:
        with contextlib.suppress(ValueError):  # a reload, or another thread's load, removed it
            sys.meta_path.remove(self)
        self.then()


class _ThenLoader:
    """A module's loader that calls ``then()`` after executing the module."""

    def __init__(self, loader: Any, then: Callable[[], None]) -> None:
        self.loader = loader
        self.then = then

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.loader.exec_module(module)
        self.then()

    def __getattr__(self, name: str) -> Any:  # resources, source, ... of the real loader
        if name in ("loader", "then") or name.startswith("__"):
            raise AttributeError(name)  # an instance made without __init__ (copy, unpickle)
        return getattr(self.loader, name)


def alias_module(
    old: str, new: str, *, deprecated: str = "", renamed: dict[str, str] | None = None
) -> None:
    """Make the module path ``old`` import as a view of module ``new`` (module docstring): a
    stand-in module whose names are read from ``new`` on first use (``renamed`` maps an old name
    to the new name it now has), bound on its package unless the package already has that name.

    With ``deprecated`` (the release that drops the path), the first name read through the old
    path warns once with a ``DeprecationWarning`` naming the new path. For a module that moved
    whole, ``alias_modules`` gives the module itself under the old path instead.
    """
    if old in sys.modules:
        return
    alias = types.ModuleType(old, f"The old path of ``{new}``: its names, read from it.")
    warned: list[bool] = []
    renamed = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)  # import machinery probes (__path__, __file__ ...)
        if deprecated and not warned:
            warned.append(True)
            _warn_moved(old, new, deprecated)
        return getattr(importlib.import_module(new), renamed.get(name, name))

    def __dir__() -> list[str]:
        return sorted({*dir(importlib.import_module(new)), *renamed})

    vars(alias).update(__getattr__=__getattr__, __dir__=__dir__)
    sys.modules[old] = alias
    package, _, child = old.rpartition(".")
    parent = sys.modules.get(package)
    if parent is not None and not hasattr(parent, child):
        setattr(parent, child, alias)


def moved_names(module: str, moved: dict[str, str], *, deprecated: str) -> None:
    """Names that left ``module`` (an imported module) for another: ``moved`` maps each to its
    new module, read from there on first use with a ``DeprecationWarning``; the names go in
    release ``deprecated``. The new module is named, not imported, so ``module`` needs no import
    of a package above it."""
    target = sys.modules[module]
    before = vars(target).get("__getattr__")

    def __getattr__(name: str) -> Any:
        new = moved.get(name)
        if new is None:
            if before is not None:
                return before(name)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        _warn_moved(f"{module}.{name}", f"{new}.{name}", deprecated)
        return getattr(importlib.import_module(new), name)

    target.__getattr__ = __getattr__  # type: ignore[attr-defined]


# Modules that moved whole: old path -> (new path, the release that drops the old one).
_MOVED: dict[str, tuple[str, str]] = {}


def alias_modules(moved: dict[str, str], *, deprecated: str) -> None:
    """Each old path of ``moved`` imports as the module now at its new path, the same module
    object (so ``import old``, ``python -m old``, ``mock.patch("old.name")``, pickles naming old
    classes and ``old.Name is new.Name`` all hold), with a ``DeprecationWarning`` naming the new
    path when the old one is imported; the old path goes in release ``deprecated``."""
    for old, new in moved.items():
        _MOVED[old] = (new, deprecated)
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())  # after the finders of real files


class _MovedFinder:
    """The ``sys.meta_path`` finder of the moved modules (``_MOVED``)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        moved = _MOVED.get(fullname)
        if moved is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(fullname, _MovedLoader(fullname, *moved))


class _MovedLoader:
    """Loads an old path as the module at its new path (imported, or already loaded)."""

    def __init__(self, old: str, new: str, release: str) -> None:
        self.old, self.new, self.release = old, new, release
        self._spec: Any = None

    def create_module(self, spec: Any) -> types.ModuleType:
        _warn_moved(self.old, self.new, self.release)
        module = importlib.import_module(self.new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self._spec  # the import system set the old path's spec: the real one

    def get_code(self, fullname: str) -> Any:
        """The new module's code: ``python -m OLD`` runs it."""
        import importlib.util

        _warn_moved(self.old, self.new, self.release)
        spec = importlib.util.find_spec(self.new)
        return spec.loader.get_code(self.new)  # type: ignore[union-attr]

    def is_package(self, fullname: str) -> bool:
        return False


def _warn_moved(old: str, new: str, release: str) -> None:
    """The ``DeprecationWarning`` of an old path, attributed to the code that named it (the
    first frame outside the import machinery and this module)."""
    frame = sys._getframe(0)
    level = 1
    while frame.f_back is not None and (
        frame.f_code.co_filename == __file__
        or frame.f_code.co_filename.startswith("<frozen importlib")
        or frame.f_code.co_filename.endswith(("importlib/__init__.py", "runpy.py"))
    ):
        frame = frame.f_back
        level += 1
    warnings.warn(
        f"{old} is deprecated and goes in {release}; import {new} instead",
        DeprecationWarning,
        stacklevel=level,
    )


def game_factories(package: str, env_class: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The ``env`` and ``raw_env`` of the game package ``package``, whose environment module
    ``<package>.aec`` has ``env`` and the class ``env_class`` (module docstring); the package
    binds them as its own ``env`` and ``raw_env``."""
    aec = f"{package}.aec"

    def env(**kwargs: Any) -> Any:
        return importlib.import_module(aec).env(**kwargs)

    def raw_env(**kwargs: Any) -> Any:
        return getattr(importlib.import_module(aec), env_class)(**kwargs)

    env.__doc__ = f"The wrapped AEC environment (``{aec}``'s module docstring)."
    raw_env.__doc__ = (
        f"The unwrapped AEC environment (``{env_class}``), same keyword arguments as ``env``."
    )
    for factory in (env, raw_env):
        # pickle finds a function by module and qualified name: the package's own names
        factory.__module__ = package
        factory.__qualname__ = factory.__name__
    alias_module(f"{package}.env", aec)
    return env, raw_env
