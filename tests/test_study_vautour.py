"""``fsmarena study vautour``: the whole pipeline at the test scale (files, figures, and every
reported number traced back to the raw league counts), resume, refusals, the n-seat league on
hand-worked deterministic matches, and the train-variant / evolve-variant methods."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import cli
from report_helpers import report_defects
from scipy import stats

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.multiseat import LeagueResult, advantage_interval, league
from fsmarena.games.players import resolve_player
from fsmarena.games.stats import wilson_interval
from fsmarena.league.report import detectable, trained_against_finding
from fsmarena.league.tables import group_rows
from fsmarena.methods.base import MethodContext, check_method, get_method
from fsmarena.stats import comparisons as st
from fsmarena.stats import inference as inf
from fsmarena.studies.analysis import read_csv
from fsmarena.studies.catalogue import get_study, load_study_toml
from fsmarena.studies.pipeline import SWEEP_MARKER, plans
from fsmarena.studies.report_text import pct, pp

DEFINITION = Path(__file__).resolve().parents[1] / "fsmarena" / "games" / "vautour" / "vautour.toml"
FAMILIES = ("MC", "SARSA", "Q-learning", "FSM", "BDA")
BUILTINS = ("random", "max", "min", "prize-rank", "bonus-craving", "negative-adverse", "get-rid-of-bad-cards")
SEEN = ("random", "max", "min", "prize-rank")
FIGURES = (
    "league_heatmap",
    "champions_vs_builtins",
    "generalisation",
    "curves_train",
    "curves_evolve",
    "best_fsm",
    "best_bda",
    "reliability",
)


@pytest.fixture()
def run(vautour_run):
    """The test scale without figures (the figures: the slow test below)."""
    return vautour_run


def test_every_table_of_both_player_counts_is_written(run):
    out, summary = run
    assert summary["report"] == str(out / "report.md") and (out / "report.md").exists()
    for n in (2, 3):
        sub = out / f"{n}-players"
        assert (sub / "report.md").exists() and (sub / "raw" / "league.json").exists()
        for name in (
            "league",
            "champions",
            "reference",
            "generalisation",
            "generalisation_summary",
            "generalisation_tests",
        ):
            assert (out / "tables" / f"{name}_{n}p.csv").stat().st_size > 0
        # every champion's player file plays in the study's game
        game = get_game("vautour", {"state": "buckets", "action_set": "both", "players": str(n)})
        for path in sorted((sub / "players").glob("*/r*.json")):
            resolve_player(str(path), game)


@pytest.mark.slow
def test_end_to_end_with_figures_gives_the_same_tables_and_every_figure(run, tmp_path):
    out, _summary = run
    other = tmp_path / "figures"
    assert cli("study", "vautour", "--scale", "test", "--jobs", "2", "--out", str(other), "--quiet")[0] == 0
    for path in sorted((out / "tables").glob("*.csv")):  # any --jobs, figures or not: the same numbers
        assert (other / "tables" / path.name).read_bytes() == path.read_bytes(), path.name
    report = (other / "report.md").read_text()
    for n in (2, 3):
        for stem in FIGURES:
            for suffix in (".png", ".pdf"):
                assert (other / "figures" / f"{stem}_{n}p{suffix}").stat().st_size > 1000, (stem, n)
            assert f"figures/{stem}_{n}p.png" in report


def pooled_from_raw(raw: dict) -> dict[tuple[str, str], dict[str, int]]:
    """Group-pair totals summed straight from the raw pairings (plain Python)."""
    totals: dict[tuple[str, str], dict[str, int]] = {}
    for k, (a, b) in enumerate(zip(raw["first"], raw["other"])):
        key = (raw["groups"][a], raw["groups"][b])
        entry = totals.setdefault(key, {"games": 0, "wins": 0, "draws": 0, "losses": 0, "other_wins": 0})
        for name in entry:
            entry[name] += raw[name][k]
    return totals


@pytest.mark.parametrize("n", [2, 3])
def test_league_tables_are_the_raw_counts_pooled(run, n):
    out, _summary = run
    raw = json.loads((out / f"{n}-players" / "raw" / "league.json").read_text())
    assert raw["seats"] == n
    assert all(g % n == 0 for g in raw["games"]), "the single seat is rotated over every seat"
    totals = pooled_from_raw(raw)
    rows = read_csv(out / "tables" / f"league_{n}p.csv")
    study = get_study("vautour")
    groups = len(study.competitors) + len(study.panel) + 1  # every family, every builtin and the field
    assert len(rows) == len(totals) == groups * (groups - 1)  # ordered pairs
    for row in rows:
        counts = totals[row["group"], row["opponent"]]
        assert counts["games"] >= 60
        assert {k: int(row[k]) for k in counts} == counts
        assert float(row["win_rate"]) == pytest.approx(counts["wins"] / counts["games"], rel=1e-5)
        advantage = (counts["wins"] - counts["other_wins"] / (n - 1)) / counts["games"]
        assert float(row["advantage"]) == pytest.approx(advantage, rel=1e-5, abs=1e-6)
        assert (row["beats"] == "True") == (float(row["advantage_low"]) > 0)


@pytest.mark.parametrize("n", [2, 3])
def test_family_intervals_rest_on_the_champions_not_the_pooled_games(run, n):
    """A family's interval against a builtin is the Student-t interval over its two champions'
    win rates (written here with scipy), clipped to [0, 1]; between two builtins it is Wilson's
    over the games; the reference table's differences rest on the champions too."""
    out, _summary = run
    league_rows = {(r["group"], r["opponent"]): r for r in read_csv(out / "tables" / f"league_{n}p.csv")}
    champions = read_csv(out / "tables" / f"champions_{n}p.csv")
    reference = {r["group"]: r for r in read_csv(out / "tables" / f"reference_{n}p.csv")}
    for family in FAMILIES:
        for builtin in BUILTINS:
            row = league_rows[family, builtin]
            rates = np.array(
                [float(c["win_rate"]) for c in champions if c["family"] == family and c["opponent"] == builtin]
            )
            assert row["unit"] == "champions" and len(rates) == 2
            assert float(row["win_rate"]) == pytest.approx(rates.mean(), abs=1e-6)
            if rates[0] == rates[1]:
                assert row["all_equal"] == "True" and float(row["ci_low"]) == float(row["ci_high"])
                continue
            half = stats.t.ppf(0.975, 1) * rates.std(ddof=1) / np.sqrt(2)
            assert float(row["ci_low"]) == pytest.approx(max(0.0, rates.mean() - half), abs=1e-4)
            assert float(row["ci_high"]) == pytest.approx(min(1.0, rates.mean() + half), abs=1e-4)
        assert league_rows[family, FAMILIES[0] if family != FAMILIES[0] else FAMILIES[1]]["unit"] == "champions of both"
        assert reference[family]["unit"] == "champions" and int(reference[family]["units"]) == 2
    row = league_rows["random", "max"]
    low, high = wilson_interval(int(row["wins"]), int(row["games"]))
    assert row["unit"] == "games"
    assert (float(row["ci_low"]), float(row["ci_high"])) == pytest.approx((low, high), abs=1e-4)


