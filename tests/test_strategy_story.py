"""A champion's story for a report (:func:`fsmarena.figures.champion_story.champion_story`): its
card written and marked with the player's hash, its summary as a table of the states used, and
one game's first decisions, the same game ``play --trace`` shows."""

from __future__ import annotations

import numpy as np
from test_minimise import eight_state_fsm
from test_strategy_summary import thrower

from fsmarena.evo.transcript import rotated_transcripts
from fsmarena.figures.champion_story import champion_story
from fsmarena.figures.machine_index import content_hash, png_hash
from fsmarena.games.dice421.game import Dice421
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.players import load_player, player_to_json, save_player


def test_a_champions_story_has_its_card_summary_and_one_annotated_game(tmp_path, monkeypatch):
    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    game = DivideTheDollar()
    path = tmp_path / "best.json"
    save_player(eight_state_fsm(), game, path)
    card = tmp_path / "figures" / "best_card.png"
    card.parent.mkdir()
    text = champion_story(path, game, "always-large", card, games=10, seed=2, moves=5)
    assert png_hash(card) == content_hash(player_to_json(load_player(path, game), game))
    lines = text.splitlines()
    assert lines[0] == "![Strategy card of table-fsm 'table-fsm'](best_card.png)"
    assert "in 20 games against always-large" in text
    states = [line.split(" | ")[0][2:] for line in lines if line.startswith("| S")]
    assert states == ["S0 (start)", *(f"S{s}" for s in range(1, 7))]  # one table row opens each state used
    (game_played,) = rotated_transcripts(game, load_player(path, game), _builtin(game), 1, 2)
    mine = [m for m in game_played.moves if m.seat == 0]
    rows = [line for line in lines if line.startswith("| ") and line.split(" | ")[0][2:].isdigit()]
    assert [row.split(" | ")[3] for row in rows] == [m.action_name for m in mine[:5]]
    assert rows[0] == f"| 1 | {mine[0].situation} | S0 | {mine[0].action_name} | switches S0 \u2192 S1 |"
    assert f"| ... | {len(mine) - 5} more decisions | | | |" in lines
    result = {1.0: "wins", 0.0: "draws", -1.0: "loses"}[game_played.rewards[0]]
    assert lines[-1].endswith(f"the champion {result}.")


def _builtin(game):
    return game.builtin_players()["always-large"]()


def test_a_one_player_story_plays_alone(tmp_path):
    game = Dice421()
    path = tmp_path / "thrower.json"
    save_player(thrower(game), game, path)
    text = champion_story(path, game, None, tmp_path / "card.png", games=3, seed=1)
    assert "in 3 games alone" in text and "One game (the champion in seat 0; its first 3 decisions)" in text
    assert text.splitlines()[-1].startswith("Final score ")
    assert np.isfinite(float(text.splitlines()[-1].split()[-1].rstrip(".")))
