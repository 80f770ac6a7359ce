"""Transcripts (``fsmarena play --trace``): a seeded game's transcript, taken through the
driver's trace hook, is the game the plain-Python reference plays with the same deal and the
same actions (its situations, scores and rewards), for every game; a machine's states chain
from S0 as its table says; the command prints and returns them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli
from reference_replay import has_reference, replay

from fsmarena.evo.genome import genome_spec
from fsmarena.evo.inputs import input_encoder
from fsmarena.evo.transcript import rotated_transcripts, transcript_lines, transcripts
from fsmarena.games.capabilities import SimultaneousMoves
from fsmarena.games.driver import driver_for
from fsmarena.games.players import RandomPlayer, save_player
from fsmarena.games.registry import entries, resolve

GAMES = [resolve(e.game, e.name)() for e in entries() if e.kernel]


def _machine(game, seed=1):
    """A random 3-state table FSM over the game's default inputs."""
    spec = genome_spec(game, "fsm", states=3, inputs=game.fsm_inputs)
    return spec.player(spec.random(np.random.default_rng(seed), 1), label="machine")


@pytest.mark.parametrize("game", [g for g in GAMES if has_reference(g)], ids=lambda g: g.name)
def test_a_transcript_is_the_game_the_reference_plays(game):
    n = 2
    deals = driver_for(game).deals(n, np.random.default_rng(5))
    players = [_machine(game)] + [RandomPlayer()] * (game.n_seats - 1)
    found = transcripts(game, players, n, np.random.default_rng(6), deals=deals)
    for deal, transcript in zip(deals, found):
        actions = {seat: [m.action for m in transcript.moves if m.seat == seat] for seat in range(game.n_seats)}
        again = replay(game, deal, actions)
        assert transcript.rewards == again.rewards
        assert np.allclose(transcript.scores, again.scores, rtol=0, atol=1e-12)
        for seat, views in again.views.items():
            shown = [m for m in transcript.moves if m.seat == seat]
            assert len(shown) == len(views)
            for move, view in zip(shown, views):
                if view.index is not None:
                    assert move.index == view.index
                assert move.action in view.legal and move.action_name == game.action_names[move.action]
                assert move.situation  # in words, never empty


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_machines_states_chain_from_s0_as_its_table_says(game):
    machine = _machine(game, seed=2)
    encoder = input_encoder(game, machine.inputs)
    players = [machine] + [RandomPlayer()] * (game.n_seats - 1)
    (transcript,) = transcripts(game, players, 1, np.random.default_rng(3))
    mine = [m for m in transcript.moves if m.seat == 0]
    others = [m for m in transcript.moves if m.seat != 0]
    assert mine and mine[0].before == 0 and all(m.before is None and m.after is None for m in others)
    for move, following in zip(mine, mine[1:]):
        assert following.before == move.after
    if encoder.parts == ("index",):  # the input is the index the transcript holds
        for move in mine:
            assert machine.next_state[0][move.before, move.index] == move.after
    lines = transcript_lines(game, transcript)
    assert lines[0].startswith("game 1: seat 0 'machine'") and lines[-1].startswith("  end: score")
    if isinstance(game, SimultaneousMoves):  # one line per turn, every seat's bid on it
        assert all(line.count("|") == game.n_seats - 1 for line in lines[1:-1])
    else:
        assert len(lines) == len(transcript.moves) + 2


def test_rotated_transcripts_seat_a_in_turn_and_do_not_depend_on_how_many(capsys, tmp_path):
    game = next(g for g in GAMES if g.name == "dtd")
    machine = _machine(game)
    three = rotated_transcripts(game, machine, RandomPlayer(), 3, seed=4)
    assert [t.players.index("machine") for t in three] == [0, 1, 0]
    assert [t.to_dict() for t in rotated_transcripts(game, machine, RandomPlayer(), 2, seed=4)] == [
        t.to_dict() for t in three[:2]
    ]
    path = tmp_path / "m.json"
    save_player(machine, game, path)
    code, out, err = run_cli(capsys, "play", "dtd", path, "random", "--games", 10, "--trace", 2)
    assert code == 0 and not err and "game 2: seat 0 'random' vs seat 1 'machine'" in out
    assert "  1. seat 0 'machine' [S0\u2192S" in out
    code, out, _ = run_cli(capsys, "play", "dtd", path, "random", "--games", 10, "--trace", 2, "--json")
    traces = json.loads(out)["traces"]
    assert traces == [t.to_dict() for t in rotated_transcripts(game, machine, RandomPlayer(), 2, seed=0)]
    code, out, err = run_cli(capsys, "play", "dtd", path, "random", "--trace", 101)
    assert code == 2 and "--trace prints at most 100 games" in err and err.count("\n") == 1
