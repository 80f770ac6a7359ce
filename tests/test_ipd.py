"""The iterated prisoner's dilemma against its plain-Python reference, and the add-a-game path it
was written by (kernel defaults, generic bench cases, a bad ``FSMARENA_GAMES``).

Oracles: ``fsmarena/games/ipd/reference.py`` (the rules and the classics in words), the published
transition tables read as Axelrod's ``SimpleFSM`` reads them (a second reading of
:data:`fsmarena.games.ipd.machines.MACHINES`, independent of its conversion to table FSMs), and
payoffs worked out by hand.  Axelrod's library itself is the oracle of ``test_ipd_axelrod.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import run_cli
from reference_replay import kernel_game

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game, kernel
from fsmarena.games.arena import play_games
from fsmarena.games.bench import kernel_cases, plain_kernel_loop
from fsmarena.games.ipd import kernel as ipd_kernel
from fsmarena.games.ipd import reference
from fsmarena.games.ipd.game import IpdConfig, IteratedPrisonersDilemma
from fsmarena.games.ipd.machines import MACHINES, fsm_tables
from fsmarena.games.players import save_player

GAME = get_game("ipd", {"turns": "30"})


def _deals(game, n, seed):
    p = kernel.params_of(game)
    kernel.seed(seed)
    deals = np.zeros((n, ipd_kernel.deal_size(p)), dtype=np.int64)
    for row in deals:
        ipd_kernel.draw_deal(p, row)
    return p, deals


@pytest.mark.parametrize("seed", range(6))
def test_kernel_plays_the_reference_rules_with_noise_and_random_lengths(seed):
    """Random rules (payoffs, memory, noise, prob_end): random decisions on the kernel, replayed
    by the reference with the same deal: every observation, the totals, scores and rewards."""
    config = ipd_kernel.random_config(seed)
    game = IteratedPrisonersDilemma(config)
    p, deals = _deals(game, 8, seed)
    script = ipd_kernel.reference_deal(config, deals)
    picks = np.random.default_rng(seed).integers(0, 2, size=(8, 2, config.turns))
    for g in range(8):
        log, rewards, scores = kernel_game(ipd_kernel, p, deals[g], g, picks)
        chosen = {seat: [d[-1] for d in log.get(seat, [])] for seat in (0, 1)}
        seen: dict[int, list] = {0: [], 1: []}
        length = int(script["length"][g])
        choosers = [_replaying(config.memory, chosen[seat], seen[seat]) for seat in (0, 1)]
        played = reference.play_match(config, length, script["flips"][g], choosers)
        for seat in (0, 1):
            assert [(d[0], d[3][0]) for d in log[seat]] == seen[seat], (seed, g, seat)
            assert all(d[2] == [True, True] for d in log[seat])
        assert np.allclose(scores, played["scores"], rtol=0, atol=1e-12)
        assert rewards.tolist() == played["rewards"]
        assert 1 <= length <= config.turns


def _replaying(memory, actions, seen):
    """A reference chooser that plays ``actions`` in order and records what it saw each time:
    the tabular index and ``opp_last`` of the reference's history."""

    def choose(history):
        seen.append((reference.memory_index(history, memory), reference.opp_last(history)))
        return "CD"[actions[len(history)]]

    return choose


def test_the_classics_play_their_rules_in_words_under_noise():
    """Every pair of deterministic classics on noisy deals: the kernel's builtins make the
    moves the reference's definitions make, flipped by the same noise."""
    game = get_game("ipd", {"turns": "40", "noise": "0.15"})
    p, deals = _deals(game, 5, 3)
    script = ipd_kernel.reference_deal(game.config, deals)
    builtins = game.builtin_players()
    for a in reference.CLASSICS:
        for b in reference.CLASSICS:
            moves: dict[int, list[int]] = {0: [], 1: []}
            trace = _tracer(moves, 5)
            outcome = play_games(
                game, [builtins[a](), builtins[b]()], 5, np.random.default_rng(0), deals=deals, trace=trace
            )
            for g in range(5):
                played = reference.play_match(
                    game.config, 40, script["flips"][g], [reference.CLASSICS[a], reference.CLASSICS[b]]
                )
                unflipped = [
                    ["CD".index(m[seat]) ^ int(script["flips"][g][t][seat]) for t, m in enumerate(played["moves"])]
                    for seat in (0, 1)
                ]
                assert [moves[s][g::5] for s in (0, 1)] == unflipped, (a, b, g)
                assert np.allclose(outcome.scores[g], played["scores"])


