"""Learners: the batched implementation against a plain sequential reference, and learning
to known answers on toy problems (exact Q* from the model) and on divide-the-dollar."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fsmarena.games.arena import play_games
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.mdp import expected_return
from fsmarena.games.players import Player, RandomPlayer
from fsmarena.rl.evaluation import streams, table_on_model
from fsmarena.rl.learners import Episodes, MonteCarlo, TemporalDifference
from fsmarena.rl.planning import value_iteration
from fsmarena.rl.schedules import EpsilonSchedule
from fsmarena.rl.toy import ToyConfig, ToyGame
from fsmarena.rl.train import TrainConfig, train
from fsmarena.rl.training_run import make_learner

# ---- the sequential reference: one game at a time, scalar arithmetic, textbook order ----------


class SequentialReference(Player):
    """Textbook tabular control written plainly: Python lists, one game per call, updates in
    the order the algorithm states them.  Draws random numbers in the order the learners
    document (``random(1)`` when epsilon > 0, then one random action) so that, fed the same
    random stream, it must reproduce the batched learner with one game per batch exactly."""

    kind = "reference"

    def __init__(self, n_states, n_actions, algo, alpha=None, gamma=1.0, epsilon=0.0, explore_steps=0):
        super().__init__("reference")
        self.q = [[0.0] * n_actions for _ in range(n_states)]
        self.n = [[0] * n_actions for _ in range(n_states)]
        self.sums = [[0.0] * n_actions for _ in range(n_states)]
        self.A = n_actions
        self.algo, self.alpha, self.gamma = algo, alpha, gamma
        self.epsilon, self.explore_steps = epsilon, explore_steps

    def begin(self, game, n, members, rng):
        assert n == 1
        return {"episode": [], "pending": None, "decisions": 0}

    def _legal(self, obs):
        return list(range(self.A)) if obs.mask is None else [a for a in range(self.A) if obs.mask[0, a]]

    def _greedy(self, s, legal):
        best = legal[0]
        for a in legal:
            if self.q[s][a] > self.q[s][best]:
                best = a
        return best

    def _choose(self, s, legal, masked, memory, rng):
        action = self._greedy(s, legal)
        explore = memory["decisions"] < self.explore_steps
        if self.epsilon > 0:
            u = rng.random(1)[0]  # drawn for every decision, exploring or not
            explore = explore or u < self.epsilon
        if explore:
            if not masked:
                action = int(rng.integers(0, self.A, size=1)[0])
            else:
                action = legal[int(rng.random(1)[0] * len(legal))]
        memory["decisions"] += 1
        return action

    def _step(self, s, a, target):
        self.n[s][a] += 1
        step = self.alpha if self.alpha is not None else 1.0 / self.n[s][a]
        self.q[s][a] += step * (target - self.q[s][a])

    def act(self, obs, memory, rows, rng):
        s = int(obs.index[0])
        legal = self._legal(obs)
        pending = memory["pending"]
        if self.algo.startswith("mc"):
            a = self._choose(s, legal, obs.mask is not None, memory, rng)
            memory["episode"].append((s, a))
            return np.array([a])
        if self.algo == "sarsa":
            a = self._choose(s, legal, obs.mask is not None, memory, rng)
            if pending:
                self._step(*pending, self.gamma * self.q[s][a])
        else:
            if pending:
                if self.algo == "q-learning":
                    value = max(self.q[s][b] for b in legal)
                else:  # expected SARSA under the epsilon-greedy policy
                    greedy = self._greedy(s, legal)
                    value = 0.0
                    for b in legal:
                        p = self.epsilon / len(legal)
                        if b == greedy:
                            p += 1.0 - self.epsilon
                        value += p * self.q[s][b]
                self._step(*pending, self.gamma * value)
            a = self._choose(s, legal, obs.mask is not None, memory, rng)
        memory["pending"] = (s, a)
        return np.array([a])

    def finish(self, memory, outcome, seat):
        reward = float(outcome.rewards[0, seat])
        if not self.algo.startswith("mc"):
            if memory["pending"]:
                self._step(*memory["pending"], reward)
            return
        episode = memory["episode"]
        seen = set()
        for t, (s, a) in enumerate(episode):
            if self.algo == "mc-first-visit":
                if (s, a) in seen:
                    continue
                seen.add((s, a))
            ret = reward * self.gamma ** (len(episode) - 1 - t) if self.gamma != 1.0 else reward
            if self.algo == "mc-constant-alpha":
                self._step(s, a, ret)
            else:
                self.sums[s][a] += ret
                self.n[s][a] += 1
                self.q[s][a] = self.sums[s][a] / self.n[s][a]


def run_reference(game, config, seed, games, opponent=None):
    """The reference fed the training stream of ``train(seed)``: one game per batch, the
    learner's seat alternating (game g in seat g mod seats), epsilon from the schedule."""
    config = config.resolved()
    rng, _eval_seed = streams(seed)
    alpha = None if config.alpha == "1/n" else config.alpha
    ref = SequentialReference(
        game.n_states, game.n_actions, config.algo, alpha, config.gamma, config.epsilon, config.explore_steps
    )
    schedule = EpsilonSchedule(config.epsilon, config.epsilon_final, config.epsilon_schedule)
    for g in range(games):
        ref.epsilon = schedule.value(g, games)
        seats = [opponent] * game.n_seats
        seats[g % game.n_seats] = ref
        play_games(game, seats, 1, rng)
    return np.array(ref.q), np.array(ref.n)


