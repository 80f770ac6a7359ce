"""What the contract suite must find for 421 (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Two re-throws; the deal is three dice per throw (throw j at deal[3j : 3j + 3]; a re-thrown
#: position q of the descending triple takes deal[3j + q]).
#:   throw 0: 5, 2, 1, seen descending (5, 2, 1): "anything else", worth 1.
#:   reroll_high (action 4) re-throws the high die: deal[3 + 0] = 4, so (4, 2, 1) = 421.
#:   keep_all (action 0) stops: 421 scores 11 (the seed's table).  One seat: reward = score.
ROLL_TO_421 = ScriptedDeal(
    label="re-throw the high die into 421, then stop",
    params={},
    deal=(5, 2, 1, 4, 6, 6, 3, 3, 3),
    actions=((0, 4), (0, 0)),
    scores=(11.0,),
    rewards=(11.0,),
)

EXPECTED = Expectations(
    seats=1,
    simultaneous=False,
    chance=True,
    zero_sum=False,
    exact_model=True,
    solvable=False,
    kernel=True,
    builtins=("always-stop", "optimal", "random"),
    deals=(ROLL_TO_421,),
    small_params=({"rethrows": "0"}, {"rethrows": "1", "scores": "sum"}),
)
