"""Exact equilibria and exploitability of two-player Stupide Vautour (games.vautour.solver,
games.vautour.exploit): checked against independent computations.

Oracles: a brute force that plays every complete game through the kernel and solves
every matrix game of the full history tree by support enumeration (no LP, no canonical
states, no memo); Ross's theorem for Goofspiel (matching the upcard is the best response to a
random opponent); a plain recursion for best responses to simple deterministic rules;
Monte Carlo through the kernel (the driver).
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.bidding import hand_at, pending_at, prize_slot
from fsmarena.games.driver import driver_for
from fsmarena.games.kernel import seed as kernel_seed
from fsmarena.games.players import FixedActionPlayer, load_player, resolve_player, save_player
from fsmarena.games.vautour.exploit import BestResponsePlayer, best_response, exploitability, solver_for
from fsmarena.games.vautour.game import HIGHEST, LOWEST, N_ABSTRACT, RANDOM
from fsmarena.games.vautour.solver import VautourSolver, solve_matrix


def vautour(cards: int, tie_rule: str = "seed", prizes=None, action_set: str = "bids"):
    params = {"cards": str(cards), "tie_rule": tie_rule, "action_set": action_set}
    if prizes is not None:
        params["prizes"] = ",".join(str(p) for p in prizes)
    return get_game("vautour", params)


# ---- an independent brute force ---------------------------------------------------------------


def support_enumeration(matrix: np.ndarray) -> float:
    """Value of a zero-sum matrix game by trying every pair of equal-size supports."""
    m, n = matrix.shape
    for k in range(1, min(m, n) + 1):
        for rows in itertools.combinations(range(m), k):
            for cols in itertools.combinations(range(n), k):
                sub = matrix[np.ix_(rows, cols)]
                system = np.zeros((k + 1, k + 1))
                system[:k, :k], system[:k, k], system[k, :k] = sub.T, -1.0, 1.0
                rhs = np.zeros(k + 1)
                rhs[k] = 1.0
                try:
                    x = np.linalg.solve(system, rhs)
                    system[:k, :k] = sub
                    y = np.linalg.solve(system, rhs)
                except np.linalg.LinAlgError:
                    continue
                if x[:k].min() < -1e-12 or y[:k].min() < -1e-12:
                    continue
                full_x, full_y = np.zeros(m), np.zeros(n)
                full_x[list(rows)], full_y[list(cols)] = x[:k], y[:k]
                value = x[k]
                if (full_x @ matrix).min() >= value - 1e-9 and (matrix @ full_y).max() <= value + 1e-9:
                    return float(value)
    raise AssertionError("no equilibrium found")  # pragma: no cover


def kernel_outcomes(game, reward: str) -> dict[tuple, float]:
    """Seat 0's result of every complete game (prize order, both bid sequences), played by
    the kernel through the driver in one batch."""
    cards = game.config.cards
    perms = list(itertools.permutations(range(cards)))
    combos = list(itertools.product(perms, perms, perms))
    order = np.array([list(prizes) for prizes, _, _ in combos])  # the kernel's deals: prize positions
    bids = [np.array([[c + 1 for c in combo[seat + 1]] for combo in combos]) for seat in range(2)]

    def decide(seat, obs, rows):
        return bids[seat][np.arange(obs.n), obs.step] + (N_ABSTRACT - 1)  # every game, in lock-step

    outcome = game.play(len(combos), np.random.default_rng(0), decide, deals=order)
    result = outcome.rewards[:, 0] if reward == "wdl" else outcome.scores[:, 0] - outcome.scores[:, 1]
    return {combo: float(r) for combo, r in zip(combos, result)}


def brute_force(game, reward: str):
    """Values of every history prefix: chance over the next prize, matrix games solved by
    support enumeration, leaves from the kernel."""
    cards = game.config.cards
    leaves = kernel_outcomes(game, reward)

    def value(prizes: tuple, mine: tuple, theirs: tuple) -> float:
        if len(prizes) == cards:
            return leaves[(prizes, tuple(c - 1 for c in mine), tuple(c - 1 for c in theirs))]
        return float(np.mean([decision(prizes + (p,), mine, theirs) for p in range(cards) if p not in prizes]))

    def decision(prizes: tuple, mine: tuple, theirs: tuple) -> float:
        return support_enumeration(matrix(prizes, mine, theirs))

    def matrix(prizes: tuple, mine: tuple, theirs: tuple) -> np.ndarray:
        a_left = [c for c in range(1, cards + 1) if c not in mine]
        b_left = [c for c in range(1, cards + 1) if c not in theirs]
        return np.array([[value(prizes, mine + (a,), theirs + (b,)) for b in b_left] for a in a_left])

    return value, matrix


@pytest.mark.parametrize("cards", [2, 3, pytest.param(4, marks=pytest.mark.slow)])
@pytest.mark.parametrize("tie_rule", ["seed", "cancel"])
@pytest.mark.parametrize("reward", ["wdl", "points"])
def test_backward_induction_agrees_with_the_brute_force(cards, tie_rule, reward):
    if cards == 4 and reward == "points" and tie_rule == "seed":
        prizes = (-2, 1, 3, 4)  # an uneven deck as well as the default ones
    else:
        prizes = None
    game = vautour(cards, tie_rule, prizes)
    solver = VautourSolver(game.config, reward=reward)
    value, matrix = brute_force(game, reward)
    assert solver.solve_all() == pytest.approx(value((), (), ()), abs=1e-9)
    full = (1 << cards) - 1
    for p in range(cards):
        # every entry of the first matrix game is the value of an uneven position
        expected = matrix((p,), (), ())
        got = solver.payoffs(full, full, full ^ (1 << p), p, 0, 0)
        np.testing.assert_allclose(got, expected, atol=1e-9)
        if cards > 2:
            # one level deeper: own 1 and the opponent's 2 bid on the first prize, every next prize
            for q in range(cards):
                if q != p:
                    stake = sorted(game.config.prizes)[p]
                    lead = stake if (1 > 2) == (stake > 0) else -stake
                    got = solver.payoffs(0b1110 & full, 0b1101 & full, full ^ (1 << p) ^ (1 << q), q, 0, lead)
                    np.testing.assert_allclose(got, matrix((p, q), (1,), (2,)), atol=1e-9)


def test_matrix_solver_agrees_with_support_enumeration_on_random_games():
    rng = np.random.default_rng(5)
    for _ in range(60):
        m, n = rng.integers(1, 5, size=2)
        matrix = rng.integers(-3, 4, size=(m, n)).astype(float)
        value, x, y = solve_matrix(matrix)
        assert value == pytest.approx(support_enumeration(matrix), abs=1e-9)
        assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
        assert (x @ matrix).min() >= value - 1e-9 and (matrix @ y).max() <= value + 1e-9


# ---- Goofspiel ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_goofspiel_best_response_to_random_matches_the_upcard(cards):
    """Goofspiel is the special case of positive prizes 1..n whose ties discard the prize.
    Ross (1971) showed that against a uniformly random opponent, bidding the upcard's value
    maximises the expected point difference; the exact best response must win exactly what
    matching wins, which a plain enumeration of every prize order and random bid sequence
    through the kernel gives."""
    game = vautour(cards, "seed", range(1, cards + 1))
    solver = solver_for(game, "points")
    response = best_response(game, resolve_player("random", game), solver)
    perms = list(itertools.permutations(range(1, cards + 1)))
    combos = list(itertools.product(perms, perms))
    order = np.array([prizes for prizes, _ in combos]) - 1  # the kernel's deals: positions of prizes 1..n
    theirs = np.array([bids for _, bids in combos])

    def decide(seat, obs, rows):
        mine = np.asarray(obs.prize_value) if seat == 0 else theirs[np.arange(obs.n), obs.step]
        return mine + (N_ABSTRACT - 1)

    outcome = game.play(len(combos), np.random.default_rng(0), decide, deals=order)
    matching = float(np.mean(outcome.scores[:, 0] - outcome.scores[:, 1]))
    assert response.value == pytest.approx(matching, abs=1e-9)
    # the equilibrium's value is the game's: 0 (symmetric game)
    assert solver.value() == pytest.approx(0.0, abs=1e-12)


# ---- the equilibrium -------------------------------------------------------------------------------


@pytest.mark.parametrize("cards", [2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
@pytest.mark.parametrize("tie_rule", ["seed", "cancel"])
@pytest.mark.parametrize("reward", ["wdl", "points"])
def test_the_equilibrium_is_unexploitable(cards, tie_rule, reward):
    game = vautour(cards, tie_rule)
    value, player = game.solve_equilibrium(reward)
    result = exploitability(game, player, reward)
    assert abs(result["exploitability"]) < 1e-9
    assert result["equilibrium_value"] == pytest.approx(value, abs=1e-9)


def test_the_equilibrium_player_survives_its_file(tmp_path):
    game = vautour(4, "cancel")
    _, player = game.solve_equilibrium("wdl")
    save_player(player, game, tmp_path / "eq.json")
    again = load_player(tmp_path / "eq.json", game)
    assert exploitability(game, again)["exploitability"] < 1e-9
    a = play_games(game, [player, resolve_player("max", game)], 300, np.random.default_rng(2))
    b = play_games(game, [again, resolve_player("max", game)], 300, np.random.default_rng(2))
    assert np.array_equal(a.rewards, b.rewards)
    data = json.loads((tmp_path / "eq.json").read_text())
    data["rows"][0] = [0.5] * len(data["rows"][0])  # probabilities outside the hand
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(FsmarenaError, match="probabilities"):
        load_player(tmp_path / "bad.json", game)
    with pytest.raises(FsmarenaError, match="solved for"):
        load_player(tmp_path / "eq.json", vautour(4, "seed"))


# ---- best responses --------------------------------------------------------------------------------


def plain_best_response(game, their_card, reward: str = "wdl") -> float:
    """Seat 0's best-response value against a deterministic rule ``their_card(hand, turn)``,
    by a plain recursion over the rules."""
    cards, cancel = game.config.cards, game.config.tie_rule == "cancel"
    deck = sorted(game.config.prizes)

    def held(hand):
        return [c for c in range(1, cards + 1) if hand >> (c - 1) & 1]

    def rec(own, other, left, pot, lead, turn):
        if not left:
            return float(np.sign(lead)) if reward == "wdl" else float(lead)
        total = 0.0
        prizes = [p for p in range(cards) if left >> p & 1]
        for p in prizes:
            stake = pot + deck[p] if cancel else deck[p]
            b = their_card(held(other), turn)
            best = -math.inf
            for a in held(own):
                if a == b:
                    nxt = (stake if cancel else 0, lead)
                else:
                    high_wins = stake > 0 or (stake == 0 and deck[p] > 0)
                    nxt = (0, lead + (stake if (a > b) == high_wins else -stake))
                rest = rec(own ^ 1 << (a - 1), other ^ 1 << (b - 1), left ^ 1 << p, nxt[0], nxt[1], turn + 1)
                best = max(best, rest)
            total += best
        return total / len(prizes)

    full = (1 << cards) - 1
    return rec(full, full, full, 0, 0, 0)


@pytest.mark.parametrize("tie_rule", ["seed", "cancel"])
def test_best_response_to_deterministic_players_matches_a_plain_enumeration(tie_rule):
    game = vautour(4, tie_rule, action_set="both")
    solver = solver_for(game, "wdl")
    highest = plain_best_response(game, lambda hand, turn: hand[-1])
    lowest = plain_best_response(game, lambda hand, turn: hand[0])
    alternating = plain_best_response(game, lambda hand, turn: hand[-1] if turn % 2 == 0 else hand[0])
    assert best_response(game, resolve_player("max", game), solver).value == pytest.approx(highest, abs=1e-12)
    assert best_response(game, resolve_player("min", game), solver).value == pytest.approx(lowest, abs=1e-12)
    fixed = FixedActionPlayer(HIGHEST, "highest")
    assert best_response(game, fixed, solver).value == pytest.approx(highest, abs=1e-12)
    # a machine with memory (replayed history by history): highest, lowest, highest, ...
    inputs = game.encodings["prize"]
    fsm = TableFSM(
        np.array([[1] * inputs, [0] * inputs]), np.array([[HIGHEST] * inputs, [LOWEST] * inputs]), inputs="prize"
    )
    result = best_response(game, fsm, solver)
    assert result.value == pytest.approx(alternating, abs=1e-12)
    assert not result.policy  # no playable policy for a player with memory


def test_a_player_with_its_own_random_numbers_is_refused():
    from fsmarena.games.players import Mixture

    game = vautour(3)
    mixture = Mixture([resolve_player("max", game), resolve_player("min", game)])
    with pytest.raises(FsmarenaError, match="random numbers of its own"):
        best_response(game, mixture)


# ---- Monte Carlo through the kernel ----------------------------------------------------------------


def mean_and_halfwidth(rewards: np.ndarray) -> tuple[float, float]:
    return float(rewards.mean()), 3.3 * float(rewards.std(ddof=1)) / math.sqrt(len(rewards))


@pytest.mark.parametrize("tie_rule", ["seed", pytest.param("cancel", marks=pytest.mark.slow)])
def test_exact_values_match_monte_carlo_through_the_kernel(tie_rule):
    game = vautour(5, tie_rule)
    solver = solver_for(game, "wdl")
    _, equilibrium = game.solve_equilibrium("wdl")
    random = resolve_player("random", game)
    rng = np.random.default_rng(11)
    n = 20_000
    # equilibrium against itself: the game's value
    mean, half = mean_and_halfwidth(play_games(game, [equilibrium, equilibrium], n, rng).rewards[:, 0])
    assert abs(mean - solver.value()) < half
    # the best response against random and the equilibrium against random
    response = best_response(game, random, solver, playable=True)
    mean, half = mean_and_halfwidth(play_games(game, [BestResponsePlayer(response), random], n, rng).rewards[:, 0])
    assert abs(mean - response.value) < half
    mean, half = mean_and_halfwidth(play_games(game, [equilibrium, random], n, rng).rewards[:, 0])
    assert abs(mean - response.equilibrium_value) < half
    assert response.value > response.equilibrium_value > 0


# ---- the command line -------------------------------------------------------------------------------


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_writes_an_equilibrium_that_exploit_reads(capsys, tmp_path):
    out = tmp_path / "eq.json"
    code, text, err = run(capsys, "solve", "vautour", "--param", "cards=4", "--out", str(out), "--json")
    assert code == 0 and err == ""
    data = json.loads(text)
    assert data["value"] == pytest.approx(0.0, abs=1e-12) and abs(data["equilibrium_exploitability"]) < 1e-9
    code, text, _ = run(capsys, "exploit", "vautour", str(out), "--param", "cards=4", "--json")
    assert code == 0 and abs(json.loads(text)["exploitability"]) < 1e-9
    code, text, _ = run(capsys, "exploit", "vautour", "max", "--param", "cards=4", "--json")
    result = json.loads(text)
    game = vautour(4)
    assert result["best_response_value"] == pytest.approx(plain_best_response(game, lambda h, t: h[-1]))
    code, text, _ = run(capsys, "play", "vautour", str(out), "max", "--param", "cards=4", "--games", "200")
    assert code == 0


@pytest.mark.parametrize(
    "argv,message",
    [
        (["solve", "vautour"], "too many to solve"),
        (["solve", "vautour", "--param", "cards=4", "--param", "players=3"], "two players"),
        (["solve", "vautour", "--param", "cards=4", "--reward", "money"], "unknown reward"),
        (["exploit", "vautour", "max", "--param", "cards=9"], "too many to solve"),
        (["exploit", "dtd", "random"], "not a two-player zero-sum game"),
        (["solve", "421", "--out", "x.json"], "two-player zero-sum"),
    ],
)
def test_bad_input_is_one_clear_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_player_file_for_another_game_is_refused_and_nothing_is_written(capsys, tmp_path):
    dtd = get_game("dtd")
    save_player(resolve_player("random", dtd), dtd, tmp_path / "dtd.json")
    code, out, err = run(capsys, "exploit", "vautour", str(tmp_path / "dtd.json"), "--param", "cards=3")
    assert code == 2 and "for the game 'dtd'" in err
    target = tmp_path / "never.json"
    code, out, err = run(capsys, "solve", "vautour", "--param", "cards=3", "--param", "players=3", "--out", str(target))
    assert code == 2 and not target.exists()


# ---- the reduced study ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_small_study_measures_every_champion_exactly(vautour_small_run, tmp_path):
    out = Path(shutil.copytree(vautour_small_run[0], tmp_path / "study"))  # the session's run is shared
    raw = {p: p.read_bytes() for p in sorted(out.rglob("raw/*.json"))}
    assert raw
    # run again with figures: the finished run is reused (the same raw results), figures drawn
    assert main(["study", "vautour-small", "--scale", "test", "--out", str(out), "--quiet"]) == 0
    assert {p: p.read_bytes() for p in sorted(out.rglob("raw/*.json"))} == raw
    rows = list(csv.DictReader((out / "tables" / "exploitability_2p.csv").open()))
    assert rows[0]["player"] == "equilibrium" and abs(float(rows[0]["exploitability"])) < 1e-9
    game = get_game("vautour", {"cards": "5", "state": "buckets", "action_set": "both"})
    champions = [r for r in rows if "/" in r["player"]]
    assert len(champions) == 10
    for row in champions[::3]:  # a champion's saved file, measured again, gives its number
        family, replicate = row["player"].split("/")
        player = load_player(out / "2-players" / "players" / family / f"{replicate}.json", game)
        assert exploitability(game, player)["exploitability"] == pytest.approx(float(row["exploitability"]))
        assert float(row["best_response_value"]) >= float(row["equilibrium_value"]) - 1e-9
    assert "### Exploitability (2 players, exact)" in (out / "report.md").read_text()
    assert (out / "figures" / "exploitability_2p.png").exists()
    # along training: each family's last point is its champions, measured separately above
    curve = list(csv.DictReader((out / "tables" / "exploitability_curve_2p.csv").open()))
    for family, (reward, column) in itertools.product(
        {r["group"] for r in champions}, [("wdl", "exploitability"), ("points", "exploitability_points")]
    ):
        last = [r for r in curve if r["family"] == family and r["reward"] == reward][-1]
        finals = [float(r[column]) for r in champions if r["group"] == family]
        assert float(last["median"]) == pytest.approx(float(np.median(finals)), abs=1e-5)  # CSV rounding
        assert int(last["games"]) == int(np.median([int(r["games"]) for r in champions if r["group"] == family]))
    assert "### Exploitability along training (2 players, exact)" in (out / "report.md").read_text()
    assert (out / "figures" / "exploitability_curve_2p.png").exists()


@pytest.mark.parametrize(
    "name, params", [("goofspiel", {"cards": "5"}), ("vautour", {"cards": "5", "action_set": "both"})]
)
def test_the_card_law_is_the_card_the_kernel_bids(name, params):
    """The exact solution's law of the card (``card_law``) against the kernel playing each
    action in random positions: a deterministic action puts all its weight on the card the
    kernel bids (an unheld card: the nearest held one), a random bid spreads it evenly over
    the hand, whose cards are the only ones the kernel ever draws."""
    game = get_game(name, params)
    driver = driver_for(game)
    p, kernel = driver.p, driver.kernel
    rng = np.random.default_rng(7)
    n = 60
    states = np.zeros((n, driver.state_size), dtype=np.int64)
    driver.loops.reset_all(p, states, driver.deals(n, rng))
    hands = rng.integers(1, 1 << game.config.cards, n)
    states[:, hand_at(p, 0)] = hands
    prizes = np.array([prize_slot(p, s) for s in states])
    for action in range(driver.n_actions):
        probs = np.zeros((n, driver.n_actions))
        probs[:, action] = 0.5  # half the weight: the law carries it as given
        law = game.card_law(probs, hands, prizes)
        for row, state in enumerate(states):
            bids = set()
            for draw in range(8):
                kernel_seed(draw)
                moved = state.copy()
                kernel.step(p, moved, action)
                bids.add(int(moved[pending_at(p, 0)]))
            held = [c for c in range(1, game.config.cards + 1) if hands[row] >> (c - 1) & 1]
            assert bids <= set(held)
            expected = np.zeros(game.config.cards + 1)
            if name == "vautour" and action == RANDOM:  # every held card alike
                expected[held] = 0.5 / len(held)
            else:  # the one card the kernel bids, whatever it draws
                assert len(bids) == 1
                expected[bids.pop()] = 0.5
            assert law[row] == pytest.approx(expected, abs=1e-15), (action, row)