@pytest.mark.parametrize("n", [2, 3])
def test_report_numbers_come_from_the_tables(run, n):
    out, summary = run
    league = {(r["group"], r["opponent"]): r for r in read_csv(out / "tables" / f"league_{n}p.csv")}
    reference = {r["group"]: r for r in read_csv(out / "tables" / f"reference_{n}p.csv")}
    report = (out / "report.md").read_text()
    section = report.split(f"\n## {n} players")[1].split("\n## ")[0]
    for family in FAMILIES:
        row = league[family, "prize-rank"]
        win = float(row["win_rate"])
        assert float(reference[family]["vs_reference_win_rate"]) == pytest.approx(win)
        assert pct(win) in section
        entry = next(e for e in summary["reference"][str(n)] if e["group"] == family)
        assert entry["win_rate"] == pytest.approx(win, rel=1e-5)
        # mean over the other builtins, as in the reference table
        others = [b for b in BUILTINS if b != "prize-rank"]
        mean = np.mean([float(league[family, b]["win_rate"]) for b in others])
        ref_mean = np.mean([float(league["prize-rank", b]["win_rate"]) for b in others])
        assert float(reference[family]["difference"]) == pytest.approx(mean - ref_mean, abs=1e-5)
        field = float(league[family, "field"]["win_rate"]) - float(league["prize-rank", "field"]["win_rate"])
        assert float(reference[family]["field_difference"]) == pytest.approx(field, abs=1e-5)
    # the reference row itself is in the table, marked
    assert "| **prize-rank** |" in section


