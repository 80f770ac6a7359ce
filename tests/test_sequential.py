"""Sequential (textbook) learners: the compiled loop against a plain Python loop, bit for bit.

The plain loop below is written from the textbook (Sutton & Barto 5.3, 6.4, 6.5, 6.6) and
the order of random draws documented in :mod:`fsmarena.rl.sequential`; it plays the games through the
kernel's functions one call at a time and draws its own random numbers from the same stream
(numba's ``np.random``, read by a one-line compiled helper), so the learner logic is plain
Python and every number must come out identical.  Compiled opponents are checked against the
batched players on the same observations.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import BDASpec, BinaryDecisionAutomaton
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.base import Observation
from fsmarena.games.compiled_players import compile_player, make_opponent_act, self_play
from fsmarena.games.dtd.game import DivideTheDollar, DTDConfig
from fsmarena.games.kernel import kernel_of, params_of, seed
from fsmarena.games.players import FixedActionPlayer, Player, RandomPlayer, TablePolicy
from fsmarena.games.vautour.game import StupideVautour, VautourConfig
from fsmarena.jit import njit
from fsmarena.rl import registry
from fsmarena.rl import sequential as seq
from fsmarena.rl.segments import segment_returns
from fsmarena.rl.sequential_run import OWN_BUILD_FROM, compiled_update, loop_updates, shared_updates
from fsmarena.specialise import switch

GAME = DivideTheDollar(DTDConfig(counts=(6, 8, 6), hand_size=3))


@njit
def _plus(a, b):
    """A case of the switch test."""
    return a + b


@njit
def _minus(a, b):
    """Another case of the same shape."""
    return a - b


@njit
def _negated(a):
    """A case of another shape."""
    return -a


@njit
def _takes_which(which):
    """A case whose parameter the switch itself takes."""
    return which


@njit(cache=False)
def _through(chosen, which):
    return chosen(which, 1.0, 2.0)


def _call_switch(chosen, which):
    """The switch called from compiled code, as the training loop calls it (it is compiled into its callers)."""
    return _through(chosen, which)


@njit(cache=False)
def _uniform() -> float:
    """The next number of the compiled stream (the one the kernels and the learners draw from)."""
    return np.random.random()


def reference(
    game,
    algo,
    games,
    seed_value,
    explore,
    epsilon,
    alpha,
    gamma=1.0,
    opponent="random",
    table=None,
    seat=-1,
    refresh=0,
    eps_final=None,
    schedule="constant",
    segmented=False,
    batch=0,
):
    """Plain Python: the textbook algorithm, one game at a time, numpy's global stream.  With
    ``segmented``, segment rewards: Monte Carlo's returns come from the batched learners'
    :func:`fsmarena.rl.segments.segment_returns`, TD ends a transition at a segment's end.  With
    ``batch`` B, batched Monte Carlo: the learner acts by Q as it was at the start of its batch
    of B games, and epsilon is read there."""
    k = kernel_of(game)
    potentials = k.potential_table(game.config) if segmented else None
    p = params_of(game)
    S, A = game.n_states, game.n_actions
    q, n, sums = np.zeros((S, A)), np.zeros((S, A), dtype=np.int64), np.zeros((S, A))
    seen = np.zeros((S, A), dtype=bool)
    frozen = np.zeros(S, dtype=np.int64)
    seed(seed_value)
    mask = np.zeros(A, dtype=bool)
    final = epsilon if eps_final is None else eps_final

    def greedy(row_mask, x, values=None):
        values = q if values is None else values
        legal = [a for a in range(A) if row_mask[a]]
        return max(legal, key=lambda a: (values[x, a], -a)) if legal else 0

    def uniform(row_mask):
        legal = [a for a in range(A) if row_mask[a]]
        return legal[int(_uniform() * len(legal))]

    def update(x, a, target):
        n[x, a] += 1
        step = alpha if alpha >= 0 else 1.0 / n[x, a]
        q[x, a] += step * (target - q[x, a])

    halves, half_counts = np.zeros((2, S, A)), np.zeros((2, S, A))

    def double_update(x, a, target, next_state=None):
        """Double Q-learning (van Hasselt 2010): a coin picks the estimate; it bootstraps from
        the other estimate's value of its own greedy action (``target`` None)."""
        one = 0 if _uniform() < 0.5 else 1
        if target is None:
            target = gamma * halves[1 - one, next_state, greedy(mask, next_state, halves[one])]
        half_counts[one, x, a] += 1
        step = alpha if alpha >= 0 else 1.0 / half_counts[one, x, a]
        halves[one, x, a] += step * (target - halves[one, x, a])
        n[x, a] += 1
        q[x, a] = 0.5 * (halves[0, x, a] + halves[1, x, a])

    acting = q
    for g in range(games):
        if refresh and g % refresh == 0:
            frozen[:] = [greedy(seen[x], x) for x in range(S)]
        at = g
        if batch:
            at = g - g % batch
            if g == at:
                acting = q.copy()
        if schedule == "linear":
            eps = epsilon + (final - epsilon) * min(1.0, at / games)
        else:
            eps = epsilon
        learner = g % k.n_seats(p) if seat < 0 else seat
        deal = np.zeros(k.deal_size(p), dtype=np.int64)
        k.draw_deal(p, deal)
        s = np.zeros(k.state_size(p), dtype=np.int64)
        k.reset(p, s, deal)
        if opponent == "pool":  # one member per opponent seat, in seat order
            drawn = {other: table[int(_uniform() * len(table))] for other in range(k.n_seats(p)) if other != learner}
        trajectory, pending, marks = [], None, []
        pending_mark = (0, 0.0)
        while (who := k.to_move(p, s)) >= 0:
            k.legal(p, s, who, mask)
            if who != learner:
                x = k.observe_index(p, s, who)
                if opponent == "random":
                    action = uniform(mask)
                elif opponent == "self":
                    action = frozen[x]
                elif opponent == "pool":
                    action = drawn[who][x]
                else:
                    action = table[x]
                k.step(p, s, action)
                continue
            x = k.observe_index(p, s, who)
            seen[x] |= mask
            mark = (k.segment(p, s, who), k.potential(p, s, who, potentials)) if segmented else (0, 0.0)
            closed = bool(pending) and mark[0] != pending_mark[0]
            if pending and algo in ("q-learning", "expected-sarsa"):
                legal = [a for a in range(A) if mask[a]]
                if algo == "q-learning":
                    value = max(q[x, a] for a in legal)
                else:
                    best = greedy(mask, x)
                    value = 0.0
                    for a in legal:
                        prob = eps * 1.0 / len(legal) + (1.0 - eps if a == best else 0.0)
                        value += prob * q[x, a]
                update(*pending, mark[1] - pending_mark[1] if closed else gamma * value)
            if pending and algo == "double-q-learning":
                double_update(*pending, mark[1] - pending_mark[1] if closed else None, x)
            action = greedy(mask, x, acting)
            random_move = len(trajectory) < explore
            if eps > 0 and _uniform() < eps:
                random_move = True
            if random_move:
                action = uniform(mask)
            if pending and algo == "sarsa":
                update(*pending, mark[1] - pending_mark[1] if closed else gamma * q[x, action])
            pending, pending_mark = (x, action), mark
            trajectory.append((x, action))
            marks.append(mark)
            k.step(p, s, action)
        rewards = np.zeros(k.n_seats(p))
        # what the learner maximises: the ranking, or the score where the game declares it (ipd)
        (k.scores if game.objective == "score" else k.rewards)(p, s, rewards)
        reward = rewards[learner]
        if algo.startswith("mc"):
            returns = [
                reward * gamma ** float(len(trajectory) - 1 - t) if gamma != 1.0 else reward
                for t in range(len(trajectory))
            ]
            if segmented and trajectory:
                one_game = np.zeros(len(marks), dtype=np.int64)
                segments = np.array([m[0] for m in marks], dtype=np.int64)
                marked = np.array([m[1] for m in marks])
                returns = list(segment_returns(one_game, segments, marked, np.full(len(marks), reward), gamma)[0])
            for t, (x, a) in enumerate(trajectory):
                if algo == "mc-first-visit" and (x, a) in trajectory[:t]:
                    continue
                ret = returns[t]
                if algo == "mc-on-policy":  # the incremental mean, or a step size
                    update(x, a, ret)
                    continue
                n[x, a] += 1
                if alpha >= 0:
                    q[x, a] += alpha * (ret - q[x, a])
                else:
                    sums[x, a] += ret
                    q[x, a] = sums[x, a] / n[x, a]
        elif pending:
            (double_update if algo == "double-q-learning" else update)(
                *pending, reward - pending_mark[1] if segmented else reward
            )
    return q, n