ALGOS = ["mc", "mc-first-visit", "mc-constant-alpha", "sarsa", "q-learning", "expected-sarsa"]


@pytest.mark.parametrize("algo", ALGOS)
def test_one_game_per_batch_is_the_sequential_algorithm_on_a_masked_toy(algo):
    game = ToyGame(ToyConfig("masked-chain", gamma=0.9))
    alpha = 0.2 if algo in ("mc-constant-alpha", "sarsa") else None
    config = TrainConfig(
        algo,
        episodes=400,
        batch=1,
        epsilon=0.3,
        epsilon_final=0.05,
        epsilon_schedule="linear",
        alpha=alpha,
        gamma=0.9,
        explore_steps=1,
        eval_every=400,
        eval_games=10,
    )
    result = train(game, config, seed=5)
    q, n = run_reference(game, config, 5, 400)
    assert np.array_equal(result.q, q)  # bit for bit: same order, same arithmetic
    assert np.array_equal(result.counts, n)
    assert n.sum() > 400


@pytest.mark.parametrize("algo", ALGOS)
def test_one_game_per_batch_is_the_sequential_algorithm_on_dtd(algo):
    game = DivideTheDollar()
    alpha = 0.05 if algo in ("mc-constant-alpha", "q-learning") else None
    config = TrainConfig(algo, episodes=150, batch=1, epsilon=0.1, alpha=alpha, eval_every=150, eval_games=10)
    # the batched learner, one game per engine call (train() with batch 1 runs the compiled
    # sequential learners on dtd instead: tests/test_sequential.py)
    learner = make_learner(game, config.resolved(game))
    rng, _eval_seed = streams(11)
    schedule = config.resolved(game).schedule()
    for g in range(150):
        learner.epsilon = schedule.value(g, 150)
        seats = [RandomPlayer(), RandomPlayer()]
        seats[g % 2] = learner
        play_games(game, seats, 1, rng)
    q, n = run_reference(game, config, 11, 150, opponent=RandomPlayer())
    assert np.array_equal(learner.values.q, q)
    assert np.array_equal(learner.values.n, n)
    decisions = 150 * game.config.rounds  # one decision per round, every game
    assert n.sum() < decisions if algo == "mc-first-visit" else n.sum() == decisions


def test_the_seed_credit_defect_is_fixed_the_taken_action_is_credited():
    """Every decision is random (exploring starts over the whole game): every-visit counts
    must then be spread over all actions of a state, as taken, not piled on the greedy one."""
    game = DivideTheDollar()
    learner = MonteCarlo(game.n_states, game.n_actions, explore_steps=10**6)
    rng = np.random.default_rng(3)
    play_games(game, [learner, RandomPlayer()], 4000, rng)
    n = learner.values.n
    frequent = n.sum(axis=1) > 2000  # share sd < 0.011: 0.05 is > 4 sd
    assert frequent.sum() > 5
    shares = n[frequent] / n[frequent].sum(axis=1, keepdims=True)
    assert np.all(np.abs(shares - 1 / 3) < 0.05)


