"""Genomes: what evolution varies, as plain integer arrays.

Every genome kind is an integer array of a fixed ``shape`` whose first axis is the machine's
states, with every entry ``g[pos]`` in ``[0, high[pos])``.  Validity is therefore a range check,
and operators that only move whole states or redraw an entry within its range keep every
offspring valid by construction.  A :class:`GenomeSpec` knows the shape and ranges of one kind
and turns a stack of genomes ``(P, *shape)`` into one stacked :class:`~games.players.Player`
that plays all ``P`` members in a single batch.  Workers receive these arrays, never DEAP
individuals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import MAX_TESTS, BDASpec
from fsmarena.evo.genome_base import GenomeSpec as GenomeSpec  # the kinds' base, re-exported
from fsmarena.evo.inputs import default_inputs
from fsmarena.evo.table_fsm import FSMSpec

if TYPE_CHECKING:
    from fsmarena.games.base import Game

#: genome names on the command line
GENOMES = ("fsm", "bda")
#: the settings (EvolveConfig fields) of one genome kind only: a table FSM reads ``inputs``,
#: a BDA asks at most ``max_tests`` questions per decision; giving one to the other kind is an
#: error (:func:`fsmarena.options.check_applies`)
GENOME_SETTINGS = {"fsm": ("inputs",), "bda": ("max_tests",)}


def genome_spec(
    game: "Game", genome: str, states: int | None = None, inputs: str | None = None, max_tests: int | None = None
) -> GenomeSpec:
    """The spec of genome kind ``genome`` (``fsm`` or ``bda``) for ``game``; FSM ``inputs``
    default to the game's own (:func:`fsmarena.evo.inputs.default_inputs`)."""
    if genome == "fsm":
        return FSMSpec(
            game, states if states is not None else 4, inputs if inputs is not None else default_inputs(game)
        )
    if genome == "bda":
        return BDASpec(game, states if states is not None else 8, max_tests if max_tests is not None else MAX_TESTS)
    raise FsmarenaError(f"unknown genome '{genome}' (known: {', '.join(GENOMES)})")