def compiled(
    game,
    algo,
    games,
    seed_value,
    explore,
    epsilon,
    alpha,
    gamma=1.0,
    opponent=None,
    seat=-1,
    refresh=0,
    eps_final=None,
    schedule="constant",
    chunks=1,
    segmented=False,
    batch=0,
    shared=True,
):
    """The compiled loop; with ``batch`` B, batched Monte Carlo, one call per batch of B games.
    ``shared``: the build every learner shares (one compile per kernel for all these tests), else
    the build of the learner's update alone."""
    k = kernel_of(game)
    p = params_of(game)
    S, A = game.n_states, game.n_actions
    q, n, extra = np.zeros((S, A)), np.zeros((S, A), dtype=np.int64), np.zeros((4, S, A))
    seen, frozen = np.zeros((S, A), dtype=bool), np.zeros(S, dtype=np.int64)
    opp = self_play(game) if refresh else compile_player(opponent or RandomPlayer(), game)
    codes = [explore, seq.SCHEDULE_CODES[schedule], seat, refresh, int(segmented), 0]
    codes.append(1 if batch else 0)
    isets = np.array(codes, dtype=np.int64)
    potentials = k.potential_table(game.config) if segmented else np.zeros((1, 1))
    fsets = np.array([gamma, alpha, epsilon, epsilon if eps_final is None else eps_final, float(games), alpha])
    update = compiled_update(algo)
    updates = shared_updates() if shared else (update,)
    run = seq.make_runner(k, updates, updates.index(update))
    seed(seed_value)
    bounds = np.r_[np.arange(0, games, batch), games] if batch else np.linspace(0, games, chunks + 1).astype(int)
    for first, last in zip(bounds[:-1], bounds[1:]):
        run(
            p,
            q,
            n,
            extra,
            seen,
            frozen,
            first,
            last - first,
            isets,
            fsets,
            opp.ints,
            opp.floats,
            opp.tables,
            opp.int_start,
            opp.float_start,
            opp.table_start,
            potentials,
        )
    return q, n