# ---- learning known answers ----------------------------------------------------------------


def optimal(game):
    plan = value_iteration(game.model())
    S = game.n_states
    return plan.policy[:S], plan.q[:S]


def test_monte_carlo_learns_the_bandit_means():
    """Every game opens with a random action (exploring start), so Q is the sample mean of
    each arm: within 0.1 (3 standard errors at 1000 pulls per arm) of [0, 0.4, 0.2]."""
    game = ToyGame(ToyConfig("bandit"))
    result = train(
        game, TrainConfig("mc", episodes=3000, batch=100, explore_steps=1, eval_every=3000, eval_games=100), seed=1
    )
    assert np.allclose(result.q[0], [0.0, 0.4, 0.2], atol=0.1)
    assert result.policy.table[0, 0] == 1
    assert toy_value(game, result) == pytest.approx(0.4)


def toy_value(game, result):
    """The exact value of a learned policy on the toy's model (toys do not declare
    ExactModel, so train() reports none)."""
    return expected_return(game.model(), table_on_model(game.model(), result.policy.table[0]))


@pytest.mark.parametrize(
    "algo, settings, games",
    [
        ("mc", dict(explore_steps=1), 20_000),
        ("mc-first-visit", dict(explore_steps=1), 20_000),
        ("mc-constant-alpha", dict(explore_steps=1, alpha=0.02), 20_000),
        ("sarsa", dict(epsilon=0.5, epsilon_final=0.0, epsilon_schedule="linear", alpha="1/n"), 20_000),
        ("q-learning", dict(epsilon=0.3, epsilon_schedule="constant", alpha="1/n"), 20_000),
        ("expected-sarsa", dict(epsilon=0.5, epsilon_final=0.0, epsilon_schedule="linear", alpha="1/n"), 20_000),
    ],
)
@pytest.mark.parametrize("problem", ["chain", "masked-chain"])
def test_learners_find_the_optimal_chain_policy(algo, settings, games, problem):
    """The toy chain's optimum is known exactly (by hand and by value iteration): every
    learner's greedy policy must be it, and the values of the optimal actions within 0.05."""
    game = ToyGame(ToyConfig(problem))
    best_policy, best_q = optimal(game)
    result = train(
        game, TrainConfig(algo, episodes=games, batch=50, eval_every=games, eval_games=100, **settings), seed=2
    )
    assert result.policy.table[0].tolist() == best_policy.tolist()
    states = np.arange(game.n_states)
    assert np.allclose(result.q[states, best_policy], best_q[states, best_policy], atol=0.05)
    assert toy_value(game, result) == pytest.approx(value_iteration(game.model()).value)
    if problem == "masked-chain":  # never tried an illegal action
        assert result.counts[[0, 3], 2].sum() == 0


@pytest.mark.parametrize("algo", ["mc", "q-learning", "sarsa"])
def test_learners_beat_random_at_divide_the_dollar(algo):
    """A policy that always plays the median wins about 40% against random; 60,000 training
    games must give a greedy policy clearly above random's 50% (evaluation: 20,000 games)."""
    game = DivideTheDollar()
    result = train(game, TrainConfig(algo, episodes=60_000, batch=5_000, eval_every=60_000, eval_games=20_000), seed=4)
    start, end = result.curve[0], result.curve[-1]
    assert start["games"] == 0 and end["games"] == 60_000
    assert end["win_ci_low"] > 0.52
    assert end["win"] > start["win"] + 0.1


def test_batches_are_reproducible_and_batch_size_matters_only_through_the_schedule():
    game = DivideTheDollar()
    config = TrainConfig("q-learning", episodes=4000, batch=1000, eval_every=2000, eval_games=500)
    a, b = train(game, config, seed=9), train(game, config, seed=9)
    assert np.array_equal(a.q, b.q) and a.curve == b.curve
    c = train(game, config, seed=10)
    assert not np.array_equal(a.q, c.q)


def test_learner_rejects_a_game_of_another_shape():
    learner = TemporalDifference(5, 3)
    with pytest.raises(Exception, match="table"):
        play_games(DivideTheDollar(), [learner, RandomPlayer()], 10, np.random.default_rng(0))


