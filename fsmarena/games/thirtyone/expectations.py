"""What the contract suite must find for 31 (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Cards are 0..51: suit card // 13, rank card % 13 (12 = ace, worth 11; 9..11 = jack, queen,
#: king, worth 10; rank r <= 8 is worth r + 2).  Two players, one life, one round's deck: seat 0
#: is dealt deal[0:3], seat 1 deal[3:6], deal[6] is turned face up, the rest is the stock.
#:   seat 0: ace, king of suit 0 and the two of suit 1 (12, 11, 13): 21 in suit 0.
#:   seat 1: ten and nine of suit 2, two of suit 3 (34, 33, 39): 19.  Face up: queen of suit 0 (10).
#:   seat 0 draws the discard (action 1), then throws hand position 2 (action 6, discard_2): its
#:   hand in canonical order is ace, king, two, so it throws the two and holds ace, king, queen of
#:   one suit: 31.  A 31 ends the round at once and every other player loses a life: seat 1 has
#:   none left, so seat 0 wins with 1 life to 0.
BLITZ = ScriptedDeal(
    label="take the discard, throw the odd card, 31",
    params={"lives": "1", "max_rounds": "1"},
    deal=(12, 11, 13, 34, 33, 39, 10, *(c for c in range(52) if c not in (12, 11, 13, 34, 33, 39, 10))),
    actions=((0, 1), (0, 6)),
    scores=(1.0, 0.0),
    rewards=(1.0, -1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=False,
    chance=True,
    zero_sum=True,
    exact_model=False,
    solvable=False,
    kernel=True,
    builtins=("greedy", "greedy-knock", "random"),
    deals=(BLITZ,),
    small_params=({"players": "3", "lives": "1"}, {"lives": "2", "three_of_a_kind": "30.5"}),
)