CASES = [
    ("mc", dict(explore=2, epsilon=0.0, alpha=-1.0)),
    ("mc-first-visit", dict(explore=2, epsilon=0.05, alpha=-1.0, gamma=0.9)),
    ("mc-constant-alpha", dict(explore=1, epsilon=0.0, alpha=0.01)),
    ("sarsa", dict(explore=0, epsilon=0.2, alpha=0.05, eps_final=0.0, schedule="linear")),
    ("q-learning", dict(explore=0, epsilon=0.2, alpha=-1.0, gamma=0.95)),
    ("expected-sarsa", dict(explore=1, epsilon=0.3, alpha=0.1)),
    ("mc-on-policy", dict(explore=0, epsilon=0.1, alpha=-1.0, gamma=0.9)),
    ("double-q-learning", dict(explore=0, epsilon=0.2, alpha=-1.0, eps_final=0.0, schedule="linear", gamma=0.95)),
]


@pytest.mark.parametrize("algo,settings", CASES, ids=[c[0] for c in CASES])
def test_compiled_learner_equals_the_plain_loop_bit_for_bit(algo, settings):
    games = 300
    q_ref, n_ref = reference(GAME, algo, games, 11, **settings)
    q, n = compiled(GAME, algo, games, 11, **settings)
    assert n.sum() > 0
    assert np.array_equal(n, n_ref)
    assert np.array_equal(q, q_ref)  # bit for bit, not approximately


def _own_build_cases():
    """Each learner's own build against the shared one: every learner on divide-the-dollar, Monte
    Carlo ES and Q-learning on Vautour (each own build is a compile, 5 to 45 s).  SARSA on
    divide-the-dollar is in the default suite (the build tests/test_learner_warning.py's long run
    compiles anyway), the others in the slow set."""
    found = []
    vautour = StupideVautour(VautourConfig(players=3, cards=5, tie_rule="cancel", state="with-score"))
    for algo, settings in [*CASES, ("mc-seed", dict(explore=2, epsilon=0.0, alpha=-1.0))]:
        fast = algo == "sarsa"
        found.append(pytest.param(GAME, algo, settings, id=f"dtd-{algo}", marks=() if fast else pytest.mark.slow))
        if algo in ("mc", "q-learning"):
            found.append(pytest.param(vautour, algo, settings, id=f"vautour-{algo}", marks=pytest.mark.slow))
    return found


@pytest.mark.parametrize("game,algo,settings", _own_build_cases())
def test_a_learners_own_build_equals_the_shared_build_bit_for_bit(game, algo, settings):
    """The two builds of the loop (fsmarena.rl.sequential, "Builds") learn the same numbers; the
    shared one is checked against the plain loop by the other tests."""
    q_own, n_own = compiled(game, algo, 300, 13, **settings, shared=False)
    q_shared, n_shared = compiled(game, algo, 300, 13, **settings)
    assert n_own.sum() > 0
    assert np.array_equal(n_own, n_shared) and np.array_equal(q_own, q_shared)


def test_short_runs_share_a_build_and_long_runs_and_outside_learners_get_their_own(monkeypatch):
    shared = shared_updates()
    assert len(shared) == len(set(shared)) >= 8  # every update of the toolkit, each once
    q_learning = compiled_update("q-learning")
    assert loop_updates("q-learning", OWN_BUILD_FROM - 1) == (shared, shared.index(q_learning))
    assert loop_updates("q-learning", OWN_BUILD_FROM) == ((q_learning,), 0)
    assert loop_updates("mc-constant-alpha", 10)[0] == shared  # mc's update: one case for both learners
    outside = replace(registry.learner("q-learning"), name="outside", update="learner_plugin:plugin_q_learning")
    monkeypatch.setattr(registry, "LEARNERS", (*registry.LEARNERS, outside))
    assert shared_updates() == shared  # an outside learner's update is not built into the shared loop
    assert loop_updates("outside", 10) == ((compiled_update("outside"),), 0)


