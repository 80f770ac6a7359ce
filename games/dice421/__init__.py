"""421, the one-player dice game with a known model: everything about it lives in this folder.

``game`` (rules, batched engine, the model), ``exact`` (dynamic programming: the optimum and
the exact value of any policy), ``reference`` (the plain loop), ``study`` (the study methods
that use exact values, and the hook giving the exact-values report its optimum), ``figures``
(its policy chart).
"""

from games.registry import GameEntry

ENTRY = GameEntry(
    name="421",
    game="games.dice421.game:Dice421",
    studies={"421": "421.toml"},
    study_methods={
        "train-exact": "games.dice421.study:train_exact",
        "evolve-exact": "games.dice421.study:evolve_exact",
        "plan": "games.dice421.study:plan",
    },
    reports={"exact-values": "games.dice421.study:exact_reference"},
    kernel="games.dice421.kernel",
)
