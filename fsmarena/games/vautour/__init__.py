"""Stupide Vautour (Hol's der Geier): everything about it lives in this folder.

``kernel`` (the rules, both tie rules, and the seed's strategies and prize-rank, compiled),
``game`` (configuration, labels, metadata), ``players`` (the exact equilibrium as a player),
``solver`` / ``exploit`` (exact solution and best responses), ``reference`` (the plain loop), and the definitions of the ``vautour`` studies
(``vautour.toml``, ``vautour_small.toml``, ``vautour_deep.toml``: run over their player counts and reported by the
studies layer; the last needs the optional ``[deep]`` extra).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="vautour",
    game="fsmarena.games.vautour.game:StupideVautour",
    player_kinds={
        "vautour-equilibrium": "fsmarena.games.vautour.players:VautourEquilibrium",
    },
    studies={"vautour": "vautour.toml", "vautour-small": "vautour_small.toml", "vautour-deep": "vautour_deep.toml"},
    bench_cases=("fsmarena.games.vautour.reference:bench_cases",),
    kernel="fsmarena.games.vautour.kernel",
    probes=("max", "min", "random"),  # fingerprints: mixtures of these three builtins
    expectations="fsmarena.games.vautour.expectations:EXPECTED",
)
