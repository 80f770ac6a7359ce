"""What a player does, in words: per state, the situations grouped by the action it takes and
the moves to other states, ordered by how often they occur in play.

A summary serves every player kind.  The player plays a panel of named opponents (every
builtin by default, :func:`fsmarena.evo.usage.play_panel`: every seat in turn, everything
asked in Python) behind a recording wrapper that notes, at each of its decisions, its state
before and after (a table FSM's or a BDA's; every other kind has the one state 0), the
situation it met and the action it took.  A situation is an input code: a table FSM's own
input (``index``, ``opp_last``, ``index+opp_last``), a table policy's ``index``, and for every
other kind (BDAs, builtins, networks, agents) the game's default FSM input
(``Game.fsm_inputs``), so a network is read through the greedy table it plays.  The words are
the game's own (:mod:`fsmarena.games.phrases`; a game without phrases gets the input's number
and label).

:func:`summarise` counts; :meth:`StrategySummary.lines` prints what ``fsmarena inspect``
shows, :meth:`StrategySummary.rows` the rows of a strategy card
(:mod:`fsmarena.figures.strategy_card`), :meth:`StrategySummary.to_dict` the JSON.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from fsmarena.evo.bda import FEATURE, BinaryDecisionAutomaton, state_to_json
from fsmarena.evo.inputs import InputEncoder, input_encoder
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.evo.usage import DEFAULT_GAMES, default_panel, play_panel
from fsmarena.games.base import Game
from fsmarena.games.phrases import encoding_words, feature_words, phrases_of, situation_words
from fsmarena.games.players import Player, TablePolicy
from fsmarena.text import percent

#: situations named per group in the text (the rest are counted)
MAX_NAMED = 3
#: moves to other states listed per state (the rest are counted)
MAX_MOVES = 3


def situation_encoder(player: Player, game: Game) -> InputEncoder:
    """The input codes a summary groups ``player``'s decisions by (see the module docstring)."""
    if isinstance(player, TableFSM):
        return input_encoder(game, player.inputs)
    if isinstance(player, TablePolicy):  # however large the index: only the situations met are named
        return InputEncoder("index", ("index",), (game.n_states,))
    return input_encoder(game, game.fsm_inputs)


def input_words(game: Game, encoder: InputEncoder, code: int) -> str:
    """Input ``code`` of ``encoder`` in the game's words, its parts joined by ``; ``."""
    words = []
    for part, value in zip(encoder.parts, encoder.decode(code)):
        words.append(situation_words(game, value) if part == "index" else encoding_words(game, part, value))
    return "; ".join(words)


def machine_state(player: Player, memory: Any, rows: np.ndarray | None, n: int) -> np.ndarray:
    """The state of each deciding row: a table FSM's or a BDA's, 0 for every other kind."""
    if isinstance(player, (TableFSM, BinaryDecisionAutomaton)):
        state = memory.state if rows is None else memory.state[rows]
        return np.array(state, dtype=np.int64)
    return np.zeros(n, dtype=np.int64)


class Recording(Player):
    """Plays like ``player`` and hands each decision, ``(state before, input code, action,
    state after)`` per row, to ``record``."""

    kind = "recording"

    def __init__(self, player: Player, encoder: InputEncoder, record):
        super().__init__(player.label)
        self.player, self.encoder, self.record = player, encoder, record

    def begin(self, game, n, members, rng):
        return self.player.begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        before = machine_state(self.player, memory, rows, obs.n)
        codes = np.array(self.encoder.encode(obs), dtype=np.int64)
        actions = np.asarray(self.player.act(obs, memory, rows, rng))
        after = machine_state(self.player, memory, rows, obs.n)
        self.record(obs, rows, before, codes, np.broadcast_to(actions, (obs.n,)), after)
        return actions

    def finish(self, memory, outcome, seat):
        self.player.finish(memory, outcome, seat)


@dataclass(frozen=True)
class Group:
    """Decisions of one state that share an outcome (``key``: the action taken, or the state
    moved to), ``count`` in all, and the situations they met: ``(input code, count)``, most
    frequent first."""

    key: int
    count: int
    inputs: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class StateSummary:
    """One state: its decisions, the actions it took and its moves to other states (each a
    :class:`Group`, most frequent first)."""

    state: int
    decisions: int
    actions: tuple[Group, ...]
    moves: tuple[Group, ...]


