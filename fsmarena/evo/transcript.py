"""Games move by move: what each seat saw, in the game's words, its machine's state before and
after, the action it took, and the scores at the end.

Built on the driver's trace hook (:func:`fsmarena.games.driver.traced`, through
:func:`fsmarena.games.arena.play_games`), so it serves every game: the hook hands over each
decision's seat, rows, observation and actions, and each seat's player is wrapped to note its
state before and after the decision (a table FSM's or a BDA's; no state for other kinds).  The
observation is described by its tabular index in the game's words
(:func:`fsmarena.games.phrases.situation_words`).  In a game of simultaneous moves
(:class:`fsmarena.games.capabilities.SimultaneousMoves`) the bids of one turn are printed side
by side.  ``fsmarena play --trace N`` prints these transcripts (and ``--json`` returns them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from fsmarena.evo.bda import BinaryDecisionAutomaton
from fsmarena.evo.strategy_summary import machine_state
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.arena import play_games
from fsmarena.games.base import Game
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.phrases import situation_words
from fsmarena.games.players import Player


@dataclass(frozen=True)
class Move:
    """One decision: the seat, the game's step, the tabular index it saw and that index in
    words, the machine's state before and after (None for a player without states) and the
    action (number and name)."""

    seat: int
    step: int
    index: int
    situation: str
    before: int | None
    after: int | None
    action: int
    action_name: str


@dataclass
class Transcript:
    """One game: the players' labels by seat, every move in order, the final scores and rewards."""

    players: list[str]
    moves: list[Move]
    scores: list[float]
    rewards: list[float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "moves": [asdict(move) for move in self.moves],
            "scores": self.scores,
            "rewards": self.rewards,
        }


class _Stateful(Player):
    """Plays like ``player`` and keeps, for the last decision, the rows and the machine's
    state before and after."""

    kind = "stateful"

    def __init__(self, player: Player):
        super().__init__(player.label)
        self.player = player
        self.machine = isinstance(player, (TableFSM, BinaryDecisionAutomaton))
        self.last: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))

    def begin(self, game, n, members, rng):
        return self.player.begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        before = machine_state(self.player, memory, rows, obs.n)
        actions = self.player.act(obs, memory, rows, rng)
        self.last = (before, machine_state(self.player, memory, rows, obs.n))
        return actions

    def finish(self, memory, outcome, seat):
        self.player.finish(memory, outcome, seat)


def transcripts(
    game: Game,
    players: Sequence[Player],
    n: int,
    rng: np.random.Generator,
    deals: np.ndarray | None = None,
) -> list[Transcript]:
    """``n`` games of ``players`` (one per seat) on the stream ``rng`` (``deals``: scripted
    chance, one kernel deal per game), each as a :class:`Transcript`."""
    seats = [_Stateful(player) for player in players]
    moves: list[list[Move]] = [[] for _ in range(n)]

    def trace(seat: int, rows: np.ndarray, obs: Any, actions: np.ndarray) -> None:
        before, after = seats[seat].last
        machine = seats[seat].machine
        index, step = np.broadcast_to(obs.index, (obs.n,)), np.broadcast_to(obs.step, (obs.n,))
        for k, row in enumerate(np.asarray(rows).tolist()):
            action = int(np.broadcast_to(actions, (obs.n,))[k])
            moves[row].append(
                Move(
                    seat,
                    int(step[k]),
                    int(index[k]),
                    situation_words(game, int(index[k])),
                    int(before[k]) if machine else None,
                    int(after[k]) if machine else None,
                    action,
                    game.action_names[action],
                )
            )

    outcome = play_games(game, seats, n, rng, deals=deals, trace=trace)
    labels = [player.label for player in players]
    return [
        Transcript(labels, moves[row], outcome.scores[row].tolist(), outcome.rewards[row].tolist()) for row in range(n)
    ]


def _move_text(move: Move, names: Sequence[str]) -> str:
    state = "" if move.before is None else f" [S{move.before}\u2192S{move.after}]"
    return f"{names[move.seat]}{state}: {move.situation} \u2192 {move.action_name}"


def _turns(moves: Sequence[Move]) -> list[list[Move]]:
    """Moves cut into turns of a simultaneous game: a turn ends when the seat order restarts."""
    turns: list[list[Move]] = []
    for move in moves:
        if not turns or move.seat <= turns[-1][-1].seat:
            turns.append([])
        turns[-1].append(move)
    return turns


def transcript_lines(game: Game, transcript: Transcript, number: int = 1) -> list[str]:
    """One game as text: a line per decision (a turn's bids side by side in a simultaneous
    game), then the scores and the result of each seat."""
    names = [f"seat {seat} '{label}'" for seat, label in enumerate(transcript.players)]
    lines = [f"game {number}: " + " vs ".join(names)]
    if isinstance(game, SimultaneousMoves):
        for turn, moves in enumerate(_turns(transcript.moves), 1):
            lines.append(f"  turn {turn}: " + "  |  ".join(_move_text(m, names) for m in moves))
    else:
        for decision, move in enumerate(transcript.moves, 1):
            lines.append(f"  {decision}. {_move_text(move, names)}")
    scores = ", ".join(f"{score:g}" for score in transcript.scores)
    if game.n_seats == 1:
        lines.append(f"  end: score {scores}")
    else:
        results = ", ".join({1.0: "wins", 0.0: "draws", -1.0: "loses"}.get(r, f"{r:g}") for r in transcript.rewards)
        lines.append(f"  end: scores {scores} (seat by seat: {results})")
    return lines


def rotated_transcripts(game: Game, a: Player, b: Player | None, n: int, seed: int) -> list[Transcript]:
    """``n`` games of ``a`` against ``b`` (alone in a one-player game), ``a`` taking seat
    ``k % seats`` in game ``k`` and ``b`` every other seat; game ``k`` plays on the ``k``-th
    stream spawned from ``seed``, so a transcript does not depend on how many are asked."""
    streams = np.random.SeedSequence(seed).spawn(n)
    found = []
    for k, stream in enumerate(streams):
        seat = k % game.n_seats
        players = [a if s == seat or b is None else b for s in range(game.n_seats)]
        found += transcripts(game, players, 1, np.random.default_rng(stream))
    return found
