"""Usage of a machine: how often each state, (state, input) entry and transition fires in play.

The machine plays a panel of opponents (by default every builtin of the game, random
included), in every seat in turn, and a counting wrapper records each decision.  The
machine's own ``act`` stays as it is: a table FSM's counts are read from its memory (state
before the decision) and its input encoder, a BDA's from the trace its memory fills only
when asked (one ``is None`` check per test round on the fast path).

What is counted (``Usage.entries``):

* table FSM: ``(S, I)``, the decisions taken in state ``s`` on input ``x``;
* BDA: ``(S, 3)``, per state the tests that held (true action played), that failed with
  tests left (moved on to the false next state) and that failed on the last test (false
  action played).

The inputs seen along the way (input codes, or a BDA's feature values) make the empirical
:class:`fsmarena.evo.minimise.InputDomain` of :func:`observed_domain`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence, Union, cast

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import FALSE_NEXT, THETA_STEPS, TRUE_NEXT, BinaryDecisionAutomaton
from fsmarena.evo.minimise import InputDomain, minimise, reachable_states
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.arena import play_games
from fsmarena.games.base import Game, Outcome
from fsmarena.games.players import Player
from fsmarena.parallel import chunk_sizes

#: the machines whose usage is counted
Machine = Union[TableFSM, BinaryDecisionAutomaton]

#: games per opponent and seat when nothing else is asked
DEFAULT_GAMES = 200
#: games of one engine call (their memory, a few hundred bytes a game, is all a usage count holds)
CHUNK = 50_000
#: a BDA's decisions whose feature values are merged into the distinct values at once
PENDING_DECISIONS = 256


@dataclass
class Usage:
    """Counts of one machine's play (see the module docstring); ``features`` holds, per
    feature, the distinct values a BDA saw, scaled as its tests scale them."""

    player: Player
    games: int
    decisions: int
    visits: np.ndarray
    entries: np.ndarray
    inputs: np.ndarray | None = None
    features: tuple[np.ndarray, ...] | None = None

    @property
    def transitions(self) -> np.ndarray:
        """``(S, S)``: how often an entry moved the machine from state ``s`` to state ``t``
        (a BDA's false branches count whether or not a test was left)."""
        n_states = len(self.visits)
        moves = np.zeros((n_states, n_states), dtype=np.int64)
        rows = np.arange(n_states)
        if isinstance(self.player, TableFSM):
            targets = self.player.next_state[0]
            np.add.at(moves, (np.repeat(rows, targets.shape[1]), targets.reshape(-1)), self.entries.reshape(-1))
        elif isinstance(self.player, BinaryDecisionAutomaton):
            genes = self.player.genes[0]
            np.add.at(moves, (rows, genes[:, TRUE_NEXT]), self.entries[:, 0])
            np.add.at(moves, (rows, genes[:, FALSE_NEXT]), self.entries[:, 1] + self.entries[:, 2])
        return moves

    def played_states(self) -> np.ndarray:
        """Per state, whether it was used: a decision begun there, or (a BDA) a test made there."""
        return (self.visits > 0) | (self.entries.sum(axis=1) > 0)

    def domain(self, played: bool = False) -> InputDomain:
        """The inputs seen, as the domain of an empirical minimisation; ``played``: the states
        used too (:attr:`fsmarena.evo.minimise.InputDomain.states`), so that the states never
        used are dropped."""
        states = self.played_states() if played else None
        if self.inputs is not None:
            return InputDomain(inputs=self.inputs > 0, states=states)
        return InputDomain(features=self.features, states=states)

    def summary(self) -> dict[str, Any]:
        """JSON-ready totals: decisions, states used, entries used and unused."""
        used = self.entries > 0
        return {
            "games": self.games,
            "decisions": self.decisions,
            "states_used": int(np.count_nonzero(self.visits)),
            "entries_used": int(np.count_nonzero(used)),
            "entries": int(used.size),
            "visits": self.visits.tolist(),
        }


class _Counting(Player):
    """Plays like ``machine`` and adds every decision to ``usage``."""

    kind = "counting"

    def __init__(self, machine: Player, usage: Usage):
        super().__init__(machine.label)
        self.machine = machine
        self.usage = usage
        #: a BDA's scaled feature rows not yet merged into ``usage.features`` (merged in bulk:
        #: one sort per many decisions rather than one per decision and feature)
        self.pending: list[np.ndarray] = []

    def begin(self, game, n, members, rng):
        memory = self.machine.begin(game, n, members, rng)
        if isinstance(self.machine, BinaryDecisionAutomaton):
            memory.trace = []
        return memory

    def act(self, obs, memory, rows, rng):
        usage = self.usage
        state = memory.state if rows is None else memory.state[rows]
        usage.visits += np.bincount(state, minlength=len(usage.visits))
        usage.decisions += obs.n
        if isinstance(self.machine, TableFSM):
            inputs = memory.encoder.encode(obs)
            np.add.at(usage.entries, (state, inputs), 1)
            usage.inputs += np.bincount(inputs, minlength=len(usage.inputs))
            return self.machine.act(obs, memory, rows, rng)
        actions = self.machine.act(obs, memory, rows, rng)
        for tested, holds, last in memory.trace:
            np.add.at(usage.entries[:, 0], tested[holds], 1)
            np.add.at(usage.entries[:, 2 if last else 1], tested[~holds], 1)
        memory.trace.clear()
        self.pending.append(np.asarray(obs.features) * float(THETA_STEPS))
        if len(self.pending) >= PENDING_DECISIONS:
            self.merge()
        return actions

    def merge(self) -> None:
        """Add the pending feature rows to the distinct values in ``usage.features``."""
        if not self.pending:
            return
        scaled = np.concatenate(self.pending)
        self.pending.clear()
        usage = self.usage
        assert usage.features is not None
        usage.features = tuple(np.union1d(seen, column) for seen, column in zip(usage.features, scaled.T))


def default_panel(game: Game) -> list[Player]:
    """Every builtin player of ``game`` (random included), in name order."""
    return [factory() for _name, factory in sorted(game.builtin_players().items())]


def play_panel(
    machine: Player, game: Game, panel: Sequence[Player] | None = None, games: int = DEFAULT_GAMES, seed: int = 0
) -> Iterator[Outcome]:
    """``machine`` against every opponent of ``panel`` (default: :func:`default_panel`),
    ``games`` games in each seat (a one-player game: ``games`` games alone), each opponent and
    seat with its own stream spawned from ``seed``.  The games are played and yielded in
    engine calls of at most :data:`CHUNK` games on that stream, so memory does not depend on
    ``games`` (a billion games once needed one batch of tens of gigabytes); up to CHUNK games
    per opponent and seat, that is one call, as before chunks existed."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise FsmarenaError(f"the number of games must be a positive integer, got {games}")
    opponents: list[Player | None] = [None] if game.n_seats == 1 else list(panel or default_panel(game))
    streams = np.random.SeedSequence(seed).spawn(len(opponents) * game.n_seats)
    for number, opponent in enumerate(opponents):
        for seat in range(game.n_seats):
            seats = [machine if s == seat else opponent for s in range(game.n_seats)]
            rng = np.random.default_rng(streams[number * game.n_seats + seat])
            for size in chunk_sizes(games, CHUNK):
                # every player asked in Python, as the usage counter is: measuring a machine and
                # replaying it (or its minimised form) then meet the very same games
                yield play_games(game, seats, size, rng, compiled=False)  # type: ignore[arg-type]


def measure_usage(
    machine: Player,
    game: Game,
    panel: Sequence[Player] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
) -> Usage:
    """The usage of ``machine`` in the games of :func:`play_panel`."""
    if machine.n_members != 1 or not isinstance(machine, (TableFSM, BinaryDecisionAutomaton)):
        raise FsmarenaError(f"usage is counted for a single table-fsm or bda player, not '{machine.kind}'")
    usage = _empty_usage(machine, game)
    counting = _Counting(machine, usage)
    usage.games = sum(outcome.n for outcome in play_panel(counting, game, panel, games, seed))
    counting.merge()
    return usage


def observed_domain(
    machine: Player,
    game: Game,
    panel: Sequence[Player] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    played: bool = False,
) -> InputDomain:
    """The inputs ``machine`` meets against ``panel`` (empirical; see :mod:`fsmarena.evo.minimise`);
    ``played``: and the states it uses (:meth:`Usage.domain`)."""
    return measure_usage(machine, game, panel, games, seed).domain(played)


def _empty_usage(machine: Player, game: Game) -> Usage:
    if isinstance(machine, TableFSM):
        shape = (machine.n_states, machine.n_inputs)
        inputs = np.zeros(machine.n_inputs, dtype=np.int64)
        return Usage(machine, 0, 0, np.zeros(machine.n_states, dtype=np.int64), np.zeros(shape, np.int64), inputs)
    assert isinstance(machine, BinaryDecisionAutomaton)
    features = tuple(np.empty(0) for _ in game.feature_names)
    entries = np.zeros((machine.n_states, 3), dtype=np.int64)
    return Usage(machine, 0, 0, np.zeros(machine.n_states, dtype=np.int64), entries, None, features)


def machine_summary(machine: Player, game: Game, usage: Usage) -> dict[str, Any]:
    """What ``fsmarena inspect`` and the studies report of a machine, JSON-ready: its states,
    those reachable, its effective states (exact, and on the inputs met in ``usage``'s games),
    the inputs it met and how much of it fired."""

    summary: dict[str, Any] = {
        "kind": machine.kind,
        "label": machine.label,
        "game": game.name,
        "states": len(usage.visits),
        "reachable_states": len(reachable_states(machine)),
        "effective_states": minimise(machine).n_states,
        "effective_states_in_play": minimise(machine, usage.domain()).n_states,
    }
    if isinstance(machine, TableFSM):
        summary["inputs"] = {"encoding": machine.inputs, "total": machine.n_inputs}
        met = usage.inputs if usage.inputs is not None else np.zeros(0)
        summary["inputs"]["met_in_play"] = int(np.count_nonzero(met))
    elif isinstance(machine, BinaryDecisionAutomaton):
        held = usage.entries[:, 0] > 0
        failed = usage.entries[:, 1:].sum(axis=1) > 0
        tested = usage.entries.sum(axis=1) > 0
        summary["tests"] = {
            "states_tested_in_play": int(np.count_nonzero(tested)),
            "never_held": int(np.count_nonzero(tested & ~held)),
            "never_failed": int(np.count_nonzero(tested & ~failed)),
        }
    summary["usage"] = usage.summary()
    return summary


def minimal_in_play(
    machine: Machine,
    game: Game,
    panel: Sequence[Player] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    played: bool = False,
) -> tuple[Machine, np.ndarray | None, Usage]:
    """The minimal machine that plays like ``machine`` on the inputs it meets against the
    panel (:func:`fsmarena.evo.minimise.minimise` on the observed domain), the input codes it keeps
    (table FSM; ``None`` for a BDA) and its own usage in the same games: what ``draw
    --minimise inputs`` and the studies' drawings of the best machines show; ``played``: the
    states never used dropped too, as ``draw --minimise played`` does)."""

    minimal = minimise(machine, observed_domain(machine, game, panel, games, seed, played))
    player = cast(Machine, minimal.player)  # minimise keeps the machine's kind
    return player, minimal.inputs, measure_usage(player, game, panel, games, seed)
