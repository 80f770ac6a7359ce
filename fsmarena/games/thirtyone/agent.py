"""31's part in the network learner: two kinds of decision, greedy opponents, old player files.

The network learner (:mod:`fsmarena.rl.network_training`, ``fsmarena train thirtyone --algo mlp``)
trains on any game with features; what only 31 adds is declared here, as seed 003 trained it:

* **Two heads.**  A *turn* network (draw from the deck, take the discard, or knock) decides
  in the turn phase, a *swap* network (which of the four cards to throw) in the discard
  phase, both from the game's feature vector (``ThirtyOne.feature_names``).
* **Settings.**  The agent trains against, and is measured against, ``greedy``.

Rewards come from the game's segments (its rounds) and lives potential
(:mod:`fsmarena.games.thirtyone.potential`), which every learner reads through the observation.
Player files of kind ``thirtyone-mlp`` (written before the learner was generic) hold the same
fields as kind ``network`` and still load, as :class:`MLPAgent`.
"""

from __future__ import annotations

from fsmarena.games.thirtyone.game import DISCARD, DISCARD_0, DRAW_DECK, TURN
from fsmarena.rl.network_agent import Head, NetworkAgent, NetworkSpec

#: the network learner's heads on 31 and the settings it recommends
NETWORK = NetworkSpec(
    heads=(Head("turn", DRAW_DECK, 3, TURN), Head("swap", DISCARD_0, 4, DISCARD)),
    defaults={"opponents": ("greedy",), "eval_panel": ("greedy",)},
)


class MLPAgent(NetworkAgent):
    """A network player saved as kind ``thirtyone-mlp`` (the files of earlier versions)."""

    kind = "thirtyone-mlp"

    @classmethod
    def from_fields(cls, fields, game):
        if game.name != "thirtyone":
            raise fields.fail("a thirtyone-mlp player plays 31 only")
        return super().from_fields(fields, game)
