"""Inputs of table FSMs: one small integer per decision, built from a game's observations.

A table FSM reads one integer input per decision.  An *input encoder* names the observation
parts it combines, joined by ``+``: ``index`` is the game's tabular observation (DTD: its 40
states), and any name in ``game.encodings`` is a game-defined small integer (DTD: ``opp_last``,
the opponent's last card).  ``index+opp_last`` combines them in mixed radix, so the input
count is the product of the parts' sizes (DTD: 40 x 4 = 160).  Encoders are generic: a new
game gets FSM inputs by declaring its encodings, nothing here changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fsmarena.errors import FsmarenaError

if TYPE_CHECKING:
    from fsmarena.games.base import Game, Observation

#: larger input spaces make tables too big to evolve or to store in JSON
MAX_INPUTS = 100_000


@dataclass(frozen=True)
class InputEncoder:
    """Combines observation parts ``parts`` (sizes ``sizes``) into one integer per row."""

    name: str
    parts: tuple[str, ...]
    sizes: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of distinct inputs."""
        return math.prod(self.sizes)

    def encode(self, obs: "Observation") -> np.ndarray:
        """The input of every row of ``obs`` (mixed radix, first part most significant)."""
        code = None
        for part, size in zip(self.parts, self.sizes):
            value = getattr(obs, part)
            code = value if code is None else code * size + value
        return np.broadcast_to(np.asarray(code, dtype=np.int64), (obs.n,))

    def decode(self, code: int) -> tuple[int, ...]:
        """The part values of input ``code`` (inverse of :meth:`encode`)."""
        values = []
        for size in reversed(self.sizes):
            code, value = divmod(int(code), size)
            values.append(value)
        return tuple(reversed(values))

    def label(self, game: "Game", code: int) -> str:
        """A readable description of input ``code`` for figures."""
        labels = []
        for part, value in zip(self.parts, self.decode(code)):
            if part == "index":
                labels.append(game.state_label(value))
            else:
                labels.append(game.encoding_label(part, value))
        return " | ".join(labels)


def default_inputs(game: "Game") -> str:
    """The inputs an FSM reads when none are named: the game's declared ``fsm_inputs``
    (``index`` unless the game's tabular state is too large for a table, as in Stupide
    Vautour and Goofspiel, which read the prize)."""
    return game.fsm_inputs


def available_inputs(game: "Game") -> list[str]:
    """The encoder names offered for ``game``: ``index``, each encoding, ``index+encoding``."""
    names = ["index"]
    for encoding in game.encodings:
        names += [encoding, f"index+{encoding}"]
    return names


def input_encoder(game: "Game", name: str) -> InputEncoder:
    """The encoder ``name`` (parts joined by ``+``) for ``game``; FsmarenaError if unknown."""
    if not isinstance(name, str) or not name:
        raise FsmarenaError("FSM inputs must be a name such as 'index' or 'index+opp_last'")
    parts = tuple(part.strip() for part in name.split("+"))
    known = {"index": game.n_states, **dict(game.encodings)}
    sizes = []
    for part in parts:
        if part not in known:
            raise FsmarenaError(
                f"unknown FSM input '{part}' for {game.name} (known: {', '.join(available_inputs(game))})"
            )
        sizes.append(int(known[part]))
    if len(set(parts)) != len(parts):
        raise FsmarenaError(f"FSM inputs '{name}' name a part twice")
    encoder = InputEncoder("+".join(parts), parts, tuple(sizes))
    if encoder.size > MAX_INPUTS:
        raise FsmarenaError(f"FSM inputs '{name}' give {encoder.size} inputs (at most {MAX_INPUTS})")
    return encoder
