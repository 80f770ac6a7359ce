"""What the contract suite must find for Goofspiel (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Three cards, two players; the deal is the prize values in turn order: 2, 3, 1.  Action c - 1
#: bids card c; both seats are asked every turn, seat 0 first.
#:   prize 2: both bid 3, a shared highest bid: the prize is discarded.
#:   prize 3: seat 0 bids 1, seat 1 bids 2: seat 1 takes 3.
#:   prize 1: seat 0 bids 2, seat 1 bids 1 (the cards left): seat 0 takes 1.
#:   totals 1 and 3: seat 1 wins.
TIE_DISCARDS = ScriptedDeal(
    label="a tied bid discards the prize",
    params={"cards": "3"},
    deal=(2, 3, 1),
    actions=((0, 2), (1, 2), (0, 0), (1, 1), (0, 1), (1, 0)),
    scores=(1.0, 3.0),
    rewards=(-1.0, 1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=True,
    chance=True,
    zero_sum=True,
    exact_model=False,
    solvable=True,
    kernel=True,
    builtins=("match", "max", "random", "upbid"),
    deals=(TIE_DISCARDS,),
    small_params=({"cards": "4"}, {"players": "3", "cards": "4", "points_order": "descending"}),
)
