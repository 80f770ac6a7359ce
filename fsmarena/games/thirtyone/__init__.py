"""31 (Scat / Blitz): everything about it lives in this folder.

``kernel`` (the rules and the greedy builtins, compiled), ``game`` (configuration, labels,
metadata), ``reference`` (the plain loop), ``bench`` (benchmark cases), ``agent`` (its two heads of the network learner, extra ``[neural]``), ``thirtyone.toml``
(the definition of the ``thirtyone`` study, run and reported by the studies layer), ``methods`` (its network training method).
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="thirtyone",
    game="fsmarena.games.thirtyone.game:ThirtyOne",
    player_kinds={
        "thirtyone-mlp": "fsmarena.games.thirtyone.agent:MLPAgent",
    },
    studies={"thirtyone": "thirtyone.toml"},
    study_methods={"train-mlp": "fsmarena.games.thirtyone.methods:train_mlp"},
    bench_cases=("fsmarena.games.thirtyone.bench:bench_cases",),
    kernel="fsmarena.games.thirtyone.kernel",
    probes=("greedy", "greedy-knock", "random"),  # fingerprints: mixtures of these three builtins
    network="fsmarena.games.thirtyone.agent:NETWORK",
    expectations="fsmarena.games.thirtyone.expectations:EXPECTED",
)
