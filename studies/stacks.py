"""Many players behind one seat: a grouped stack (cross-play) and a per-game mixture (training).

Cross-play seats hundreds of champions in one batch.  :class:`GroupedStack` merges players of
one kind and shape into a single stacked player (a stack of table policies, BDAs or table
FSMs is evaluated by one fancy-indexed lookup per decision), so a decision costs one call per
*kind*, not per champion.  :class:`Mixture` is an opponent for learners: each game draws one
of its players uniformly (from the batch's random stream), so an RL agent can train against
"the evolved champions" as a population.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence

import numpy as np

from games.base import Outcome
from games.players import Player, TablePolicy


def _stack_tables(players: Sequence[TablePolicy]) -> Player:
    return TablePolicy.stack(players)


def _stack_bdas(players: Sequence[Player]) -> Player:
    from evo.bda import BinaryDecisionAutomaton

    first = players[0]
    return BinaryDecisionAutomaton(np.concatenate([p.genes for p in players]), first.max_tests,
                                   label="stack", names=first.names)


def _stack_fsms(players: Sequence[Player]) -> Player:
    from evo.table_fsm import TableFSM

    return TableFSM(np.concatenate([p.next_state for p in players]), np.concatenate([p.action for p in players]),
                    players[0].inputs, label="stack")


def stack_key(player: Player) -> tuple[Hashable, Callable[[Sequence[Player]], Player]] | None:
    """Players with equal keys can be merged by the returned function (None: cannot stack)."""
    kind = player.kind
    if kind == "table-policy" and player.n_members == 1:
        return (kind, player.table.shape[1]), _stack_tables
    if kind == "bda" and player.n_members == 1:
        return (kind, player.n_states, player.max_tests, player.names), _stack_bdas
    if kind == "table-fsm" and player.n_members == 1:
        return (kind, player.n_states, player.n_inputs, player.inputs), _stack_fsms
    return None


class GroupedStack(Player):
    """Players behind one seat: ``members[i]`` (an index into ``players``) plays game ``i``.

    Stackable players (see :func:`stack_key`) are merged per kind and shape; the others act
    on their own rows.  Actions and random draws happen group by group in a fixed order, so a
    batch is reproducible.
    """

    kind = "grouped-stack"

    def __init__(self, players: Sequence[Player]):
        super().__init__("grouped")
        self.n_members = len(players)
        groups: dict[Hashable, list[int]] = {}
        combine: dict[Hashable, Callable] = {}
        for index, player in enumerate(players):
            found = stack_key(player)
            key = ("single", index) if found is None else found[0]
            groups.setdefault(key, []).append(index)
            if found is not None:
                combine[key] = found[1]
        self.groups: list[Player] = []
        self.group_of = np.empty(len(players), dtype=np.int64)
        self.local = np.empty(len(players), dtype=np.int64)
        for number, (key, indices) in enumerate(groups.items()):
            members = [players[i] for i in indices]
            self.groups.append(combine[key](members) if key in combine else members[0])
            self.group_of[indices] = number
            self.local[indices] = np.arange(len(indices))

    def begin(self, game, n, members, rng):
        members = np.zeros(n, dtype=np.int64) if members is None else np.asarray(members)
        group = self.group_of[members]
        rows = [np.flatnonzero(group == g) for g in range(len(self.groups))]
        memories = [p.begin(game, len(r), self.local[members[r]], rng) if len(r) else None
                    for p, r in zip(self.groups, rows)]
        position = np.empty(n, dtype=np.int64)
        for r in rows:
            position[r] = np.arange(len(r))
        return group, position, memories, rows

    def act(self, obs, memory, rows, rng):
        group, position, memories, _ = memory
        row_ids = np.arange(len(group)) if rows is None else np.asarray(rows)
        acting = group[row_ids]
        actions = np.empty(obs.n, dtype=np.int64)
        for g, player in enumerate(self.groups):
            local = np.flatnonzero(acting == g)
            if len(local) == obs.n and rows is None:
                actions[:] = player.act(obs, memories[g], None, rng)
            elif len(local):
                actions[local] = player.act(obs.subset(local), memories[g], position[row_ids[local]], rng)
        return actions

    def finish(self, memory, outcome, seat):
        _, _, memories, rows = memory
        for player, mem, r in zip(self.groups, memories, rows):
            if len(r):
                player.finish(mem, Outcome(outcome.scores[r], outcome.rewards[r]), seat)


class Mixture(Player):
    """An opponent population: each game of a batch draws one of ``players`` uniformly."""

    kind = "mixture"

    def __init__(self, players: Sequence[Player], label: str | None = None):
        super().__init__(label or "mixture of " + ", ".join(p.label for p in players))
        self.players = list(players)
        self.stack = GroupedStack(self.players)

    def begin(self, game, n, members, rng):
        drawn = rng.integers(0, len(self.players), size=n)
        return self.stack.begin(game, n, drawn, rng)

    def act(self, obs, memory, rows, rng):
        return self.stack.act(obs, memory, rows, rng)

    def finish(self, memory, outcome, seat):
        self.stack.finish(memory, outcome, seat)

    def to_dict(self) -> dict[str, Any]:
        """A description for training checkpoints (a mixture is not a player file)."""
        return {"players": [p.label for p in self.players]}