def test_a_switch_runs_the_case_it_is_told_and_refuses_cases_of_other_shapes():
    both = switch((_plus, _minus))
    assert [_call_switch(both, which) for which in (0, 1)] == [3.0, -1.0]
    assert _call_switch(switch((_plus,)), 5) == 3.0  # one case: which is ignored
    with pytest.raises(TypeError, match="same parameters"):
        switch((_plus, _negated))
    with pytest.raises(TypeError, match="at least one case"):
        switch(())
    with pytest.raises(TypeError, match="named which"):
        switch((_takes_which,))


@pytest.mark.parametrize("algo", ["mc", "mc-first-visit"])
def test_games_longer_than_the_trajectory_buffers_equal_the_plain_loop(algo):
    """88 decisions of the learner a game: Monte Carlo's buffers (64 decisions at first) grow
    mid-game, between two passes of the decision loop, and the games go on unchanged."""
    game = DivideTheDollar(DTDConfig(counts=(60, 60, 60), hand_size=3))
    settings = dict(explore=2, epsilon=0.05, alpha=-1.0, gamma=0.99)
    q_ref, n_ref = reference(game, algo, 40, 21, **settings)
    q, n = compiled(game, algo, 40, 21, **settings)
    assert np.array_equal(n, n_ref) and np.array_equal(q, q_ref)
    if algo == "mc":  # every visit counted: more decisions a game than the buffers first hold
        assert n.sum() == 40 * 88


@pytest.mark.parametrize("algo", ["mc", "expected-sarsa"])
def test_three_player_vautour_equals_the_plain_loop(algo):
    from fsmarena.games.vautour.game import StupideVautour, VautourConfig

    game = StupideVautour(VautourConfig(players=3, cards=5, tie_rule="cancel", state="with-score"))
    settings = dict(explore=1, epsilon=0.1, alpha=0.1 if algo != "mc" else -1.0)
    q_ref, n_ref = reference(game, algo, 300, 9, **settings)
    q, n = compiled(game, algo, 300, 9, **settings)
    assert n.sum() >= 300 * 5 and np.array_equal(n, n_ref) and np.array_equal(q, q_ref)


@pytest.mark.parametrize(
    "algo",
    [
        *(pytest.param(a, marks=pytest.mark.slow) for a in ("mc", "mc-first-visit", "sarsa", "expected-sarsa")),
        "q-learning",
    ],
)
def test_segment_rewards_on_31_equal_the_plain_loop(algo):
    """31's round-level reward: every round an episode of its own (rl.segments), compiled and plain."""
    from fsmarena.games.thirtyone.game import ThirtyOne, ThirtyOneConfig

    game = ThirtyOne(ThirtyOneConfig(players=2, lives=2))
    settings = dict(explore=1, epsilon=0.1, alpha=-1.0 if algo.startswith("mc") else 0.1)
    if not algo.startswith("mc"):
        settings["gamma"] = 0.9
    q_ref, n_ref = reference(game, algo, 150, 4, segmented=True, **settings)
    q, n = compiled(game, algo, 150, 4, segmented=True, **settings)
    assert n.sum() >= 150 and np.array_equal(n, n_ref) and np.array_equal(q, q_ref)
    q_game, _ = compiled(game, algo, 150, 4, **settings)
    assert not np.array_equal(q, q_game)  # the round-level reward is not the final one


def test_fixed_seat_table_opponent_and_self_play_equal_the_plain_loop():
    table = np.random.default_rng(0).integers(0, 3, GAME.n_states)
    settings = dict(explore=2, epsilon=0.1, alpha=0.05)
    q_ref, _ = reference(GAME, "q-learning", 200, 5, opponent="table", table=table, seat=1, **settings)
    q, _ = compiled(GAME, "q-learning", 200, 5, opponent=TablePolicy(table), seat=1, **settings)
    assert np.array_equal(q, q_ref)
    q_ref, _ = reference(GAME, "mc", 200, 6, opponent="self", refresh=50, explore=2, epsilon=0.0, alpha=-1.0)
    q, _ = compiled(GAME, "mc", 200, 6, refresh=50, explore=2, epsilon=0.0, alpha=-1.0)
    assert np.array_equal(q, q_ref)


def test_a_pool_of_champions_draws_one_member_per_game_like_the_plain_loop():
    from fsmarena.games.players import Mixture

    rng = np.random.default_rng(3)
    tables = [rng.integers(0, 3, GAME.n_states) for _ in range(3)]
    settings = dict(explore=2, epsilon=0.0, alpha=-1.0)
    q_ref, _ = reference(GAME, "mc", 300, 12, opponent="pool", table=tables, **settings)
    q, _ = compiled(GAME, "mc", 300, 12, opponent=Mixture([TablePolicy(t) for t in tables]), **settings)
    assert np.array_equal(q, q_ref)


