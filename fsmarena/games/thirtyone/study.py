"""The 31 study: its definition, run by the studies layer's driver for a study with a target and
a table (:mod:`fsmarena.studies.target_study`) and reported by its generic builder.

``thirtyone.toml`` (in this folder): every family against the seed's greedy player, 1v1 (does one win 75%?)
and at a 3-player table with greedy and random.  Nothing here is 31's own but that file.
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.studies import target_study
from fsmarena.studies.target_study import TargetStudy

DEFINITION = Path(__file__).parent / "thirtyone.toml"


def load(path: Path = DEFINITION) -> TargetStudy:
    """The study ``thirtyone``, or another definition of the same form."""
    return target_study.load(path)
