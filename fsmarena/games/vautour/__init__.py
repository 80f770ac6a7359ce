"""Stupide Vautour (Hol's der Geier): everything about it lives in this folder.

``game`` (rules, both tie rules, batched engine), ``players`` (the seed's strategies and
prize-rank), ``reference`` (the plain loop), ``study`` (the definitions of the ``vautour``
studies, run and reported by the studies layer: :mod:`fsmarena.studies.player_counts`).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="vautour",
    game="fsmarena.games.vautour.game:StupideVautour",
    player_kinds={
        "vautour-equilibrium": "fsmarena.games.vautour.players:VautourEquilibrium",
    },
    studies={
        "vautour": "fsmarena.games.vautour.study:load",
        "vautour-small": "fsmarena.games.vautour.study:load_small",
    },
    bench_cases=("fsmarena.games.vautour.reference:bench_cases",),
    kernel="fsmarena.games.vautour.kernel",
    probes=("max", "min", "random"),  # fingerprints: mixtures of these three builtins
    expectations="fsmarena.games.vautour.expectations:EXPECTED",
)
