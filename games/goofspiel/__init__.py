"""Goofspiel: everything about it lives in this folder.

``game`` (rules, batched engine), ``players`` (fixed strategies), ``reference`` (the plain
loop the tests compare with), ``kernel`` (the compiled single-game kernel for the sequential
learners).  The study is ``games/goofspiel/goofspiel.toml`` on the generic runner.
"""

from games.registry import GameEntry

ENTRY = GameEntry(
    name="goofspiel",
    game="games.goofspiel.game:Goofspiel",
    player_kinds={"goofspiel-builtin": "games.goofspiel.players:GoofspielBuiltin"},
    studies={"goofspiel": "goofspiel.toml"},
    kernel="games.goofspiel.kernel",
    probes=("upbid", "match", "random"),  # fingerprints: mixtures of these three builtins
    expectations="games.goofspiel.expectations:EXPECTED",
)
