"""The Stupide Vautour studies: their definitions, run by the studies layer's several-player-count
driver (:mod:`fsmarena.studies.player_counts`) and reported by its generic builder.

``vautour`` (``vautour.toml``, in this folder): the full game with 2 and 3 players; ``vautour-small``
(``vautour_small.toml``): the reduced two-player game the exact solution covers, so its
report adds every champion's exploitability.  Nothing here is Vautour's own but these two files.
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.studies import player_counts
from fsmarena.studies.player_counts import PlayerCountStudy

DEFINITION = Path(__file__).parent / "vautour.toml"
#: the reduced two-player game the exact solution covers (every champion's exploitability)
SMALL_DEFINITION = Path(__file__).parent / "vautour_small.toml"


def load(path: Path = DEFINITION) -> PlayerCountStudy:
    """The study ``vautour`` (2 and 3 players), or another definition of the same form."""
    return player_counts.load(path)


def load_small() -> PlayerCountStudy:
    """The reduced two-player study ``vautour-small``."""
    return load(SMALL_DEFINITION)
