"""Goofspiel: everything about it lives in this folder.

``kernel`` (the rules and the fixed strategies, compiled), ``game`` (configuration, labels,
metadata, the exact solution's hooks), ``reference`` (the plain loop the tests compare with),
``bench`` (benchmark cases).  The study is ``fsmarena/games/goofspiel/goofspiel.toml`` on the generic runner.
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="goofspiel",
    game="fsmarena.games.goofspiel.game:Goofspiel",
    studies={"goofspiel": "goofspiel.toml"},
    bench_cases=("fsmarena.games.goofspiel.bench:bench_cases",),
    kernel="fsmarena.games.goofspiel.kernel",
    probes=("upbid", "match", "random"),  # fingerprints: mixtures of these three builtins
    expectations="fsmarena.games.goofspiel.expectations:EXPECTED",
)