def _tracer(moves, n):
    """A trace recording every seat's chosen actions, game-major (``moves[seat][t * n + g]``)."""

    def trace(seat, rows, obs, actions):
        assert len(rows) == n  # every match lasts the same turns here: all rows decide together
        moves[seat].extend(int(a) for a in actions)

    return trace


def _published_moves(name, opponent_moves):
    """The machine ``name`` read as Axelrod's SimpleFSM reads its table: its moves against a
    fixed sequence of opponent moves (the opening, then one transition per opponent move)."""
    _, transitions, state, opening = MACHINES[name]
    table = {(s, m): (n, a) for s, m, n, a in transitions}
    played = [opening]
    for move in opponent_moves[:-1]:
        state, action = table[(state, move)]
        played.append(action)
    return played


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_published_machines_follow_their_tables(name):
    """Each machine, as a table FSM, against a random fixed sequence of moves: the moves its
    published table makes against it."""
    game = get_game("ipd", {"turns": "60"})
    machine = game.builtin_players()[name]()
    opponent = np.random.default_rng(len(name)).integers(0, 2, 60)
    moves: dict[int, list[int]] = {0: [], 1: []}

    def decide(seat, obs, rows):
        if seat == 0:
            actions = machine.act(obs, memory, rows, np.random.default_rng(0))
        else:
            actions = np.full(obs.n, opponent[len(moves[1])])
        moves[seat].append(int(actions[0]))
        return actions

    memory = machine.begin(game, 1, None, np.random.default_rng(0))
    game.play(1, np.random.default_rng(0), decide)
    assert moves[1] == opponent.tolist()
    assert moves[0] == _published_moves(name, opponent.tolist())


def test_machine_tables_are_checked():
    with pytest.raises(FsmarenaError, match="no transition for D"):
        fsm_tables([(0, 0, 0, 0)], 0, 0)
    with pytest.raises(FsmarenaError, match="one transition per state"):
        fsm_tables([(0, 0, 0, 0), (0, 0, 0, 1), (0, 1, 0, 0)], 0, 0)
    next_state, action = fsm_tables([(5, 0, 5, 0), (5, 1, 2, 1), (2, 0, 5, 0), (2, 1, 2, 1)], 2, 1)
    assert next_state.tolist() == [[0, 1, 0], [1, 1, 0]]  # state 2 (initial) is 0, state 5 is 1
    assert action.tolist() == [[1, 0, 1], [1, 0, 1]]


def test_payoffs_scores_and_rewards_by_hand():
    """Defector against cooperator for 4 turns with (R, S, T, P) = (3, 0, 5, 1): 5 and 0 per turn;
    tit for tat against the alternator over 3 turns: C/C, C/D, D/C: totals 3 + 0 + 5 = 8 and
    3 + 5 + 0 = 8, a draw."""
    builtins = GAME.builtin_players()
    game = get_game("ipd", {"turns": "4"})
    outcome = play_games(game, [builtins["defector"](), builtins["cooperator"]()], 3, np.random.default_rng(0))
    assert outcome.scores.tolist() == [[5.0, 0.0]] * 3 and outcome.rewards.tolist() == [[1.0, -1.0]] * 3
    game = get_game("ipd", {"turns": "3"})
    outcome = play_games(game, [builtins["tit-for-tat"](), builtins["alternator"]()], 1, np.random.default_rng(0))
    assert outcome.scores.tolist() == [[8 / 3, 8 / 3]] and outcome.rewards.tolist() == [[0.0, 0.0]]


def test_random_and_generous_players_draw_at_their_rates():
    """``random`` with p = 0.9 cooperates 90% of the time; the generous tit for tat forgives a
    defector's D with Nowak and Sigmund's 1/3 (within 4.5 standard errors)."""
    from fsmarena.games.builtin_player import BuiltinPlayer

    game = get_game("ipd", {"turns": "50"})
    for player, opponent, rate in (
        (BuiltinPlayer("random", {"p": 0.9}), "cooperator", 0.9),
        (BuiltinPlayer("generous-tit-for-tat"), "defector", (1 + 49 / 3) / 50),
    ):
        outcome = play_games(game, [player, game.builtin_players()[opponent]()], 400, np.random.default_rng(1))
        score = outcome.scores[:, 1].mean()  # the opponent's: 3 c against cooperation, 1 + 4 c for the defector
        mean = score / 3.0 if opponent == "cooperator" else (score - 1.0) / 4.0
        assert abs(mean - rate) < 4.5 * np.sqrt(rate * (1 - rate) / (400 * 50)), (player.label, mean)
    assert IpdConfig().generosity == pytest.approx(1 / 3)