@pytest.mark.parametrize("n", [2, 3])
def test_seen_flags_and_generalisation_summary_follow_the_definition(run, n):
    out, _summary = run
    champions = read_csv(out / "tables" / f"champions_{n}p.csv")
    assert {(r["opponent"], r["seen"]) for r in champions} == {(b, str(b in SEEN)) for b in BUILTINS} | {
        ("field", "False")
    }
    general = read_csv(out / "tables" / f"generalisation_{n}p.csv")
    assert len(general) == len(get_study("vautour").competitors) * 2  # every family, two replicates each
    for row in general:
        mine = [r for r in champions if r["champion"] == row["champion"] and r["opponent"] != "field"]
        unseen = [float(r["advantage"]) for r in mine if r["seen"] == "False"]
        assert float(row["unseen_advantage"]) == pytest.approx(np.mean(unseen), abs=1e-5)
        beats_all = all(r["beats"] == "True" for r in mine if r["seen"] == "True")
        assert row["beats_all_seen"] == str(beats_all)
    summary = read_csv(out / "tables" / f"generalisation_summary_{n}p.csv")
    for family in FAMILIES:
        values = [float(r["unseen_advantage"]) for r in general if r["family"] == family]
        row = next(r for r in summary if r["method"] == family and r["opponent"] == "unseen")
        assert float(row["mean"]) == pytest.approx(np.mean(values), abs=1e-5)


def test_reports_have_no_empty_heading_zero_width_interval_or_unwritten_figure(run):
    out, _summary = run
    for path in [out / "report.md", *(out / f"{n}-players" / "report.md" for n in (2, 3))]:
        assert report_defects(path.read_text(), figures=False) == [], path
    text = (out / "report.md").read_text()
    assert "interval over champions" in text  # the head-to-head claim rests on champions


def _finding(beats_all_seen: dict[str, list[bool]]) -> str:
    general = [{"family": f, "beats_all_seen": b} for f, flags in beats_all_seen.items() for b in flags]
    return trained_against_finding(2, list(beats_all_seen), general)


def test_the_trained_against_finding_never_speaks_of_no_family():
    none = _finding({"MC": [True, False], "FSM": [False, False]})
    assert "of no family" not in none
    assert "in no family does every champion beat" in none and "The champions that do: MC 1 of 2, FSM 0 of 2." in none
    some = _finding({"MC": [True, True], "FSM": [True, False]})
    assert some.startswith("- **2 players, trained-against strategies**: every champion of MC beats")
    assert some.endswith(". In the other families, the champions that do: FSM 1 of 2.")


def test_a_long_list_of_families_is_told_a_few_to_a_sentence():
    families = {f"Family {i}": [True, False] for i in range(13)}
    text = _finding(families)
    assert text.count(". Then ") == 2  # six, six and one
    assert all(f"Family {i} 1 of 2" in text for i in range(13))


def test_the_detectable_advantage_is_none_beyond_the_range_an_advantage_can_take():
    assert detectable([1.0, -1.0]) == "none"  # two champions at the ends: no advantage would be detected
    assert detectable([0.1, 0.12, 0.11, 0.13]) == pp(
        inf.detectable_difference(float(np.std([0.1, 0.12, 0.11, 0.13], ddof=1)) / 2, 0.05, df=3)
    ).replace("+", "")
    assert detectable([0.5, 0.5]) == "–"


def test_a_rerun_resumes_to_the_same_tables_and_a_foreign_folder_is_refused(run, tmp_path, capsys):
    out = Path(shutil.copytree(run[0], tmp_path / "run"))  # the session's run is shared: rerun a copy
    before = {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv")}
    assert main(["study", "vautour", "--scale", "test", "--out", str(out), "--no-figures", "--quiet"]) == 0
    assert {p.name: p.read_bytes() for p in (out / "tables").glob("*.csv")} == before
    marker = (out / SWEEP_MARKER).read_bytes()
    capsys.readouterr()
    assert main(["study", "vautour", "--scale", "test", "--seed", "5", "--out", str(out), "--quiet"]) == 2
    assert "holds another run" in capsys.readouterr().err
    assert (out / SWEEP_MARKER).read_bytes() == marker
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "other.txt").write_text("mine")
    assert main(["study", "vautour", "--scale", "test", "--out", str(mine), "--quiet"]) == 2
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in mine.iterdir()) == ["other.txt"]


