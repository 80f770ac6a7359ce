"""31 (Scat / Blitz): everything about it lives in this folder.

``game`` (rules and batched engine), ``players`` (greedy builtins), ``reference`` (the plain
loop), ``agent`` (its two heads of the network learner, extra ``[neural]``), ``study`` (the
definition of the ``thirtyone`` study, run and reported by the studies layer:
:mod:`studies.target_study`), ``methods`` (its network training method).
"""

from games.registry import GameEntry

ENTRY = GameEntry(
    name="thirtyone",
    game="games.thirtyone.game:ThirtyOne",
    player_kinds={
        "thirtyone-greedy": "games.thirtyone.players:GreedyPlayer",
        "thirtyone-mlp": "games.thirtyone.agent:MLPAgent",
    },
    studies={"thirtyone": "games.thirtyone.study:load"},
    study_methods={"train-mlp": "games.thirtyone.methods:train_mlp"},
    kernel="games.thirtyone.kernel",
    probes=("greedy", "greedy-knock", "random"),  # fingerprints: mixtures of these three builtins
    network="games.thirtyone.agent:NETWORK",
    expectations="games.thirtyone.expectations:EXPECTED",
)
