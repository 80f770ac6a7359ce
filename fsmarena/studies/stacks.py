"""The old home of :class:`fsmarena.games.players.Mixture` (a per-game mixture of players, an opponent
for learners), kept so that existing imports of ``fsmarena.studies.stacks.Mixture`` still work: the
class now sits beside the other players, in :mod:`fsmarena.games.players`.
"""

from fsmarena.games.players import Mixture as Mixture

__all__ = ["Mixture"]