def test_chunks_do_not_change_the_result_and_seeds_do():
    settings = dict(explore=2, epsilon=0.0, alpha=-1.0)
    whole, _ = compiled(GAME, "mc", 400, 3, **settings)
    split, _ = compiled(GAME, "mc", 400, 3, chunks=4, **settings)
    other, _ = compiled(GAME, "mc", 400, 4, **settings)
    assert np.array_equal(whole, split)
    assert not np.array_equal(whole, other)


BATCHED = [
    ("mc", dict(explore=2, epsilon=0.0, alpha=-1.0)),
    ("mc-first-visit", dict(explore=1, epsilon=0.3, eps_final=0.0, schedule="linear", alpha=-1.0, gamma=0.9)),
    ("mc-constant-alpha", dict(explore=1, epsilon=0.1, alpha=0.05)),
]


@pytest.mark.parametrize("algo,settings", BATCHED, ids=[c[0] for c in BATCHED])
def test_batched_monte_carlo_equals_the_plain_loop_bit_for_bit(algo, settings):
    """Batches in the compiled loop: the learner acts by Q as it was at its batch's start, with
    epsilon read there; the textbook loop (no batches) is another algorithm."""
    q_ref, n_ref = reference(GAME, algo, 600, 13, batch=150, **settings)
    q, n = compiled(GAME, algo, 600, 13, batch=150, **settings)
    assert n.sum() >= 600 and np.array_equal(n, n_ref) and np.array_equal(q, q_ref)
    textbook, _ = compiled(GAME, algo, 600, 13, **settings)
    assert not np.array_equal(q, textbook)


def test_batched_monte_carlo_in_self_play_equals_the_plain_loop():
    settings = dict(explore=2, epsilon=0.0, alpha=-1.0, refresh=200, batch=100)
    q_ref, _ = reference(GAME, "mc", 600, 6, opponent="self", **settings)
    q, _ = compiled(GAME, "mc", 600, 6, **settings)
    assert np.array_equal(q, q_ref)


# ---- compiled opponents ---------------------------------------------------------------------


def _players(game):
    rng = np.random.default_rng(1)
    fsm = TableFSM(
        rng.integers(0, 4, (4, game.n_states * 4)), rng.integers(0, 3, (4, game.n_states * 4)), inputs="index+opp_last"
    )
    fsm_small = TableFSM(rng.integers(0, 2, (2, 4)), rng.integers(0, 3, (2, 4)), inputs="opp_last")
    genes = BDASpec(game, 8).random(rng, 3)
    genes[2, :, 2] = rng.choice([200, 250, 300, 500, 700, 750], 8)  # thresholds on card values: the edges
    bdas = [BinaryDecisionAutomaton(g) for g in genes]
    return [
        FixedActionPlayer(2),
        TablePolicy(rng.integers(0, 3, game.n_states)),
        fsm,
        fsm_small,
        *bdas,
    ]


def _observation(k, p, s, seat, game):
    index = k.observe_index(p, s, seat)
    feats = np.zeros(max(1, k.n_features(p)))
    k.features(p, s, seat, feats)
    mask = np.zeros(k.n_actions(p), dtype=bool)
    k.legal(p, s, seat, mask)
    codes = {name: np.array([k.encoding(p, s, seat, w)]) for w, name in enumerate(game.encodings)}
    return Observation(
        1,
        game.n_actions,
        index=np.array([index]),
        features=feats[None, : len(game.feature_names)],
        mask=None if mask.all() else mask[None],
        **codes,
    )


@pytest.mark.parametrize("number", range(7))
def test_compiled_opponent_plays_like_the_batched_player(number):
    game = DivideTheDollar()
    player = _players(game)[number]
    k, p = kernel_of(game), params_of(game)
    act = make_opponent_act(k)
    opp = compile_player(player, game)
    rng = np.random.default_rng(0)
    seed(2)
    for _ in range(5):
        deal = np.zeros(k.deal_size(p), dtype=np.int64)
        k.draw_deal(p, deal)
        s = np.zeros(k.state_size(p), dtype=np.int64)
        k.reset(p, s, deal)
        memory = np.zeros(2, dtype=np.int64)
        batched = player.begin(game, 1, None, rng)
        mask, feats = np.zeros(3, dtype=bool), np.zeros(6)
        while (seat := k.to_move(p, s)) >= 0:
            expected = int(player.act(_observation(k, p, s, seat, game), batched, None, rng)[0]) if seat == 0 else None
            if seat == 0:
                got = act(
                    p,
                    s,
                    0,
                    opp.ints,
                    opp.floats,
                    opp.tables,
                    opp.int_start[0],
                    opp.float_start[0],
                    opp.table_start[0],
                    memory,
                    mask,
                    feats,
                    np.zeros(1, dtype=np.int64),
                )
                assert got == expected
                k.step(p, s, got)
            else:
                k.step(p, s, k.builtin_action(p, s, seat, 0, np.zeros(0)))