@dataclass(frozen=True)
class CardRow:
    """One row of a strategy card: in ``state``, an ``"action"`` played (``key``: its number)
    or a ``"move"`` to state ``key``, ``count`` of the state's ``decisions``, and the
    situations it happens in, in words."""

    state: int
    what: str
    key: int
    count: int
    decisions: int
    situations: str


@dataclass
class StrategySummary:
    """What :func:`summarise` found: ``words[code]`` is each situation met in the game's words,
    ``actions`` the game's action names, ``meanings`` what the actions played do (where the
    game says so); for a BDA, ``tests`` the first test of each state decisions begin in and
    ``legend`` the features they test, spelled out."""

    kind: str
    label: str
    game: str
    inputs: str
    opponents: list[str]
    games: int
    decisions: int
    states: list[StateSummary]
    words: dict[int, str]
    actions: list[str]
    meanings: dict[str, str] = field(default_factory=dict)
    legend: dict[str, str] = field(default_factory=dict)
    tests: dict[int, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The summary as text: one paragraph per state used (see :func:`state_lines`)."""
        head = [
            f"strategy of {self.kind} '{self.label}' ({self.game}) in {self.games} games {self.against()}",
            f"  situations: '{self.inputs}'; {self.decisions} decisions",
        ]
        body = [line for state in self.states for line in state_lines(self, state)]
        meanings = [f"    {name}: {words}" for name, words in self.meanings.items()]
        legend = [f"    {name}: {words}" for name, words in self.legend.items()]
        return (
            head + body + (["  actions:", *meanings] if meanings else []) + (["  features:", *legend] if legend else [])
        )

    def against(self) -> str:
        """``against always-large, random`` or, in a one-player game, ``alone``."""
        return f"against {', '.join(self.opponents)}" if self.opponents else "alone"

    def rows(self) -> list[CardRow]:
        """The rows of a strategy card, every one, most decisions first whatever their state:
        each state's actions, and its moves to other states (at most :data:`MAX_MOVES`)."""
        found = []
        for state in self.states:
            for group in state.actions:
                found.append(CardRow(state.state, "action", group.key, group.count, state.decisions, self.named(group)))
            for group in state.moves[:MAX_MOVES]:
                found.append(
                    CardRow(state.state, "move", group.key, group.count, state.decisions, self.named(group, 2))
                )
        return sorted(found, key=lambda row: (-row.count, row.state, row.what, row.key))

    def named(self, group: Group, most: int = MAX_NAMED) -> str:
        """The first ``most`` situations of ``group`` in words, with their shares of it."""
        shown = [f"{self.words[code]} ({percent(count, group.count)})" for code, count in group.inputs[:most]]
        more = len(group.inputs) - len(shown)
        return ", ".join(shown) + (f", {more} more" if more else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every state with its action groups and moves, situations in words."""

        def group(g: Group, key: str) -> dict[str, Any]:
            value = self.actions[g.key] if key == "action" else f"S{g.key}"
            situations = [{"situation": self.words[c], "count": n} for c, n in g.inputs]
            return {key: value, "count": g.count, "situations": situations}

        states = [
            {
                "state": f"S{s.state}",
                "decisions": s.decisions,
                **({"test": self.tests[s.state]} if s.state in self.tests else {}),
                "actions": [group(g, "action") for g in s.actions],
                "moves": [group(g, "to") for g in s.moves],
            }
            for s in self.states
        ]
        keys = ("kind", "label", "game", "inputs", "opponents", "games", "decisions", "meanings", "legend")
        return {**{k: getattr(self, k) for k in keys}, "states": states}


def state_lines(summary: StrategySummary, state: StateSummary) -> list[str]:
    """A state's paragraph: its share of the decisions, each action with the situations it
    answers, then the moves that leave the state and what triggers them."""
    start = " (start)" if state.state == 0 else ""
    lines = [f"  S{state.state}{start}: {percent(state.decisions, summary.decisions)} of decisions"]
    if state.state in summary.tests:
        lines.append(f"    tests {summary.tests[state.state]} first")
    for group in state.actions:
        share = percent(group.count, state.decisions)
        lines.append(f"    {summary.actions[group.key]} {share}: {summary.named(group)}")
    for group in state.moves[:MAX_MOVES]:
        lines.append(f"    -> S{group.key} {move_words(summary, state, group)}")
    hidden = state.moves[MAX_MOVES:]
    if hidden:
        lines.append(f"    -> {len(hidden)} more states, {percent(sum(g.count for g in hidden), state.decisions)}")
    return lines


def move_words(summary: StrategySummary, state: StateSummary, move: Group) -> str:
    """When a move fires: ``always`` (after every decision of the state), or its share and
    the situations it follows (``12%: after opponent last played 3/4 (80%), ...``)."""
    if move.count == state.decisions:
        return "always"
    return f"{percent(move.count, state.decisions)}: after {summary.named(move, 2)}"


def _groups(rows: np.ndarray, key_column: int) -> tuple[Group, ...]:
    """``rows`` (input code, key, count) grouped by key, most frequent first."""
    found = []
    for key in np.unique(rows[:, key_column]):
        mine = rows[rows[:, key_column] == key]
        inputs: Counter[int] = Counter()
        for code, count in zip(mine[:, 0].tolist(), mine[:, 2].tolist()):
            inputs[code] += count
        ordered = tuple(sorted(inputs.items(), key=lambda item: (-item[1], item[0])))
        found.append(Group(int(key), int(mine[:, 2].sum()), ordered))
    return tuple(sorted(found, key=lambda g: (-g.count, g.key)))


def summarise(
    player: Player,
    game: Game,
    panel: Sequence[Player] | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
) -> StrategySummary:
    """The summary of ``player`` over ``games`` games per opponent of ``panel`` and seat
    (default: every builtin; a one-player game: ``games`` games alone)."""
    encoder = situation_encoder(player, game)
    counts: Counter = Counter()

    def record(obs, rows, before, codes, actions, after) -> None:
        stacked = np.stack([before, codes, np.asarray(actions, dtype=np.int64), after], axis=1)
        unique, times = np.unique(stacked, axis=0, return_counts=True)
        for row, times_seen in zip(map(tuple, unique.tolist()), times.tolist()):
            counts[row] += times_seen

    recording = Recording(player, encoder, record)
    played = sum(outcome.n for outcome in play_panel(recording, game, panel, games, seed))
    table = np.array([[*key, n] for key, n in counts.items()], dtype=np.int64).reshape(-1, 5)
    states = []
    for state in np.unique(table[:, 0]).tolist():
        mine = table[table[:, 0] == state]
        leaving = mine[mine[:, 3] != state]
        states.append(
            StateSummary(
                int(state),
                int(mine[:, 4].sum()),
                _groups(mine[:, [1, 2, 4]], 1),
                _groups(leaving[:, [1, 3, 4]], 1),
            )
        )
    opponents = [] if game.n_seats == 1 else [p.label for p in (panel or default_panel(game))]
    summary = StrategySummary(
        kind=player.kind,
        label=player.label,
        game=game.name,
        inputs=encoder.name,
        opponents=opponents,
        games=played,
        decisions=int(table[:, 4].sum()),
        states=states,
        words={int(code): input_words(game, encoder, int(code)) for code in np.unique(table[:, 1])},
        actions=list(game.action_names),
        meanings=action_meanings(game, np.unique(table[:, 2]).tolist()),
    )
    if isinstance(player, BinaryDecisionAutomaton):
        summary.tests = first_tests(player, game, [s.state for s in states])
        summary.legend = feature_legend(player, game, [s.state for s in states])
    return summary


def action_meanings(game: Game, played: Sequence[int]) -> dict[str, str]:
    """What each action of ``played`` does, in the game's words, for those the game explains."""
    words = phrases_of(game).actions
    names = [game.action_names[a] for a in played]
    return {name: words[name] for name in names if name in words}


def first_tests(player: BinaryDecisionAutomaton, game: Game, states: Sequence[int]) -> dict[int, str]:
    """Each of ``states``' test, as a BDA drawing writes it (``Med < 0.755``)."""
    found = {}
    for state in states:
        test = state_to_json(player.genes[0][state], game.feature_names, game.action_names)
        found[state] = f"{test['feature']} {test['test']} {test['theta']:.3f}"
    return found


def feature_legend(player: BinaryDecisionAutomaton, game: Game, states: Sequence[int]) -> dict[str, str]:
    """The features ``states`` test, spelled out in the game's words."""
    used = sorted({int(player.genes[0][state, FEATURE]) for state in states})
    return {game.feature_names[f]: feature_words(game, game.feature_names[f]) for f in used}
