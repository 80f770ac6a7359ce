"""The old home of :class:`games.players.Mixture` (a per-game mixture of players, an opponent
for learners), kept so that existing imports of ``studies.stacks.Mixture`` still work: the
class now sits beside the other players, in :mod:`games.players`.
"""

from games.players import Mixture as Mixture

__all__ = ["Mixture"]
