"""What the contract suite must find for the iterated prisoner's dilemma (:mod:`fsmarena.games.expectations`)."""

from fsmarena.games.expectations import Expectations, ScriptedDeal

#: Three turns, no noise: the deal is the length, 3.  Action 0 is C, 1 is D; both seats are
#: asked every turn, seat 0 first.
#:   turn 1: C / D: seat 0 gets S = 0, seat 1 gets T = 5;
#:   turn 2: D / D: P = 1 each;
#:   turn 3: C / C: R = 3 each.
#:   totals 4 and 9, per turn 4/3 and 3: seat 1 wins.
THREE_TURNS = ScriptedDeal(
    label="a sucker's payoff, a punishment, a reward",
    params={"turns": "3"},
    deal=(3,),
    actions=((0, 0), (1, 1), (0, 1), (1, 1), (0, 0), (1, 0)),
    scores=(4 / 3, 3.0),
    rewards=(-1.0, 1.0),
)

#: The same moves with the payoffs (R, S, T, P) = (4, -1, 7, 2): totals -1 + 2 + 4 = 5 and
#: 7 + 2 + 4 = 13, per turn 5/3 and 13/3.
OTHER_PAYOFFS = ScriptedDeal(
    label="the payoffs are parameters",
    params={"turns": "3", "reward": "4", "sucker": "-1", "temptation": "7", "punishment": "2"},
    deal=(3,),
    actions=((0, 0), (1, 1), (0, 1), (1, 1), (0, 0), (1, 0)),
    scores=(5 / 3, 13 / 3),
    rewards=(-1.0, 1.0),
)

EXPECTED = Expectations(
    seats=2,
    simultaneous=True,
    chance=False,
    zero_sum=True,  # the rewards (win / draw / loss) of two players; the payoffs are not zero-sum
    exact_model=False,
    solvable=False,
    kernel=True,
    builtins=(
        "alternator",
        "bully",
        "cooperator",
        "defector",
        "evolved-fsm-16",
        "evolved-fsm-16-noise-05",
        "evolved-fsm-4",
        "fortress3",
        "fortress4",
        "generous-tit-for-tat",
        "grim",
        "grudger",
        "random",
        "suspicious-tit-for-tat",
        "tf1",
        "tf2",
        "tf3",
        "tit-for-tat",
        "tit-for-two-tats",
        "win-stay-lose-shift",
    ),
    deals=(THREE_TURNS, OTHER_PAYOFFS),
    small_params=({"turns": "10", "memory": "2"}, {"turns": "20", "noise": "0.1", "prob_end": "0.1"}),
)
