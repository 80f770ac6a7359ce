"""Fingerprints: mixtures pick their components as weighted, every game declares a probe
family of its builtins, and the heat map's cells are the matches they claim to be."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.fingerprint import MixturePlayer, fingerprint, probe_family
from fsmarena.figures.fingerprint import fingerprint_figure
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.match import play_match
from fsmarena.games.players import FixedActionPlayer, GroupedStack, Player, TablePolicy
from fsmarena.games.registry import entries, resolve

GAME = DivideTheDollar()


class Recorder(Player):
    """Plays ``inner`` and records the actions it answers."""

    kind = "recorder"

    def __init__(self, inner):
        super().__init__("recorder")
        self.inner, self.actions = inner, []

    def begin(self, game, n, members, rng):
        return self.inner.begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        actions = self.inner.act(obs, memory, rows, rng)
        self.actions.append(actions)
        return actions


def fixed(action):
    return FixedActionPlayer(action)


def mixture_actions(weights, n=2000, seed=0):
    recorder = Recorder(MixturePlayer([fixed(SMALL_SPOIL), fixed(MEDIAN), fixed(LARGE_MAX)], weights))
    play_games(GAME, [recorder, fixed(MEDIAN)], n, np.random.default_rng(seed))
    return np.concatenate(recorder.actions)


def test_mixture_corners_are_the_pure_players():
    for corner, action in (((1, 0, 0), SMALL_SPOIL), ((0, 1, 0), MEDIAN), ((0, 0, 1), LARGE_MAX)):
        assert set(mixture_actions(corner, n=50).tolist()) == {action}


def test_mixture_picks_each_component_as_often_as_weighted():
    actions = mixture_actions((0.2, 0.3, 0.5))
    n = len(actions)
    for action, weight in ((SMALL_SPOIL, 0.2), (MEDIAN, 0.3), (LARGE_MAX, 0.5)):
        share = np.count_nonzero(actions == action) / n
        assert abs(share - weight) < 5 * np.sqrt(weight * (1 - weight) / n)


def test_mixture_refuses_bad_weights():
    with pytest.raises(FsmarenaError, match="summing to 1"):
        MixturePlayer([fixed(0), fixed(1)], [0.5, 0.6])
    with pytest.raises(FsmarenaError, match="one non-negative weight"):
        MixturePlayer([fixed(0), fixed(1)], [1.0])


def test_every_game_with_opponents_declares_a_family_of_its_builtins():
    for item in entries():
        game = resolve(item.game, "game")()
        if game.n_seats == 1:
            with pytest.raises(FsmarenaError, match="one-player game"):
                probe_family(game)
            continue
        family = probe_family(game)
        assert len(set(family.names)) == 3 and set(family.names) <= set(game.builtin_players())
        probe = family.probe(0.3, 0.6)
        play_games(game, [probe] + [probe] * (game.n_seats - 1), 4, np.random.default_rng(0), check_legal=True)


def test_stacked_mixtures_pick_each_members_own_weights():
    """A stack of mixtures over shared components: the games of each member see that member's
    weights (so a whole lattice can play as one batch)."""
    components = [fixed(SMALL_SPOIL), fixed(MEDIAN), fixed(LARGE_MAX)]
    weights = [(0.2, 0.3, 0.5), (1.0, 0.0, 0.0), (0.0, 0.6, 0.4)]
    members = [MixturePlayer(components, w) for w in weights]
    stack = GroupedStack(members)
    assert len(stack.groups) == 1  # merged into one stacked mixture
    n = 3000
    rows = np.arange(n) % len(weights)
    recorder = Recorder(stack)
    play_games(GAME, [Seat(recorder, rows), fixed(MEDIAN)], n, np.random.default_rng(4))
    actions = np.stack(recorder.actions)  # (decisions, games): lock-step game
    for member, member_weights in enumerate(weights):
        mine = actions[:, rows == member].ravel()
        for action, weight in zip((SMALL_SPOIL, MEDIAN, LARGE_MAX), member_weights):
            share = np.count_nonzero(mine == action) / len(mine)
            assert abs(share - weight) <= 5 * np.sqrt(weight * (1 - weight) / len(mine)) + 1e-12


def test_cells_agree_with_a_match_at_their_point():
    """values[j, i] agrees with an independent match against the probe at (x[i], y[j]) within
    5 sigma of the two estimates; the same seed gives the same lattice for any --jobs."""
    player = fixed(MEDIAN)
    grid, games, seed = 3, 600, 7
    result = fingerprint(player, GAME, grid=grid, games=games, seed=seed)
    assert result.values.shape == (grid, grid) and result.x.tolist() == [0.0, 0.5, 1.0]
    family = probe_family(GAME)
    for j in range(grid):
        for i in range(grid):
            direct = play_match(GAME, player, family.probe(result.x[i], result.y[j]), games, 100 + j * grid + i)
            p = (result.values[j, i] + direct.win_rate) / 2
            assert abs(result.values[j, i] - direct.win_rate) <= 5 * np.sqrt(2 * p * (1 - p) / games) + 1e-9
    assert np.array_equal(fingerprint(player, GAME, grid=grid, games=games, seed=seed).values, result.values)
    assert np.array_equal(fingerprint(player, GAME, grid=grid, games=games, seed=seed, jobs=2).values, result.values)


def test_pure_corner_matches_the_builtin_within_noise():
    """At x = 1 the probe is always-large: the win rate of always-small against it agrees
    with a direct match against always-large (independent games, 5 sigma)."""
    player = fixed(SMALL_SPOIL)
    games = 400
    result = fingerprint(player, GAME, grid=2, games=games, seed=3)
    direct = play_match(GAME, player, fixed(LARGE_MAX), games, 11).win_rate
    for j in range(2):
        assert abs(result.values[j, 1] - direct) < 5 * np.sqrt(0.25 * 2 / games)


def test_any_player_has_a_fingerprint_and_it_is_drawn(tmp_path):
    policy = TablePolicy(np.full(GAME.n_states, LARGE_MAX))
    prints = [fingerprint(p, GAME, grid=2, games=20) for p in (policy, fixed(MEDIAN))]
    assert all(((0 <= f.values) & (f.values <= 1)).all() for f in prints)
    assert prints[0].to_dict()["games_per_point"] == 20
    paths = fingerprint_figure(prints, tmp_path / "prints")
    assert [p.name for p in paths] == ["prints.png", "prints.pdf"] and all(p.stat().st_size > 1000 for p in paths)
    with pytest.raises(FsmarenaError, match="no fingerprint"):
        fingerprint_figure([], tmp_path / "none")
    with pytest.raises(FsmarenaError, match="at least 2 points"):
        fingerprint(policy, GAME, grid=1)


# ---- the study report's section -----------------------------------------------------------------

STUDY = """
name = "machines"
version = 1
title = "Machines"
question = "What do they do?"
game = "dtd"
seed = 5
panel = ["random", "always-large"]

