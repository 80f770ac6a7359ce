"""Every player kind of every game is inspected with its strategy summary and drawn as a
strategy card, and ``play --trace`` runs on every game (slow: a few games of each, every
player asked in Python); a trained network is read through the greedy table it plays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.evo.genome import genome_spec
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy, save_player
from fsmarena.games.registry import entries, resolve

GAMES = [resolve(e.game, e.name)() for e in entries()]
pytestmark = pytest.mark.slow


def _players(game) -> dict[str, object]:
    rng = np.random.default_rng(8)
    fsm = genome_spec(game, "fsm", states=3, inputs=game.fsm_inputs)
    bda = genome_spec(game, "bda", states=3)
    builtin = next(name for name in sorted(game.builtin_players()) if name != "random")
    return {
        "table-fsm": fsm.player(fsm.random(rng, 1)),
        "bda": bda.player(bda.random(rng, 1)),
        "table-policy": TablePolicy(rng.integers(0, game.n_actions, game.n_states)),
        "builtin": game.builtin_players()[builtin](),
        "fixed-action": FixedActionPlayer(0),
        "random": RandomPlayer(),
    }


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_kind_is_inspected_drawn_as_a_card_and_traced(capsys, tmp_path, monkeypatch, game):
    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    panel = [] if game.n_seats == 1 else ["--panel", "random"]
    for kind, player in _players(game).items():
        path = tmp_path / f"{kind}.json"
        save_player(player, game, path)
        code, out, err = run_cli(capsys, "inspect", path, "--games", 2, *panel)
        assert code == 0 and not err, (game.name, kind, err)
        assert f"strategy of {player.kind} " in out and "  S0 (start): " in out, (game.name, kind)
        card = tmp_path / f"{kind}.png"
        code, out, err = run_cli(capsys, "draw", path, "--card", "--games", 2, *panel, "--out", card)
        assert code == 0 and card.is_file(), (game.name, kind, err)
        opponent = [] if game.n_seats == 1 else ["random"]
        code, out, err = run_cli(capsys, "play", game.name, path, *opponent, "--games", 2, "--trace", 1, "--json")
        assert code == 0, (game.name, kind, err)
        (trace,) = json.loads(out)["traces"]
        assert trace["moves"] and len(trace["scores"]) == game.n_seats


def test_a_trained_network_is_summarised_through_its_greedy_table(capsys, tmp_path):
    pytest.importorskip("sklearn")
    from fsmarena.evo.strategy_summary import summarise
    from fsmarena.games.dtd.game import DivideTheDollar
    from fsmarena.games.players import load_player
    from fsmarena.rl.network_training import NetworkSettings, train_network

    game = DivideTheDollar()
    small = dict(games=300, batch=150, hidden=(8,), eval_every=300, eval_games=30, rolling=100, seed=5)
    train_network(game, NetworkSettings.of(game, **small), tmp_path / "run")
    network = load_player(tmp_path / "run" / "policy.json", game)
    summary = summarise(network, game, [RandomPlayer()], games=3)
    (state,) = summary.states  # a network has no states: one, S0
    assert summary.kind == "network" and summary.decisions == state.decisions == 2 * 3 * 26
    assert sum(count for group in state.actions for _code, count in group.inputs) == summary.decisions
    code, out, err = run_cli(
        capsys, "draw", tmp_path / "run" / "policy.json", "--games", 2, "--out", tmp_path / "n.png"
    )
    assert code == 0 and out.startswith("strategy card of network")