def test_unknown_scale_fails_with_one_line_before_writing(capsys, tmp_path):
    target = tmp_path / "new"
    assert main(["study", "vautour", "--scale", "huge", "--out", str(target)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("fsmarena: error:") and "no scale 'huge'" in error and "\n" not in error
    assert not target.exists()


# ---- the definition ---------------------------------------------------------------------------


def test_the_definition_loads_with_its_player_counts_and_reference():
    study = get_study("vautour")
    assert study.sweep == ("players", (2, 3)) and study.options["reference"] == "prize-rank"
    assert study.stages == ("tuning", "crossplay", "league", "exploitability", "cards")
    assert study.report == "player-counts" and study.options["tuning"] == {"opponents": list(SEEN)}
    parts = study.parts()
    assert list(parts) == [2, 3] and parts[3].name == "vautour-3p"
    assert parts[3].game_params == {"state": "buckets", "action_set": "both", "players": "3"}
    assert study.part_folder(Path("DIR"), 2) == Path("DIR") / "2-players"
    assert {name for name, scale in study.scales.items() if "league_games" in scale.options} == {
        "test",
        "quick",
        "paper",
    }
    found = plans(study, "quick")
    assert found[2].fingerprint != found[3].fingerprint
    textbook = {"mc", "sarsa", "q-learning", "fsm", "bda", "mc-on-policy", "expected-sarsa", "double-q-learning"}
    tuned = {"q-learning-tuned", "mc-on-policy-tuned", "fsm-tuned", "bda-tuned"}
    assert {c.name for c in found[2].competitors} == textbook | tuned
    assert {c.name for c in found[2].competitors if c.tune} == tuned


@pytest.mark.parametrize(
    "edit,message",
    [
        (("players = [2, 3]", "players = [1, 3]"), "players must be 2 to 5"),
        (('reference = "prize-rank"', 'reference = "bid-high"'), "must be one of the panel"),
        (("league_games = 60\n", ""), "needs a positive whole number 'league_games'"),
        (("game_params = { state", 'game_params = { players = "2", state'), "not in game_params"),
    ],
)
def test_bad_definitions_are_refused(tmp_path, edit, message):
    """Refused when the definition is read, or (a player count the game does not have) when
    its parts' plans are made, before anything is written."""
    text = DEFINITION.read_text()
    assert edit[0] in text
    path = tmp_path / "vautour.toml"
    path.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(FsmarenaError, match=message):
        plans(load_study_toml(path), "test")


# ---- the league -------------------------------------------------------------------------------


def test_advantage_is_the_net_advantage_with_two_seats():
    for wins, draws, losses in ((30, 5, 15), (0, 10, 0), (7, 0, 93)):
        mine = advantage_interval(wins, losses, wins + draws + losses, 2)
        net = st.net_interval(wins, draws, losses)
        assert mine == pytest.approx(net)
    # three seats: 1 for a sole win, -1/2 for a copy's sole win: (10 - 20/2) / 40 = 0
    mean, low, high = advantage_interval(10, 20, 40, 3)
    assert mean == 0 and low < 0 < high
    assert advantage_interval(40, 0, 40, 3) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("n", [2, 3])
def test_league_counts_on_hand_worked_deterministic_matches(n):
    """Two copies of one deterministic strategy bid alike every turn: every bid is matched, every
    prize discarded, every game a draw at 0.  With three players, max (bidding 15, 14, ...)
    against two copies of min (1, 2, ...) or the other way round: the copies always match each
    other, so the single player holds the only unmatched bid on every turn but the 8th (all bid
    8 then) and takes every other prize, maluses included: 40 minus the 8th prize > 0, a sole
    win every game.  With two players the counts are consistent: B wins whenever A neither wins
    nor shares first place."""
    game = get_game("vautour", {"players": str(n)})
    players = [resolve_player(name, game) for name in ("max", "min", "max")]
    result = league(game, players, ["max", "min", "max again"], 12, np.random.SeedSequence(1), desc=None)
    rows = {(r["group"], r["opponent"]): r for r in group_rows(result, 0)}
    assert rows["max", "min"]["games"] == 12  # one pairing: 12 games, a multiple of the seats
    assert rows["max", "max again"]["draws"] == rows["max", "max again"]["games"] == 12
    assert rows["max", "max again"]["advantage"] == 0
    if n == 3:
        for a, b in (("max", "min"), ("min", "max")):
            assert rows[a, b]["wins"] == 12 and rows[a, b]["other_wins"] == 0 and rows[a, b]["beats"]
    else:
        for row in rows.values():
            assert row["other_wins"] == row["losses"]
    back = LeagueResult.from_json(json.loads(json.dumps(result.to_json())))
    assert back.to_json() == result.to_json()


def test_league_files_with_impossible_counts_are_refused():
    game = get_game("vautour", {"players": "2", "cards": "6"})
    players = [resolve_player(name, game) for name in ("max", "random")]
    data = league(game, players, ["a", "b"], 4, np.random.SeedSequence(2), desc=None).to_json()
    data["other_wins"][0] = data["losses"][0] + 1
    with pytest.raises(FsmarenaError, match="inconsistent counts"):
        LeagueResult.from_json(data)


# ---- the variant methods ----------------------------------------------------------------------


def context(params, game=None, needs=()):
    game = game or get_game("vautour", {"cards": "6", "state": "buckets", "action_set": "both"})
    return MethodContext(game, params, 3, "tester", [], "prize-rank", needs)


def test_train_variant_trains_on_abstract_bids_against_its_opponents_and_plays_in_the_study_game():
    params = {
        "algo": "mc",
        "episodes": 3000,
        "batch": 1000,
        "eval_every": 3000,
        "eval_games": 50,
        "opponents": ["max", "min"],
        "game_params": {"action_set": "abstract"},
    }
    settings = check_method("train-variant", context(params))
    assert settings["opponents"] == ["max", "min"] and settings["opponent"] == "one of max, min per game"
    trained = get_method("train-variant")(context(params))
    table = trained.player.table[0]
    assert table.shape == (6 * 45,) and table.max() < 7, "abstract bids only, over the buckets states"
    assert trained.info["trained_against"] == ["max", "min"]


@pytest.mark.parametrize(
    "method,params,message",
    [
        ("train-variant", {"algo": "mc", "opponent": "max", "opponents": ["min"]}, "not both"),
        ("train-variant", {"algo": "mc", "opponents": ["nobody"]}, "unknown player 'nobody'"),
        ("train-variant", {"algo": "mc", "game_params": {"colour": "red"}}, "unknown parameter 'colour'"),
        ("evolve-variant", {"genome": "bda", "opponents": ["max"]}, "evolution names its opponents"),
        (
            "evolve-variant",
            {"genome": "bda", "protocol": "panel", "game_params": {"players": "9"}},
            "players must be 2 to 5",
        ),
    ],
)
def test_variant_settings_errors_name_the_competitor(method, params, message):
    with pytest.raises(FsmarenaError, match=f"competitor 'tester'.*{message}"):
        check_method(method, context(params))


def test_a_player_that_does_not_fit_the_study_game_fails_loudly():
    params = {
        "algo": "mc",
        "episodes": 200,
        "batch": 100,
        "eval_every": 200,
        "eval_games": 20,
        "game_params": {"state": "no-memory"},
    }
    with pytest.raises(FsmarenaError, match="does not fit the study's game"):
        get_method("train-variant")(context(params))


@pytest.mark.parametrize("counts, told", [((2,), False), ((2, 3), True), ((3,), True)])
def test_what_against_copies_means_is_told_only_where_a_league_has_three_seats_or_more(monkeypatch, counts, told):
    """Copies of one builtin meet only at three seats or more: a two-player study's conclusions do
    not explain them."""
    from types import SimpleNamespace

    import fsmarena.league.layout as sweep_report

    monkeypatch.setattr(sweep_report, "findings", lambda t, analysis: [f"- a finding at {t.n} players"])
    found = SimpleNamespace(built={n: (SimpleNamespace(n=n), None) for n in counts})
    text = sweep_report.conclusions(found)
    assert text.count("- a finding at") == len(counts)
    assert ('"against B" means against copies of B' in text) == told
