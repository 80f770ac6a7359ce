"""Table FSMs: Mealy machines over a game-defined input (the user's design card).

A machine with ``S`` states over ``I`` inputs holds two tables, ``next_state[S, I]`` and
``action[S, I]``.  It starts every game in state 0; at each decision it reads the input ``x``
(see :mod:`fsmarena.evo.inputs`), plays ``action[state, x]`` and moves to ``next_state[state, x]``.  A
one-state machine over ``index`` is exactly a tabular policy (the RL policy class); more states
over ``index+opp_last`` give memory of the opponent's play, in the Ashlock tradition.

A stack of ``P`` machines plays in one batch: the tables have shape ``(P, S, I)`` and each
decision is one flat lookup ``table[(member * S + state) * I + input]`` for all rows at once.

Genome layout (:class:`FSMSpec`): an int array ``(S, 2, I)`` with ``[:, 0]`` the next states and
``[:, 1]`` the actions, so whole states are rows along the first axis.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome_base import GenomeSpec
from fsmarena.evo.inputs import InputEncoder, input_encoder
from fsmarena.games.compiled_players import FSM, CompilesItself, Member
from fsmarena.games.players import Player, legal_or_first

#: more states than this is not a finite-state *player* any more, just a big table
MAX_STATES = 1024


class _Memory:
    """Per-game memory of a batch: flat table offset of each game's member, current states."""

    __slots__ = ("base", "state", "encoder")

    def __init__(self, base: np.ndarray, state: np.ndarray, encoder: InputEncoder):
        self.base = base
        self.state = state
        self.encoder = encoder


