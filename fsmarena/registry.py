"""Lazy ``"module:Class"`` registries: a name is resolved to its class only when first used,
so that ``games`` need not import ``evo`` or ``rl`` (and optional extras stay optional)."""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError


def resolve(registry: Mapping[str, str], name: str, what: str) -> Any:
    """The object registered under ``name`` as ``"module:attribute"``.

    An unknown name, or a registered module that is absent from this installation, is a
    FsmarenaError naming ``what`` (e.g. "game", "player kind"); an import error *inside* an
    existing module is a bug and propagates.
    """
    if name not in registry:
        raise FsmarenaError(f"unknown {what} '{name}' (known: {', '.join(sorted(registry))})")
    module_name, attribute = registry[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise FsmarenaError(f"the {what} '{name}' is not available in this version of fsmarena") from None
    return getattr(module, attribute)