@pytest.mark.parametrize("action_set", ["bids", "abstract", "both"])
def test_compiled_vautour_builtins_play_like_the_python_ones(action_set):
    """The builtins without random draws, in every action set, two with parameters given: the
    compiled interpreter (code and arguments from the packed arrays) plays what the player asked
    in Python on the driver's observation of the same state plays (code and arguments resolved
    by the player)."""
    from fsmarena.games.builtin_player import BuiltinPlayer
    from fsmarena.games.driver import driver_for
    from fsmarena.games.vautour.game import StupideVautour, VautourConfig

    game = StupideVautour(VautourConfig(players=2, cards=8, action_set=action_set, tie_rule="cancel"))
    k, p = kernel_of(game), params_of(game)
    act = make_opponent_act(k)
    rng = np.random.default_rng(0)
    seed(4)
    players = [game.builtin_players()[name]() for name in ("max", "min", "negative-adverse", "prize-rank")]
    players += [
        BuiltinPlayer("negative-adverse", {"p": 1.0}),
        BuiltinPlayer("get-rid-of-bad-cards", {"p_low": 1.0, "small": 1.0}),  # every prize is small
    ]
    for player in players:
        opp = compile_player(player, game)
        for _ in range(4):
            deal = np.zeros(k.deal_size(p), dtype=np.int64)
            k.draw_deal(p, deal)
            s = np.zeros(k.state_size(p), dtype=np.int64)
            k.reset(p, s, deal)
            memory, mask, feats = np.zeros(2, dtype=np.int64), np.zeros(game.n_actions, dtype=bool), np.zeros(9)
            batched = player.begin(game, 1, None, rng)
            while (seat := k.to_move(p, s)) >= 0:
                obs = driver_for(game).observation(s[None].copy(), np.zeros(1, dtype=np.int64), seat)
                expected = int(player.act(obs, batched, None, rng)[0])
                got = act(
                    p,
                    s,
                    seat,
                    opp.ints,
                    opp.floats,
                    opp.tables,
                    opp.int_start[0],
                    opp.float_start[0],
                    opp.table_start[0],
                    memory,
                    mask,
                    feats,
                    np.zeros(1, dtype=np.int64),
                )
                assert got == expected, (player.label, seat)
                k.step(p, s, got)


def test_a_fixed_action_out_of_range_is_refused_before_it_is_compiled():
    """A compiled seat checks its choice with the kernel's ``is_legal`` rule, which may take any
    action of the game for legal: an action the game does not have is refused when compiled."""
    with pytest.raises(FsmarenaError, match="plays action 3: dtd has 0 to 2"):
        compile_player(FixedActionPlayer(3), GAME)
    assert compile_player(FixedActionPlayer(2), GAME).ints[1] == 2


def test_a_mixture_is_a_pool_and_uncompilable_players_are_named():
    from fsmarena.games.players import Mixture

    game = DivideTheDollar()
    pool = compile_player(Mixture(_players(game)[:3]), game)
    assert pool.n_members == 3
    assert list(pool.ints[pool.int_start]) == [compile_player(m, game).ints[0] for m in _players(game)[:3]]

    class Agent(Player):
        kind = "neural-agent"

        def act(self, obs, memory, rows, rng):
            return np.zeros(obs.n, dtype=np.int64)

    with pytest.raises(FsmarenaError, match="'mystery' .*cannot be compiled"):
        compile_player(Agent("mystery"), game)
    with pytest.raises(FsmarenaError, match="stack"):
        compile_player(TablePolicy(np.zeros((2, game.n_states), dtype=np.int64)), game)


# ---- training runs (rl.train with batch = 1) ------------------------------------------------


def test_the_sequential_algorithm_is_the_default_and_a_batch_is_asked_for():
    from fsmarena.rl.train import TrainConfig

    assert TrainConfig("mc", episodes=10).resolved(GAME).batch == 1
    assert TrainConfig("q-learning", episodes=10, batch=500).resolved(GAME).batch == 500


def test_train_equals_the_plain_loop_and_same_seed_same_result_for_any_jobs():
    from fsmarena.rl.sequential_run import chunk_seed
    from fsmarena.rl.train import TrainConfig, train

    config = TrainConfig("mc", episodes=600, eval_every=600, eval_games=50_000)
    one = train(GAME, config, seed=8, jobs=1)
    two = train(GAME, config, seed=8, jobs=2)
    assert np.array_equal(one.q, two.q) and one.curve == two.curve
    q_ref, n_ref = reference(GAME, "mc", 600, chunk_seed(8, 0), explore=2, epsilon=0.0, alpha=-1.0)
    assert np.array_equal(one.q, q_ref) and np.array_equal(one.counts, n_ref)


