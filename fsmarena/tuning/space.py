"""A search space declared as data: per parameter an int or float range (log scale or not) or a choice list.

A space is a mapping from parameter name to a table, as a study file or a TOML file gives it::

    epsilon = { float = [0.01, 0.5], log = true }
    episodes = { int = [1000, 4000] }
    algo = { choice = ["q-learning", "sarsa"] }

Anything else (an unknown key, an empty range, a log range touching zero, an empty choice list)
is refused with one clear line naming the parameter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError

KINDS = ("int", "float", "choice")


@dataclass(frozen=True)
class Dimension:
    """One parameter of a space: ``kind`` is int, float or choice; ``low``/``high`` bound a range
    (inclusive); ``log`` samples a range uniformly in its logarithm; ``choices`` lists the options."""

    name: str
    kind: str
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: tuple[Any, ...] = ()

    def sample(self, rng: np.random.Generator) -> Any:
        """One value drawn from this dimension with ``rng``."""
        if self.kind == "choice":
            return self.choices[int(rng.integers(len(self.choices)))]
        if self.log:
            value = math.exp(rng.uniform(math.log(self.low), math.log(self.high)))
        else:
            value = rng.uniform(self.low, self.high)
        if self.kind == "int":
            return int(min(max(round(value), self.low), self.high))
        return float(value)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "choice":
            return {"choice": list(self.choices)}
        low, high = (int(self.low), int(self.high)) if self.kind == "int" else (self.low, self.high)
        return {self.kind: [low, high], "log": self.log}


@dataclass(frozen=True)
class Space:
    """The dimensions of a search, in the order given."""

    dimensions: tuple[Dimension, ...]

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        return {d.name: d.sample(rng) for d in self.dimensions}

    def to_json(self) -> dict[str, Any]:
        return {d.name: d.to_json() for d in self.dimensions}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _dimension(name: str, spec: Any, where: str) -> Dimension:
    """One dimension from its table (FsmarenaError naming ``where`` and the parameter)."""
    fail = f"{where}: parameter '{name}'"
    if not isinstance(spec, Mapping):
        raise FsmarenaError(
            f"{fail} must be a table such as {{ int = [1, 10] }}, {{ float = [0.1, 1.0], log = true }} or {{ choice = [...] }}"
        )
    kinds = [k for k in KINDS if k in spec]
    unknown = sorted(set(spec) - set(KINDS) - {"log"})
    if len(kinds) != 1 or unknown:
        raise FsmarenaError(
            f"{fail} needs exactly one of int, float, choice (and optionally log); got {', '.join(map(str, spec))}"
        )
    kind, value, log = kinds[0], spec[kinds[0]], spec.get("log", False)
    if not isinstance(log, bool):
        raise FsmarenaError(f"{fail}: log must be true or false")
    if kind == "choice":
        if not isinstance(value, list) or not value or log:
            raise FsmarenaError(f"{fail}: choice must be a non-empty list (and takes no log)")
        return Dimension(name, kind, choices=tuple(value))
    if not (isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value)):
        raise FsmarenaError(f"{fail}: {kind} must be a range [low, high] of two numbers")
    low, high = value
    if kind == "int" and not all(isinstance(v, int) for v in value):
        raise FsmarenaError(f"{fail}: an int range takes whole numbers, got [{low}, {high}]")
    if low > high:
        raise FsmarenaError(f"{fail}: the range [{low}, {high}] is empty (low above high)")
    if log and low <= 0:
        raise FsmarenaError(f"{fail}: a log range must be above zero, got [{low}, {high}]")
    return Dimension(name, kind, float(low), float(high), log)


def parse_space(data: Any, where: str = "search space") -> Space:
    """The space a mapping declares (one clear error for a bad one)."""
    if not isinstance(data, Mapping) or not data:
        raise FsmarenaError(f"{where} must be a non-empty table of parameters")
    return Space(tuple(_dimension(str(name), spec, where) for name, spec in data.items()))
