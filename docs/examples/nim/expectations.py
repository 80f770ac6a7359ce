"""What the contract suite must find for Nim (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Five stones, takes of 1 to 3: seat 0 takes 1 (4 left), seat 1 takes 3 (1 left), seat 0
#: takes the last stone and wins.  Action k - 1 takes k stones.
LAST_STONE = ScriptedDeal(
    label="seat 0 takes the last stone",
    params={"stones": "5"},
    deal=(0,),
    actions=((0, 0), (1, 2), (0, 0)),
    scores=(1.0, 0.0),
    rewards=(1.0, -1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=False,
    chance=False,
    zero_sum=True,
    exact_model=False,
    solvable=False,
    kernel=True,
    builtins=("optimal", "random", "take-one"),
    deals=(LAST_STONE,),
    small_params=({"stones": "3", "max_take": "2"}, {"stones": "12", "max_take": "1"}),
)
