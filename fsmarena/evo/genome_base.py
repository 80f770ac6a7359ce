"""The genome spec: what every genome kind provides (:class:`GenomeSpec`).

The common base of the kinds (:mod:`fsmarena.evo.table_fsm`, :mod:`fsmarena.evo.bda`), below them and below
:mod:`fsmarena.evo.genome`, which picks a kind by name: so the kinds and the chooser import each other
in one direction only.  Every genome kind is an integer array of a fixed ``shape`` whose first
axis is the machine's states, with every entry ``g[pos]`` in ``[0, high[pos])``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import refuse_booleans

if TYPE_CHECKING:
    from fsmarena.games.players import Player


class GenomeSpec(ABC):
    """Shape and entry ranges of one genome kind, and the player it decodes to."""

    #: name on the command line (``fsm`` or ``bda``)
    name: ClassVar[str]
    #: shape of one genome; the first axis is the machine's states
    shape: tuple[int, ...]
    #: exclusive upper bound of every entry, shape ``shape``
    high: np.ndarray

    @property
    def n_states(self) -> int:
        return self.shape[0]

    @property
    def size(self) -> int:
        """Number of entries of one genome."""
        return int(np.prod(self.shape))

    def random(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` genomes with every entry uniform in its range, shape ``(n, *shape)``."""
        return rng.integers(0, self.high, size=(n, *self.shape), dtype=np.int64)

    def check(self, genomes: Any, source: str = "genomes") -> np.ndarray:
        """``genomes`` as an int array ``(n, *shape)`` with every entry in range, or FsmarenaError."""
        refuse_booleans(genomes, source)
        try:
            array = np.asarray(genomes)
        except (ValueError, TypeError):
            raise FsmarenaError(f"{source}: not a rectangular array") from None
        if array.ndim != len(self.shape) + 1 or array.shape[1:] != self.shape:
            raise FsmarenaError(
                f"{source}: genomes must have shape [n, {', '.join(map(str, self.shape))}], got {list(array.shape)}"
            )
        if array.size and array.dtype.kind not in "iu":
            raise FsmarenaError(f"{source}: genome entries must be integers")
        array = array.astype(np.int64)
        if array.size and (np.any(array < 0) or np.any(array >= self.high)):
            raise FsmarenaError(f"{source}: a genome entry is out of range")
        return array

    @abstractmethod
    def player(self, genomes: np.ndarray, label: str | None = None) -> "Player":
        """One stacked player whose member ``i`` is ``genomes[i]``."""

    @abstractmethod
    def genomes_of(self, player: "Player") -> np.ndarray:
        """The genomes ``(n_members, *shape)`` of a player of this kind."""

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """The parameters that rebuild this spec (stored in run configurations)."""
