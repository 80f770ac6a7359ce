"""The published finite-state machines of the iterated prisoner's dilemma, as fsmarena table FSMs.

Each machine is given as its published transition table, ``(state, opponent's last move, next
state, move)`` rows, with its initial state and opening move, exactly as Axelrod's library
(Axelrod-Python 4.13, ``axelrod/strategies/finite_state_machines.py``) lists them; their
sources: Harper et al. 2017, "Reinforcement learning produces dominant strategies for the
Iterated Prisoner's Dilemma", PLOS ONE 12(12) (EvolvedFSM4, EvolvedFSM16, EvolvedFSM16Noise05,
TF1-TF3, trained by Marc Harper) and Ashlock, Kim and Leahy 2006, "Understanding representational
sensitivity in the iterated prisoner's dilemma with fingerprints", IEEE CEC,
doi:10.1109/CEC.2006.1688322 (Fortress3, Fortress4).

:func:`fsm_tables` turns such a machine into fsmarena's Mealy machine over the input
``opp_last`` (0 before the first turn, 1 C, 2 D), which starts in state 0 and reads an input at
every decision: the published initial state becomes state 0 (the others keep their order), on
input 0 every state plays the opening move and stays, and on inputs 1 and 2 the published
transition applies.  :mod:`.bridge` converts both ways with Axelrod's own players.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from fsmarena.errors import FsmarenaError

C, D = 0, 1
Row = tuple[int, int, int, int]

#: name -> (Axelrod's class name, transitions, initial state, opening move)
MACHINES: dict[str, tuple[str, tuple[Row, ...], int, int]] = {
    "evolved-fsm-4": (
        "EvolvedFSM4",
        (
            (0, C, 0, C),
            (0, D, 2, D),
            (1, C, 3, D),
            (1, D, 0, C),
            (2, C, 2, D),
            (2, D, 1, C),
            (3, C, 3, D),
            (3, D, 1, D),
        ),
        0,
        C,
    ),
    "evolved-fsm-16": (
        "EvolvedFSM16",
        (
            (0, C, 0, C),
            (0, D, 12, D),
            (1, C, 3, D),
            (1, D, 6, C),
            (2, C, 2, D),
            (2, D, 14, D),
            (3, C, 3, D),
            (3, D, 3, D),
            (5, C, 12, D),
            (5, D, 10, D),
            (6, C, 5, C),
            (6, D, 12, D),
            (7, C, 3, D),
            (7, D, 1, C),
            (8, C, 5, C),
            (8, D, 5, C),
            (10, C, 11, D),
            (10, D, 8, C),
            (11, C, 15, D),
            (11, D, 5, D),
            (12, C, 8, C),
            (12, D, 11, D),
            (13, C, 13, D),
            (13, D, 7, D),
            (14, C, 13, D),
            (14, D, 13, D),
            (15, C, 15, D),
            (15, D, 2, C),
        ),
        0,
        C,
    ),  # fmt: skip
    "evolved-fsm-16-noise-05": (
        "EvolvedFSM16Noise05",
        (
            (0, C, 8, C),
            (0, D, 3, D),
            (1, C, 13, C),
            (1, D, 15, D),
            (2, C, 12, C),
            (2, D, 3, D),
            (3, C, 10, C),
            (3, D, 3, D),
            (4, C, 5, D),
            (4, D, 4, D),
            (5, C, 4, D),
            (5, D, 10, D),
            (6, C, 8, C),
            (6, D, 6, D),
            (8, C, 2, C),
            (8, D, 4, D),
            (10, C, 4, D),
            (10, D, 1, D),
            (11, C, 14, D),
            (11, D, 13, C),
            (12, C, 13, C),
            (12, D, 2, C),
            (13, C, 13, C),
            (13, D, 6, C),
            (14, C, 3, D),
            (14, D, 13, D),
            (15, C, 5, D),
            (15, D, 11, C),
        ),
        0,
        C,
    ),  # fmt: skip
    "tf1": (
        "TF1",
        (
            (0, C, 7, C),
            (0, D, 1, C),
            (1, C, 11, D),
            (1, D, 11, D),
            (2, C, 8, D),
            (2, D, 8, C),
            (3, C, 3, C),
            (3, D, 12, D),
            (4, C, 6, C),
            (4, D, 3, C),
            (5, C, 11, C),
            (5, D, 8, D),
            (6, C, 13, D),
            (6, D, 14, C),
            (7, C, 4, D),
            (7, D, 2, D),
            (8, C, 14, D),
            (8, D, 8, D),
            (9, C, 0, C),
            (9, D, 10, D),
            (10, C, 8, C),
            (10, D, 15, C),
            (11, C, 6, D),
            (11, D, 5, D),
            (12, C, 6, D),
            (12, D, 9, D),
            (13, C, 9, D),
            (13, D, 8, D),
            (14, C, 8, D),
            (14, D, 13, D),
            (15, C, 4, C),
            (15, D, 5, C),
        ),
        0,
        C,
    ),  # fmt: skip
    "tf2": (
        "TF2",
        (
            (0, C, 13, D),
            (0, D, 12, D),
            (1, C, 3, D),
            (1, D, 4, D),
            (2, C, 14, D),
            (2, D, 9, D),
            (3, C, 0, C),
            (3, D, 1, D),
            (4, C, 1, D),
            (4, D, 2, D),
            (7, C, 12, D),
            (7, D, 2, D),
            (8, C, 7, D),
            (8, D, 9, D),
            (9, C, 8, D),
            (9, D, 0, D),
            (10, C, 2, C),
            (10, D, 15, C),
            (11, C, 7, D),
            (11, D, 13, D),
            (12, C, 3, C),
            (12, D, 8, D),
            (13, C, 7, C),
            (13, D, 10, D),
            (14, C, 10, D),
            (14, D, 7, D),
            (15, C, 15, C),
            (15, D, 11, D),
        ),
        0,
        C,
    ),  # fmt: skip
    "tf3": (
        "TF3",
        (
            (0, C, 0, C),
            (0, D, 3, C),
            (1, C, 5, D),
            (1, D, 0, C),
            (2, C, 3, C),
            (2, D, 2, D),
            (3, C, 4, D),
            (3, D, 6, D),
            (4, C, 3, C),
            (4, D, 1, D),
            (5, C, 6, C),
            (5, D, 3, D),
            (6, C, 6, D),
            (6, D, 6, D),
            (7, C, 7, D),
            (7, D, 5, C),
        ),
        0,
        C,
    ),  # fmt: skip
    "fortress3": (
        "Fortress3",
        ((1, C, 1, D), (1, D, 2, D), (2, C, 1, D), (2, D, 3, C), (3, C, 3, C), (3, D, 1, D)),
        1,
        D,
    ),
    "fortress4": (
        "Fortress4",
        (
            (1, C, 1, D),
            (1, D, 2, D),
            (2, C, 1, D),
            (2, D, 3, D),
            (3, C, 1, D),
            (3, D, 4, C),
            (4, C, 4, C),
            (4, D, 1, D),
        ),
        1,
        D,
    ),
}


def fsm_tables(transitions: Sequence[Row], initial_state: int, opening: int) -> tuple[np.ndarray, np.ndarray]:
    """``(next_state, action)`` tables ``[states, 3]`` over ``opp_last`` of a published machine
    (module doc); FsmarenaError when a state lacks a transition for C or D or the moves are not 0/1."""
    labels = sorted({row[0] for row in transitions} | {row[2] for row in transitions} | {initial_state})
    labels.remove(initial_state)
    number = {label: k for k, label in enumerate([initial_state, *labels])}
    table = {(state, move): (after, action) for state, move, after, action in transitions}
    if len(table) != len(transitions) or opening not in (C, D):
        raise FsmarenaError("a finite-state machine needs one transition per state and move, and an opening C or D")
    size = len(number)
    next_state = np.zeros((size, 3), dtype=np.int64)
    action = np.zeros((size, 3), dtype=np.int64)
    for label, k in number.items():
        next_state[k, 0], action[k, 0] = k, opening
        for move in (C, D):
            if (label, move) not in table:
                raise FsmarenaError(f"state {label} has no transition for {'CD'[move]}")
            after, chosen = table[(label, move)]
            if chosen not in (C, D):
                raise FsmarenaError(f"state {label} plays {chosen!r}: moves are 0 (C) or 1 (D)")
            next_state[k, 1 + move], action[k, 1 + move] = number[after], chosen
    return next_state, action


def machine_player(name: str):
    """The published machine ``name`` as a table FSM labelled by its name."""
    from fsmarena.evo.table_fsm import TableFSM  # the generic player kinds of evo, on first use

    _, transitions, initial_state, opening = MACHINES[name]
    next_state, action = fsm_tables(transitions, initial_state, opening)
    return TableFSM(next_state, action, inputs="opp_last", label=name)
