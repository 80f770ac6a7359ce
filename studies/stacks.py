"""A per-game mixture of players (training opponents).

:class:`Mixture` is an opponent for learners: each game draws one of its players uniformly
(from the batch's random stream), so an RL agent can train against "the evolved champions" as
a population.  It seats them with the one stacked player, :class:`games.players.GroupedStack`.
"""

from __future__ import annotations

from typing import Any, Sequence

from games.players import GroupedStack, Player


class Mixture(Player):
    """An opponent population: each game of a batch draws one of ``players`` uniformly."""

    kind = "mixture"

    def __init__(self, players: Sequence[Player], label: str | None = None):
        super().__init__(label or "mixture of " + ", ".join(p.label for p in players))
        self.players = list(players)
        self.grouped = GroupedStack(self.players)

    def begin(self, game, n, members, rng):
        drawn = rng.integers(0, len(self.players), size=n)
        return self.grouped.begin(game, n, drawn, rng)

    def act(self, obs, memory, rows, rng):
        return self.grouped.act(obs, memory, rows, rng)

    def finish(self, memory, outcome, seat):
        self.grouped.finish(memory, outcome, seat)

    def to_dict(self) -> dict[str, Any]:
        """A description for training checkpoints (a mixture is not a player file)."""
        return {"players": [p.label for p in self.players]}