[[competitors]]
name = "bda"
label = "BDA"
method = "evolve"
params = { genome = "bda", protocol = "thesis", generations = 2, opponents = 3, curve_every = 1, curve_games = 50 }

[[competitors]]
name = "fsm"
label = "FSM"
method = "evolve"
params = { genome = "fsm", protocol = "round-robin", generations = 2, population = 4, games_per_pair = 2, curve_every = 1, curve_games = 50 }

[scales.test]
replicates = 2
panel_games = 40
crossplay_halfwidth = 0.2
levels = [450]  # BDA 2 generations x 15 x 3 x 5; FSM 19 x 24 = 456
"""


def test_study_section_tables_sizes_and_fingerprints(tmp_path):
    from fsmarena.evo.minimise import minimise, reachable_states
    from fsmarena.games.players import load_player
    from fsmarena.studies import runner
    from fsmarena.studies.analysis import analyse, read_csv
    from fsmarena.studies.catalogue import load_study_toml
    from fsmarena.studies.machines import machines_summary_section

    definition = tmp_path / "machines.toml"
    definition.write_text(STUDY)
    data = runner.run_study(load_study_toml(definition).plan("test"), tmp_path / "out", jobs=1, log=lambda m: None)
    analysis = analyse(data, figures=False)  # --no-figures: the fingerprints as a table only
    section = machines_summary_section(data, analysis)
    assert section.startswith("### What the machines do") and "tables/fingerprints.csv" in section
    assert "![Fingerprints" not in section and not (data.out / "figures" / "fingerprints.png").exists()
    analysis = analyse(data, figures=True)
    section = machines_summary_section(data, analysis)
    assert "![Fingerprints" in section and (data.out / "figures" / "fingerprints.png").exists()
    sizes = read_csv(data.out / "tables" / "machine_sizes.csv")
    assert sorted(r["champion"] for r in sizes) == ["bda/r000", "bda/r001", "fsm/r000", "fsm/r001"]
    for row in sizes:  # recomputed from the saved player files
        family, replicate = row["champion"].split("/")
        player = load_player(data.out / "players" / family / f"{replicate}.json", GAME)
        assert int(row["states"]) == player.n_states
        assert int(row["reachable_states"]) == len(reachable_states(player))
        assert int(row["effective_states"]) == minimise(player).n_states
        assert int(row["effective_states_in_play"]) <= int(row["effective_states"]) <= int(row["reachable_states"])
        assert f"| {row['champion']} | {row['family']} |" in section
    prints = read_csv(data.out / "tables" / "fingerprints.csv")
    assert len(prints) == 2 * 25 and {r["champion"] for r in prints} == {
        f"{name}/r{replicate:03d}" for name, replicate in analysis.best.items()
    }
    assert (data.out / "figures" / "fingerprints.png").stat().st_size > 1000
    assert machines_summary_section(data, analysis) == section  # seeded: the same tables again