def test_state_labels_and_bad_rules():
    game = get_game("ipd", {"memory": "2"})
    assert game.n_states == 25
    assert [game.state_label(i) for i in (0, 1, 2 + 5 * 3, 24)] == ["start", "CC", "DC CD", "DD DD"]
    assert game.encoding_label("opp_last", 2) == "opp D"
    for bad, match in (
        ({"turns": "0"}, "turns must be a whole number"),
        ({"memory": "6"}, "memory must be"),
        ({"noise": "1.5"}, "noise must be a probability"),
        ({"prob_end": "-0.1"}, "prob_end must be"),
        ({"reward": "2.5"}, "cannot read"),
    ):
        with pytest.raises(FsmarenaError, match=match):
            get_game("ipd", bad)


def test_a_geometric_length_has_the_mean_of_axelrods_sample_length():
    """prob_end 0.1: lengths ceil(log(1 - u) / log(0.9)) have mean 10 (capped at 500: no effect)."""
    game = get_game("ipd", {"prob_end": "0.1", "turns": "500"})
    _, deals = _deals(game, 4000, 2)
    lengths = deals[:, 0]
    assert lengths.min() >= 1 and abs(lengths.mean() - 10) < 4.5 * np.sqrt(90 / 4000)


# ---- the add-a-game path ------------------------------------------------------------------------


def test_complete_gives_every_default_and_keeps_what_a_game_defines():
    namespace = {"legal": "own", "__name__": "scratch"}
    kernel.complete(namespace)
    assert namespace["legal"] == "own"
    assert {name: namespace[name] for name in kernel.DEFAULTS if name != "legal"} == {
        name: value for name, value in kernel.DEFAULTS.items() if name != "legal"
    }
    assert ipd_kernel.always_masked is kernel.not_always_masked  # ipd takes the defaults it does not write
    out = np.array([2.0, 5.0, 5.0])
    kernel.rank_rewards(out)
    assert out.tolist() == [-1.0, 0.0, 0.0]
    out = np.array([1.0, 0.5])
    kernel.rank_rewards(out)
    assert out.tolist() == [1.0, -1.0]


def test_every_game_with_a_kernel_has_a_default_bench_case_whose_loop_plays_the_game():
    """The generic case's plain loop scores the same games as the driver for deterministic builtins."""
    (case,) = kernel_cases(GAME)
    assert not case.opt_in and "cooperator vs defector" in case.name
    scores = plain_kernel_loop(GAME, ["tit-for-tat", "defector"], 3, 0)
    assert np.allclose(scores, [[29 / 30, 34 / 30]] * 3)  # S once, then P: 0 + 29; T then 29 P: 5 + 29


def test_a_bad_games_variable_is_one_line_and_exit_2():
    """The package is imported when fsmarena is (the Gymnasium ids): the error must wait for the
    command (a traceback and exit 1 before)."""
    for value in ("nosuchgame", "nosuchpackage.game", ".relative"):
        done = subprocess.run(
            [sys.executable, "-m", "fsmarena", "games"],
            env={**os.environ, "FSMARENA_GAMES": value},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"fsmarena: error: game package '{value}' is not importable (registered by FSMARENA_GAMES or register)"
        ]


def test_export_refuses_what_it_cannot_export(capsys, tmp_path):
    game = get_game("ipd")
    builtin = tmp_path / "tft.json"
    save_player(game.builtin_players()["tit-for-tat"](), game, builtin)
    code, _, err = run_cli(capsys, "export", builtin, "--to", "axelrod")
    assert code == 2 and "only a table-fsm player" in err
    machine = tmp_path / "fsm.json"
    save_player(game.builtin_players()["tf1"](), game, machine)
    code, _, err = run_cli(capsys, "export", machine, "--to", "gambit")
    assert code == 2 and err.strip() == "fsmarena: error: ipd players do not export to 'gambit' (its formats: axelrod)"
    dtd = get_game("dtd")
    other = tmp_path / "dtd.json"
    save_player(dtd.builtin_players()["random"](), dtd, other)
    code, _, err = run_cli(capsys, "export", other, "--to", "axelrod")
    assert code == 2 and "dtd players do not export to 'axelrod' (its formats: none)" in err
