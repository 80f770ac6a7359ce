"""Deck-based divide-the-dollar, the thesis game: everything about it lives in this folder.

``kernel`` (the rules and builtins, compiled), ``game`` (configuration, labels, metadata),
``reference`` (the plain single-game loop the kernel is tested against), ``machines_reference`` (plain-Python automata on that loop), ``comparison``
(the README's learner comparison), ``bench_learning`` / ``bench_evolution`` / ``bench_scaling``
(benchmark cases).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="dtd",
    game="fsmarena.games.dtd.game:DivideTheDollar",
    studies={"dtd-thesis": "dtd_thesis.toml"},
    bench_cases=(
        "fsmarena.games.dtd.reference:bench_cases",  # compiled vs Python seats
        "fsmarena.games.dtd.bench_learning:bench_cases",  # Monte Carlo ES training
        "fsmarena.games.dtd.bench_evolution:bench_cases",  # thesis run, round-robin generation
        "fsmarena.games.dtd.bench_scaling:scaling_cases",  # opt-in: a whole study, 2 workers vs 1
    ),
    kernel="fsmarena.games.dtd.kernel",
    probes=("always-large", "always-small", "always-median"),  # fingerprints: mixtures of these three builtins
    expectations="fsmarena.games.dtd.expectations:EXPECTED",
)
