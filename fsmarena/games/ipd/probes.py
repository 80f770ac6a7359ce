"""Ashlock's fingerprint probes of the iterated prisoner's dilemma, as Axelrod's library builds them.

Ashlock's probe at ``(x, y)`` of the unit square is the Joss-Ann transform of Tit For Tat,
JA(TFT, x, y): at every decision it cooperates with probability ``x``, defects with probability
``y`` and plays Tit For Tat otherwise.  Where ``x + y > 1`` (no such mixture), Axelrod's
``AshlockFingerprint`` plays the dual of JA(TFT, 1 - x, 1 - y) instead (Ashlock and Kim 2010):
C with probability ``1 - y``, D with probability ``1 - x``, and the dual of Tit For Tat with
probability ``x + y - 1``.  Axelrod's dual plays the opposite of what the strategy plays after its
own moves are flipped: for Tit For Tat, which reads only the opponent's moves, that is the
Bully (D first, then the opposite of the opponent's last move).  The two agree on ``x + y = 1``.  A
point's value is the player's mean score per turn against its probe, what
``AshlockFingerprint.fingerprint`` returns (there over ``repetitions`` matches, here over
``games`` with seats rotated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from fsmarena.errors import FsmarenaError
from fsmarena.evo.fingerprint import MixturePlayer, ProbeFamily
from fsmarena.games.players import Player

COMPONENTS = ("cooperator", "defector", "tit-for-tat", "bully")


@dataclass(frozen=True)
class AshlockProbes(ProbeFamily):
    """JA(TFT, x, y) and its dual (module doc), for :func:`fsmarena.evo.fingerprint.fingerprint`."""

    names: tuple[str, ...] = COMPONENTS
    measure: ClassVar[str] = "score"

    @property
    def x_label(self) -> str:
        return "x: P(C)"

    @property
    def y_label(self) -> str:
        return "y: P(D)"

    def probe(self, x: float, y: float) -> Player:
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise FsmarenaError(f"probe parameters must lie in [0, 1], got ({x}, {y})")
        if x + y < 1:
            weights = [x, y, 1 - x - y, 0.0]
        else:
            weights = [1 - y, 1 - x, 0.0, x + y - 1]
        return MixturePlayer(self.components, weights, label=f"JA(TFT, {x:.2f}, {y:.2f})")