def test_make_learner_builds_the_right_variant():
    game = DivideTheDollar()
    mc = make_learner(game, TrainConfig("mc-first-visit", episodes=10).resolved())
    assert isinstance(mc, MonteCarlo) and mc.visits == "first-visit" and mc.alpha is None
    assert mc.explore_steps == 2 and mc.epsilon == 0.0
    td = make_learner(game, TrainConfig("expected-sarsa", episodes=10, alpha=0.3).resolved())
    assert isinstance(td, TemporalDifference) and td.method == "expected-sarsa" and td.alpha == 0.3


def test_the_benchmark_baseline_is_monte_carlo_es_on_the_plain_game():
    """fsmarena.games.dtd.bench_learning's plain loop (the speed baseline) credits every decision of every game, and
    its greedy policy is the argmax of its running means."""
    from fsmarena.games.dtd.bench_learning import plain_monte_carlo

    game = DivideTheDollar()
    learner = plain_monte_carlo(game.config, 300, seed=0)
    counts, sums = np.array(learner.counts), np.array(learner.sums)
    assert counts.sum() == 300 * game.config.rounds
    q = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    assert np.all(np.abs(q) <= 1)
    visited = counts.sum(axis=1) > 0
    assert np.array_equal(np.array(learner.policy)[visited], np.argmax(q, axis=1)[visited])


# ---- the batch's log in game order ------------------------------------------------------------


def _logged_in_game_order(episodes: Episodes) -> list[tuple[int, int, int, int, int, float]]:
    """The oracle: every logged decision as ``(game, position, state, action, segment,
    potential)``, sorted by game with Python's stable sort (log order within a game)."""
    flat = []
    for (rows, states, actions), (segments, potentials) in zip(episodes.log, episodes.marks):
        games = range(episodes.n) if rows is None else rows
        flat.extend(zip(games, states, actions, segments, potentials))
    flat.sort(key=lambda decision: decision[0])
    seen: dict[int, int] = {}
    out = []
    for game, state, action, segment, potential in flat:
        position = seen.get(int(game), 0)
        seen[int(game)] = position + 1
        out.append((int(game), position, int(state), int(action), int(segment), float(potential)))
    return out


def _episodes(n: int, calls: list) -> Episodes:
    """A batch of ``n`` games whose learner was asked on ``calls`` (rows, or None for every
    game), each decision with its own state, action, segment and potential."""
    episodes = Episodes(n)
    counter = 0
    for rows in calls:
        size = n if rows is None else len(rows)
        values = np.arange(counter, counter + size, dtype=np.int64)
        counter += size
        episodes.log.append((rows, values, values + 1000))
        episodes.marks.append((values % 3, values / 7.0))
    return episodes


@st.composite
def _logs(draw):
    """Logs as the driver makes them (every game at once, or block by block, in lock step) and
    any others: calls on arbitrary subsets of the games, in any order."""
    n = draw(st.integers(1, 9))
    shape = draw(st.sampled_from(["lock-step", "blocks", "any"]))
    calls: list[np.ndarray | None] = []
    if shape == "lock-step":
        calls = [None] * draw(st.integers(1, 4))
    elif shape == "blocks":
        cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=3)) if n > 1 else []))
        for first, last in zip([0, *cuts], [*cuts, n]):
            calls += [np.arange(first, last)] * draw(st.integers(1, 3))
    else:
        for _ in range(draw(st.integers(1, 6))):
            rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
            calls.append(np.array(sorted(rows) if draw(st.booleans()) else rows))
    return _episodes(n, calls)


@given(_logs())
@example(_episodes(3, [np.array([0, 1]), np.array([1, 2])]))  # runs that share a game
@example(_episodes(3, [np.array([1, 2]), np.array([0])]))  # a later run on an earlier game
def test_trajectories_and_segment_marks_are_the_log_in_game_order(episodes):
    """Game-major, decision order within a game, whatever the log's shape: the fast layout of
    lock-step runs and the sort of any other log both equal a plain stable sort."""
    games, position, states, actions = episodes.trajectories()
    segments, potentials = episodes.segment_marks()
    got = list(
        zip(
            games.tolist(), position.tolist(), states.tolist(), actions.tolist(), segments.tolist(), potentials.tolist()
        )
    )
    assert got == _logged_in_game_order(episodes)