class TableFSM(Player, CompilesItself):
    """A Mealy machine (or a stack of them); see the module docstring."""

    kind = "table-fsm"

    def __init__(self, next_state: np.ndarray, action: np.ndarray, inputs: str = "index", label: str | None = None):
        super().__init__(label or "table-fsm")
        next_state = np.asarray(next_state, dtype=np.int64)
        action = np.asarray(action, dtype=np.int64)
        if next_state.ndim == 2:
            next_state, action = next_state[None], action[None]
        if next_state.ndim != 3 or next_state.shape != action.shape or 0 in next_state.shape:
            raise FsmarenaError(
                f"table FSM: next_state {list(next_state.shape)} and action "
                f"{list(action.shape)} must be equal non-empty [states, inputs] tables"
            )
        self.n_members, self.n_states, self.n_inputs = next_state.shape
        if next_state.min() < 0 or next_state.max() >= self.n_states:
            raise FsmarenaError(f"table FSM: next states must be in [0, {self.n_states - 1}]")
        if action.min() < 0:
            raise FsmarenaError("table FSM: actions must be non-negative")
        self.next_state = next_state
        self.action = action
        self.inputs = inputs
        self._next_flat = next_state.reshape(-1)
        self._action_flat = action.reshape(-1)

    def begin(self, game, n, members, rng):
        encoder = input_encoder(game, self.inputs)
        if encoder.size != self.n_inputs:
            raise FsmarenaError(
                f"table FSM has {self.n_inputs} inputs but '{self.inputs}' gives {encoder.size} for {game.name}"
            )
        if self.action.max() >= game.n_actions:
            raise FsmarenaError(
                f"table FSM plays action {self.action.max()} but {game.name} has {game.n_actions} actions"
            )
        stride = self.n_states * self.n_inputs
        if members is None:
            base = np.zeros(n, dtype=np.int64)
        else:
            base = np.asarray(members, dtype=np.int64) * stride
        return _Memory(base, np.zeros(n, dtype=np.int64), encoder)

    def act(self, obs, memory, rows, rng):
        inputs = memory.encoder.encode(obs)
        if rows is None:
            flat = memory.base + memory.state * self.n_inputs + inputs
            memory.state = self._next_flat[flat]
        else:
            flat = memory.base[rows] + memory.state[rows] * self.n_inputs + inputs
            memory.state[rows] = self._next_flat[flat]
        actions = self._action_flat[flat]
        return legal_or_first(actions, obs.mask)

    # ---- files --------------------------------------------------------------------------
    def stack_key(self):
        return None if self.n_members != 1 else (self.kind, self.n_states, self.n_inputs, self.inputs)

    @classmethod
    def stack(cls, players: Sequence["TableFSM"]) -> "TableFSM":
        return cls(
            np.concatenate([p.next_state for p in players]),
            np.concatenate([p.action for p in players]),
            players[0].inputs,
            label="stack",
        )

    def compiled(self, game: Any) -> Member:
        """``[FSM, S, I, parts, (part, size) per part]`` and the next-state and action tables
        (:mod:`fsmarena.games.compiled_players`): the part ``-1`` is the index, ``w >= 0`` encoding ``w``."""
        return self.compiled_members(game)[0]

    def compiled_members(self, game: Any) -> list[Member]:
        """:meth:`compiled` of every member at once: they share the header, and each member's
        tables are its rows of the stack's."""
        encoder = input_encoder(game, self.inputs)
        if encoder.size != self.n_inputs:
            raise FsmarenaError(
                f"table FSM '{self.label}' does not fit {game.name}: it has {self.n_inputs} inputs, "
                f"'{self.inputs}' gives {encoder.size}"
            )
        if self.action.max() >= game.n_actions:
            raise FsmarenaError(
                f"table FSM '{self.label}' does not fit {game.name}: it plays action {self.action.max()} "
                f"(0..{game.n_actions - 1})"
            )
        names = list(game.encodings)
        parts: list[int] = []
        for part, size in zip(encoder.parts, encoder.sizes):
            parts += [-1 if part == "index" else names.index(part), size]
        ints = [FSM, self.n_states, self.n_inputs, len(encoder.parts), *parts]
        flat = self.n_states * self.n_inputs
        tables = np.concatenate([self.next_state.reshape(-1, flat), self.action.reshape(-1, flat)], axis=1)
        return [(ints, [], table) for table in tables]

    def split(self) -> list[Player]:
        return [TableFSM(n, a, self.inputs, self.label) for n, a in zip(self.next_state, self.action)]

    def to_dict(self) -> dict[str, Any]:
        if self.n_members != 1:
            raise FsmarenaError("save the members of a stacked table FSM one by one")
        return {
            "inputs": self.inputs,
            "states": self.n_states,
            "n_inputs": self.n_inputs,
            "start_state": 0,
            "next_state": self.next_state[0].tolist(),
            "action": self.action[0].tolist(),
        }

    @classmethod
    def from_fields(cls, fields, game):
        inputs = fields.get("inputs", str)
        try:
            encoder = input_encoder(game, inputs)
        except FsmarenaError as exc:
            raise fields.fail(str(exc)) from None
        states = fields.int_in("states", 1, MAX_STATES)
        fields.int_in("n_inputs", encoder.size, encoder.size, encoder.size)
        fields.int_in("start_state", 0, 0, 0)
        next_state = fields.int_array("next_state", (states, encoder.size), 0, states)
        action = fields.int_array("action", (states, encoder.size), 0, game.n_actions)
        return cls(next_state, action, encoder.name, label=fields.get("label", str, None))


class FSMSpec(GenomeSpec):
    """Table-FSM genomes ``(S, 2, I)``: next states in ``[:, 0]``, actions in ``[:, 1]``."""

    name = "fsm"

    def __init__(self, game, n_states: int, inputs: str = "index"):
        if isinstance(n_states, bool) or not isinstance(n_states, int) or not 1 <= n_states <= MAX_STATES:
            raise FsmarenaError(f"a table FSM needs 1 to {MAX_STATES} states, got {n_states}")
        self.encoder = input_encoder(game, inputs)
        self.inputs = self.encoder.name
        self.n_actions = game.n_actions
        self.shape = (n_states, 2, self.encoder.size)
        self.high = np.empty(self.shape, dtype=np.int64)
        self.high[:, 0] = n_states
        self.high[:, 1] = game.n_actions

    def player(self, genomes, label=None):
        genomes = np.asarray(genomes)
        return TableFSM(genomes[:, :, 0], genomes[:, :, 1], self.inputs, label=label)

    def genomes_of(self, player):
        if not isinstance(player, TableFSM) or (player.n_states, player.n_inputs) != (self.shape[0], self.shape[2]):
            raise FsmarenaError(f"expected a table FSM with {self.shape[0]} states over '{self.inputs}'")
        return np.stack([player.next_state, player.action], axis=2)

    def settings(self):
        return {"genome": self.name, "states": self.n_states, "inputs": self.inputs}
