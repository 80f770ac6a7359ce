"""Tests every registered game and every player kind inherits by being registered.

In the spirit of OpenSpiel's tests over ``registered_games()`` and Axelrod's ``TestPlayer``:
a new game folder with its ``ENTRY`` (and a line in ``fsmarena.games.registry.GAME_PACKAGES``) gets
all of these with no edit here.  What each game declares it must show (its classifier, deals
worked out by hand, small configurations) is checked by ``test_declared_expectations.py``
against ``fsmarena/games/<name>/expectations.py``; further game-specific rules and engine-against-
reference checks stay in each game's own test files.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome import GENOMES, genome_spec
from fsmarena.evo.inputs import available_inputs
from fsmarena.games import get_game
from fsmarena.games.arena import play_games
from fsmarena.games.base import Observation, config_to_dict, parse_params
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, TablePolicy, player_from_json, player_to_json, resolve_player
from fsmarena.games.registry import entries, game_folder, player_kinds, resolve
from fsmarena.studies.catalogue import get_study, load_study_toml

GAMES = [e.name for e in entries()]
ROOT = Path(__file__).resolve().parents[2]
GAMES_PLAYED = 120  # enough to visit most observations, small enough for the default suite


def _game(name: str):
    return get_game(name)


def _players(game) -> list[Player]:
    """One player of every kind the game can seat: its builtins, a random table policy, and
    random evolved machines of each genome and input encoding."""
    rng = np.random.default_rng(7)
    players = [factory() for factory in game.builtin_players().values()]
    players.append(TablePolicy(rng.integers(0, game.n_actions, size=game.n_states), label="table"))
    for genome in GENOMES:
        for inputs in available_inputs(game) if genome == "fsm" else ["index"]:
            try:
                spec = genome_spec(game, genome, states=3, inputs=inputs)
            except FsmarenaError:  # too many inputs for a table (e.g. vautour's full index)
                continue
            machine = spec.player(spec.random(rng, 1))
            machine.label = f"random {genome} ({inputs})"
            players.append(machine)
    return players


@pytest.fixture(scope="module", params=GAMES)
def game(request):
    return _game(request.param)


def test_every_entry_resolves_to_its_game():
    for item in entries():
        cls = resolve(item.game, item.name)
        assert cls.name == item.name
        for kind, target in item.player_kinds.items():
            assert resolve(target, kind).kind == kind


def test_every_named_study_file_lives_in_its_game_folder():
    """A game's study TOMLs are in its own folder (``studies={"name": "file.toml"}`` is read
    there) and ``fsmarena study NAME`` loads exactly that file; none is left in ``studies/``."""
    files = 0
    for item in entries():
        folder = game_folder(item.name)
        for name, target in item.studies.items():
            if target.endswith(".toml"):
                path = folder / target
                assert path.is_file(), f"{item.name}: study '{name}' names {target}, not in {folder}"
                assert get_study(name) == load_study_toml(path)
                assert get_study(name).game == item.name
                files += 1
    assert files >= 6  # dtd-thesis, 421, goofspiel, thirtyone, vautour, vautour-small
    assert sorted(ROOT.joinpath("studies").glob("*.toml")) == []


def test_every_player_kind_names_its_own_class():
    for kind, target in player_kinds().items():
        assert issubclass(resolve(target, kind), Player)
        assert resolve(target, kind).kind == kind


def test_description_is_json_and_parameters_round_trip(game):
    described = game.describe()
    assert json.loads(json.dumps(described)) == described
    as_strings = {
        k: ",".join(map(str, v)) if isinstance(v, list) else str(v)
        for k, v in config_to_dict(game.config).items()
        if v is not None
    }
    assert parse_params(type(game.config), as_strings) == game.config
    with pytest.raises(FsmarenaError, match="unknown parameter"):
        parse_params(type(game.config), {"no_such_rule": "1"})


def _checking_decide(game, rng, seen):
    """A decide callback that checks every observation against the contract and answers with
    uniformly random legal actions."""

    def decide(seat: int, obs: Observation, rows: np.ndarray | None) -> np.ndarray:
        assert 0 <= seat < game.n_seats
        index = np.asarray(obs.index)
        assert index.shape == (obs.n,) and index.min() >= 0 and index.max() < game.n_states
        if game.feature_names:
            assert np.asarray(obs.features).shape == (obs.n, len(game.feature_names))
        for name, size in game.encodings.items():
            values = np.asarray(getattr(obs, name))
            assert values.min() >= 0 and values.max() < size, name
        mask = obs.mask
        legal = np.ones((obs.n, game.n_actions), bool) if mask is None else np.asarray(mask)
        assert legal.shape == (obs.n, game.n_actions) and legal.any(axis=1).all()
        seen.update(index.tolist())
        scores = rng.random((obs.n, game.n_actions)) + legal
        return scores.argmax(axis=1)

    return decide


def test_observations_keep_the_contract_and_rewards_are_a_ranking(game):
    seen: set[int] = set()
    rng = np.random.default_rng(3)
    outcome = game.play(GAMES_PLAYED, rng, _checking_decide(game, rng, seen))
    assert outcome.scores.shape == outcome.rewards.shape == (GAMES_PLAYED, game.n_seats)
    assert seen  # some decision was asked for
    if game.n_seats == 1:
        assert np.array_equal(outcome.rewards, outcome.scores)
        return
    rewards = outcome.rewards
    assert np.isin(rewards, (-1.0, 0.0, 1.0)).all()
    winners = (rewards == 1).sum(axis=1)
    shared = (rewards == 0).sum(axis=1)
    # exactly one sole winner, or a first place shared by two or more and nobody winning
    assert np.all(((winners == 1) & (shared == 0)) | ((winners == 0) & (shared >= 2)))


def test_the_same_seed_plays_the_same_games_and_another_seed_does_not(game):
    def play(seed):
        rng = np.random.default_rng(seed)
        return game.play(GAMES_PLAYED, rng, _checking_decide(game, rng, set()))

    a, b, c = play(11), play(11), play(12)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


def test_every_player_kind_plays_legal_moves_and_survives_its_file(game):
    opponent = None if game.n_seats == 1 else resolve_player("random", game)
    for player in _players(game):
        seats = [player] + [opponent] * (game.n_seats - 1)
        play_games(game, seats, GAMES_PLAYED, np.random.default_rng(1), check_legal=True)
        data = json.loads(json.dumps(player_to_json(player, game)))
        again = player_from_json(data, game)
        assert again.kind == player.kind
        first = play_match(game, player, opponent, 60, seed=4)
        second = play_match(game, again, opponent, 60, seed=4)
        assert (first.wins, first.draws, first.score) == (second.wins, second.draws, second.score), player.label


def test_a_player_file_for_another_game_is_refused(game):
    other = next(name for name in GAMES if name != game.name)
    data = player_to_json(TablePolicy(np.zeros(game.n_states, np.int64)), game)
    with pytest.raises(FsmarenaError):
        player_from_json(dict(data, game=other), game)
    with pytest.raises(FsmarenaError):
        player_from_json(dict(data, kind="pickle"), game)
    with pytest.raises(FsmarenaError):
        player_from_json(dataclasses.asdict(game.config) if dataclasses.is_dataclass(game.config) else [], game)


def test_results_do_not_depend_on_the_number_of_processes(game):
    players = _players(game)[:2]
    opponent = players[1] if game.n_seats > 1 else None
    one = play_match(game, players[0], opponent, 400, seed=9, jobs=1, chunk=97)
    two = play_match(game, players[0], opponent, 400, seed=9, jobs=2, chunk=97)
    assert (one.wins, one.draws, one.losses, one.score) == (two.wins, two.draws, two.losses, two.score)


def test_seats_are_rotated_fairly(game):
    """A against itself wins as often as it loses, within a 5-sigma band (seat advantage is
    cancelled by the rotation)."""
    if game.n_seats == 1:
        pytest.skip("one-player game")
    random = resolve_player("random", game)
    stats = play_match(game, random, random, 4000, seed=2)
    spread = 5 * np.sqrt(stats.games)
    if game.n_seats == 2:
        assert abs(stats.wins - stats.losses) < spread
    else:  # one seat of n: its sole-win rate is about 1/n of the decided games
        decided = stats.games - stats.draws
        assert abs(stats.wins - decided / game.n_seats) < spread
