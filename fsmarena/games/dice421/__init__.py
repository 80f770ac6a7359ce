"""421, the one-player dice game with a known model: everything about it lives in this folder.

``kernel`` (the rules and builtins, compiled), ``game`` (configuration, labels, the model), ``exact`` (dynamic programming: the optimum and
the exact value of any policy), ``reference`` (the plain loop), ``figures`` (its policy chart, which the
exact-values report of its study draws).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="421",
    game="fsmarena.games.dice421.game:Dice421",
    studies={"421": "421.toml"},
    policy_figure="fsmarena.games.dice421.figures:optimal_policy_figure",
    bench_cases=("fsmarena.games.dice421.reference:bench_cases",),
    kernel="fsmarena.games.dice421.kernel",
    expectations="fsmarena.games.dice421.expectations:EXPECTED",
)
