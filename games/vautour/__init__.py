"""Stupide Vautour (Hol's der Geier): everything about it lives in this folder.

``game`` (rules, both tie rules, batched engine), ``players`` (the seed's strategies and
prize-rank), ``reference`` (the plain loop), ``study`` (the definitions of the ``vautour``
studies, run and reported by the studies layer: :mod:`studies.player_counts`).
"""

from games.registry import GameEntry

ENTRY = GameEntry(
    name="vautour",
    game="games.vautour.game:StupideVautour",
    player_kinds={
        "vautour-builtin": "games.vautour.players:VautourBuiltin",
        "vautour-equilibrium": "games.vautour.players:VautourEquilibrium",
    },
    studies={"vautour": "games.vautour.study:load", "vautour-small": "games.vautour.study:load_small"},
    kernel="games.vautour.kernel",
    probes=("max", "min", "random"),  # fingerprints: mixtures of these three builtins
    expectations="games.vautour.expectations:EXPECTED",
)
