"""What the contract suite must find for Stupide Vautour (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Three players, cards 1..3, prizes -1, 1, 2, the seed's tie rule; the deal is the prize order
#: as positions in ``prizes``: 2, 0, 1, so the prizes come +2, -1, +1.  Action 6 + c bids card c;
#: every seat is asked every turn, in seat order.
#:   +2: bids 3, 3, 1: the 3s match and are out, the highest unmatched bid is 1: seat 2 takes +2.
#:   -1: bids 1, 2, 2: the 2s are out, the lowest unmatched bid is 1: seat 0 takes -1.
#:   +1: bids 2, 1, 3 (the cards left): the highest, 3: seat 2 takes +1.
#:   totals -1, 0, 3: seat 2 wins alone, the others lose.
MATCHED_BIDS_ARE_OUT = ScriptedDeal(
    label="matched bids are out, the unmatched ones take the prizes",
    params={"players": "3", "cards": "3", "prizes": "-1,1,2"},
    deal=(2, 0, 1),
    actions=((0, 9), (1, 9), (2, 7), (0, 7), (1, 8), (2, 8), (0, 8), (1, 7), (2, 9)),
    scores=(-1.0, 0.0, 3.0),
    rewards=(-1.0, -1.0, 1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=True,
    chance=True,
    zero_sum=True,
    exact_model=False,
    solvable=True,
    kernel=True,
    builtins=(
        "bonus-craving",
        "get-rid-of-bad-cards",
        "max",
        "min",
        "negative-adverse",
        "prize-rank",
        "random",
    ),
    deals=(MATCHED_BIDS_ARE_OUT,),
    small_params=({"cards": "4"}, {"players": "3", "cards": "5", "tie_rule": "cancel"}),
)
