"""What the contract suite must find for divide-the-dollar (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Cards 1/4, 1/2, 3/4, two of each, hands of 2: a deck of 6 and 1 + (6 - 2*2) // 2 = 2 rounds.
#: The deal is the deck order by card type (0: 1/4, 1: 1/2, 2: 3/4); seat 0 draws the first two
#: cards, seat 1 the next two, then each draws one after round 0.
#:   hands: seat 0 {1/4, 3/4}, seat 1 {1/2, 1/2}.
#:   round 0, seat 0 leads large_max (2): its largest, 3/4; seat 1 follows median (1): the card at
#:     sorted position 2 // 2 = 1, 1/2.  3/4 + 1/2 > 1: nobody scores.  Draws: seat 0 gets 1/4,
#:     seat 1 gets 3/4; hands seat 0 {1/4, 1/4}, seat 1 {1/2, 3/4}.
#:   round 1, seat 1 leads small_spoil (0): its smallest, 1/2; seat 0 follows large_max (2): the
#:     largest card keeping the sum within a dollar, 1/4.  1/2 + 1/4 <= 1: seat 1 scores 1/2,
#:     seat 0 scores 1/4.  Last round: seat 1 wins 0.5 to 0.25.
SMALL_DECK = ScriptedDeal(
    label="two rounds, a spoiled round then a shared one",
    params={"counts": "2,2,2", "hand_size": "2"},
    deal=(2, 0, 1, 1, 0, 2),
    actions=((0, 2), (1, 1), (1, 0), (0, 2)),
    scores=(0.25, 0.5),
    rewards=(-1.0, 1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=False,
    chance=True,
    zero_sum=True,
    exact_model=False,
    solvable=False,
    kernel=True,
    builtins=("always-large", "always-median", "always-small", "random"),
    deals=(SMALL_DECK,),
    small_params=(
        {"counts": "2,2,2", "hand_size": "2"},
        {"cards": "0.125,0.5,0.875", "counts": "8,8,8", "hand_size": "3"},
    ),
)