@pytest.mark.parametrize("algo", ["sarsa", "double-q-learning"])
def test_resume_after_an_interruption_gives_the_uninterrupted_result(tmp_path, monkeypatch, algo):
    """Double Q-learning's own tables (its two estimates, ``extra``) are checkpointed too."""
    import fsmarena.rl.sequential as sequential_module
    from fsmarena.rl.checkpoint import FILENAME, load_checkpoint
    from fsmarena.rl.train import TrainConfig, train

    config = TrainConfig(
        algo,
        episodes=3000,
        eval_every=1000,
        eval_games=200,
        epsilon=0.3,
        epsilon_schedule="linear",
        self_play_every=700,
    )
    whole = train(GAME, config, seed=2, out=tmp_path / "whole")
    real = sequential_module.make_runner
    calls = {"n": 0}

    def interrupted(kernel, updates, which):
        runner = real(kernel, updates, which)

        def run(*args):
            calls["n"] += 1
            if calls["n"] == 4:  # chunks end at 700, 1000, 1400, 2000...: stopped after game 1400
                raise KeyboardInterrupt
            return runner(*args)

        return run

    monkeypatch.setattr(sequential_module, "make_runner", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(GAME, config, seed=2, out=tmp_path / "cut", checkpoint_seconds=0.0)
    meta, tables = load_checkpoint(tmp_path / "cut" / FILENAME)
    assert meta["done"] == 1400 and (algo != "double-q-learning" or tables["extra"].shape == (4, *whole.q.shape))
    monkeypatch.setattr(sequential_module, "make_runner", real)
    resumed = train(GAME, config, seed=2, out=tmp_path / "cut", resume=True)
    assert np.array_equal(whole.q, resumed.q) and np.array_equal(whole.counts, resumed.counts)
    assert [r["win"] for r in whole.curve] == [r["win"] for r in resumed.curve]
    assert (tmp_path / "whole" / "curve.csv").read_text() == (tmp_path / "cut" / "curve.csv").read_text()


def test_batched_monte_carlo_resumes_exactly_and_refuses_a_python_path_checkpoint(tmp_path, monkeypatch):
    import fsmarena.rl.sequential_run as sequential_run
    from fsmarena.rl.checkpoint import FILENAME, load_checkpoint, save_checkpoint
    from fsmarena.rl.train import TrainConfig, train

    config = TrainConfig("mc", episodes=3000, batch=400, eval_every=1000, eval_games=200, self_play_every=700)
    whole = train(GAME, config, seed=2, out=tmp_path / "whole")
    real, calls = sequential_run.seed_compiled, {"n": 0}

    def interrupted(value):
        calls["n"] += 1
        if calls["n"] == 5:  # batches end at 400, 700, 1000, 1400, ...: stopped after game 1400
            raise KeyboardInterrupt
        real(value)

    monkeypatch.setattr(sequential_run, "seed_compiled", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(GAME, config, seed=2, out=tmp_path / "cut", checkpoint_seconds=0.0)
    meta, tables = load_checkpoint(tmp_path / "cut" / FILENAME)
    assert meta["done"] == 1400
    monkeypatch.setattr(sequential_run, "seed_compiled", real)
    resumed = train(GAME, config, seed=2, out=tmp_path / "cut", resume=True)
    assert np.array_equal(whole.q, resumed.q) and np.array_equal(whole.counts, resumed.counts)
    assert (tmp_path / "whole" / "curve.csv").read_text() == (tmp_path / "cut" / "curve.csv").read_text()
    # a checkpoint of the Python path (no "loop" in its settings) is another random stream
    del meta["fingerprint"]["loop"]
    save_checkpoint(tmp_path / "cut" / FILENAME, meta, tables)
    with pytest.raises(FsmarenaError, match="different settings: loop"):
        train(GAME, config, seed=2, out=tmp_path / "cut", resume=True)


def test_batched_monte_carlo_plays_in_the_compiled_loop_when_it_can():
    from fsmarena.rl.sequential_run import compiled_batches
    from fsmarena.rl.toy import ToyConfig, ToyGame
    from fsmarena.rl.train import TrainConfig

    def batched(algo, game=GAME):
        return TrainConfig(algo, episodes=10, batch=50).resolved(game)

    class Agent(Player):
        kind = "neural-agent"

        def act(self, obs, memory, rows, rng):
            return np.zeros(obs.n, dtype=np.int64)

    assert compiled_batches(GAME, batched("mc"), None)
    assert compiled_batches(GAME, batched("mc-first-visit"), TablePolicy(np.zeros(GAME.n_states, dtype=np.int64)))
    assert not compiled_batches(GAME, batched("mc"), Agent("net"))  # the opponent decides in Python
    assert not compiled_batches(GAME, batched("q-learning"), None)  # step-major TD: the Python path
    assert not compiled_batches(GAME, TrainConfig("mc", episodes=10, batch=1).resolved(GAME), None)  # textbook
    toy = ToyGame(ToyConfig("chain"))
    assert not compiled_batches(toy, batched("mc", toy), None)  # no kernel


def test_batched_monte_carlo_compiled_and_in_python_estimate_the_same_values():
    """With every decision random (epsilon 1), batched Monte Carlo's Q(s, a) is the mean final
    reward of random play after (s, a), whichever path plays it: the two paths' estimates, from
    different random streams, agree entry by entry within 4.5 standard errors (a reward in
    [-1, 1] has variance at most 1).  The same check tells a discount of 0.9 on one side."""
    from fsmarena.rl.train import TrainConfig, train
    from fsmarena.rl.training_run import TrainingRun, run_batched

    def estimates(compiled_loop, gamma=1.0):
        config = TrainConfig(
            "mc", episodes=30_000, batch=5_000, epsilon=1.0, epsilon_schedule="constant", explore_steps=0, gamma=gamma
        )
        config = replace(config, eval_every=30_000, eval_games=10)
        if compiled_loop:
            return train(GAME, config, seed=3)
        run = TrainingRun(GAME, config.resolved(GAME), 4, RandomPlayer(), [RandomPlayer()], 1, None, "python")
        return run_batched(run, RandomPlayer(), False, 60.0)

    def largest_z(one, other):
        both = (one.counts >= 400) & (other.counts >= 400)
        assert both.sum() >= 40
        error = np.sqrt(1.0 / one.counts[both] + 1.0 / other.counts[both])
        return np.max(np.abs(one.q[both] - other.q[both]) / error)

    compiled_run, python_run = estimates(True), estimates(False)
    assert not np.array_equal(compiled_run.q, python_run.q)
    assert largest_z(compiled_run, python_run) < 4.5
    assert largest_z(estimates(True, gamma=0.9), python_run) > 4.5


def test_an_opponent_that_cannot_be_compiled_is_refused_before_anything_is_written(tmp_path):
    from fsmarena.rl.train import TrainConfig, train

    class Agent(Player):
        kind = "neural-agent"

        def act(self, obs, memory, rows, rng):
            return np.zeros(obs.n, dtype=np.int64)

    with pytest.raises(FsmarenaError, match="'net' .*cannot be compiled.*--batch K"):
        train(GAME, TrainConfig("mc", episodes=100), opponent=Agent("net"), out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    result = train(GAME, TrainConfig("mc", episodes=100, batch=50, eval_games=50), opponent=Agent("net"))
    assert result.games == 100


def test_cli_batch_zero_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path):
    from cli_helpers import run_cli

    code, _out, err = run_cli(
        capsys, "train", "dtd", "--algo", "mc", "--episodes", 10, "--batch", 0, "--out", tmp_path / "a"
    )
    assert code == 2 and err.startswith("fsmarena: error:") and err.count("\n") == 1
    assert not (tmp_path / "a").exists()


def test_a_game_without_kernel_plays_batch_1_with_the_batched_learners():
    from fsmarena.rl.sequential_run import sequential
    from fsmarena.rl.toy import ToyConfig, ToyGame
    from fsmarena.rl.train import TrainConfig

    game = ToyGame(ToyConfig("chain"))
    assert TrainConfig("mc", episodes=10).resolved(game).batch == 10_000
    assert not sequential(game, TrainConfig("mc", episodes=10, batch=1).resolved(game))
    assert sequential(GAME, TrainConfig("mc", episodes=10).resolved(GAME))


def _kernel_games():
    import importlib

    from fsmarena.games.registry import entries, resolve

    found = []
    for e in entries():
        if e.kernel:
            module = importlib.import_module(e.kernel)
            config = module.test_configs()[0] if hasattr(module, "test_configs") else None
            found.append(pytest.param(resolve(e.game, "game")(config), id=e.name))
    return found


@pytest.mark.parametrize("game", _kernel_games())
def test_every_kernel_game_trains_like_the_plain_loop(game):
    """The generic learner on every game that declares a kernel (the first test configuration)."""
    settings = dict(explore=1, epsilon=0.2, alpha=0.1)
    q_ref, n_ref = reference(game, "q-learning", 100, 21, **settings)
    q, n = compiled(game, "q-learning", 100, 21, **settings)
    assert n.sum() >= 100 and np.array_equal(n, n_ref) and np.array_equal(q, q_ref)


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["expected-sarsa", "double-q-learning", "mc-on-policy"])
@pytest.mark.parametrize("game", _kernel_games())
def test_the_learners_a_user_tries_first_train_on_every_game_like_the_plain_loop(game, algo):
    """Expected SARSA, double Q-learning and on-policy Monte Carlo on every game with a kernel
    (the first test configuration): each (kernel, update) loop equals the plain loop."""
    settings = dict(explore=0, epsilon=0.2, alpha=-1.0 if algo == "mc-on-policy" else 0.1, gamma=0.95)
    q_ref, n_ref = reference(game, algo, 100, 22, **settings)
    q, n = compiled(game, algo, 100, 22, **settings)
    assert n.sum() >= 100 and np.array_equal(n, n_ref) and np.array_equal(q, q_ref)
