"""The Axelrod-tournament stage (:mod:`fsmarena.games.ipd.axelrod_stage`): champions ranked in
Axelrod's own tournament beside its strategies, a round robin on fsmarena's engine without the
extra, the stored result validated, the same seed the same tournament."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from cli_helpers import cli

from fsmarena.errors import FsmarenaError
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.ipd import axelrod_stage as stage_axelrod
from fsmarena.games.ipd.axelrod_stage import TournamentResult, family_rows, run_axelrod
from fsmarena.games.ipd.bridge import export_axelrod
from fsmarena.games.ipd.game import IpdConfig, IteratedPrisonersDilemma
from fsmarena.games.players import TablePolicy

axl = pytest.importorskip("axelrod")

GAME = IteratedPrisonersDilemma(IpdConfig(turns=200))
#: tit for tat as a one-state table FSM over opp_last (start C, after C C, after D D)
TFT_FSM = TableFSM(np.zeros((1, 3), dtype=np.int64), np.array([[0, 0, 1]]), "opp_last", label="tft")
#: tit for tat as a memory-one table policy: start C, then the opponent's last move
#: (state 1 + 2 * own + opponent's: CC, CD, DC, DD)
TFT_POLICY = TablePolicy(np.array([0, 0, 1, 0, 1]), label="tft-policy")
FIELD = {"axelrod_strategies": ["Tit For Tat", "Defector", "Cooperator", "Grudger", "Random"], "axelrod_repetitions": 2}


def _champions(*players):
    return list(players), [f"c/r{i:03d}" for i in range(len(players))], ["C"] * len(players)


def test_a_tit_for_tat_champion_scores_and_ranks_as_axelrods_tit_for_tat():
    """In a deterministic field the two tit-for-tat champions play every match as Axelrod's own."""
    deterministic = {**FIELD, "axelrod_strategies": FIELD["axelrod_strategies"][:-1]}
    result = run_axelrod(axl, GAME, _champions(TFT_FSM, TFT_POLICY), deterministic, seed=5)
    mean = {name: float(np.mean(s)) for name, s in zip(result.names, result.scores)}
    rank = dict(zip(result.names, result.ranks))
    assert mean["c/r000"] == pytest.approx(mean["Tit For Tat"]) == pytest.approx(mean["c/r001"])
    medians = [float(np.median(s)) for s in result.scores]

    def place(name):  # how many entrants score strictly better: the rank up to ties
        return sum(m > medians[result.names.index(name)] + 1e-12 for m in medians)

    assert place("c/r000") == place("c/r001") == place("Tit For Tat")
    best_of_tie = min(rank[n] for n in ("c/r000", "c/r001", "Tit For Tat"))
    assert best_of_tie == place("Tit For Tat") + 1
    assert {"Evolved FSM 16", "Evolved FSM 4"} <= set(result.names)


def test_the_memory_one_export_plays_like_the_policy():
    machine = stage_axelrod._axelrod_player(axl, export_axelrod(GAME, TFT_POLICY), "x")
    match = axl.Match((machine, axl.Alternator()), turns=12)
    match.play()
    reference = axl.Match((axl.TitForTat(), axl.Alternator()), turns=12)
    reference.play()
    assert match.result == reference.result


def test_the_same_seed_gives_the_same_tournament_and_another_seed_another():
    one = run_axelrod(axl, GAME, _champions(TFT_FSM), FIELD, seed=11)
    two = run_axelrod(axl, GAME, _champions(TFT_FSM), FIELD, seed=11)
    other = run_axelrod(axl, GAME, _champions(TFT_FSM), FIELD, seed=12)
    parallel = run_axelrod(axl, GAME, _champions(TFT_FSM), FIELD, seed=11, jobs=2)
    assert one == two == parallel and one.scores != other.scores  # Random differs


class _Record:
    def __init__(self, player):
        self.player = player


class _Data:
    """The little of a study's data the stage reads: a plan of one family, its champions, a folder."""

    def __init__(self, out, players):
        competitor = type("Competitor", (), {"name": "c", "label": "C", "replicates": len(players)})()
        self.plan = type("Plan", (), {"competitors": [competitor], "seed": 3})()
        self.game, self.out, self.players = GAME, out, players

    def family(self, name):
        return [_Record(p) for p in self.players]


def test_without_axelrod_the_stage_plays_a_round_robin_on_fsmarenas_engine(monkeypatch, tmp_path):
    real = importlib.import_module

    def no_axelrod(name, *args):
        if name == "axelrod":
            raise ModuleNotFoundError("No module named 'axelrod'", name="axelrod")
        return real(name, *args)

    monkeypatch.setattr(stage_axelrod.importlib, "import_module", no_axelrod)
    scale = type("Scale", (), {"options": {"axelrod_strategies": ["Tit For Tat"], "axelrod_repetitions": 2}})()
    study = type("Study", (), {"scales": {"test": scale}})()
    ctx = type("Ctx", (), {"study": study, "scale": "test", "data": _Data(tmp_path, [TFT_FSM]), "jobs": 1})()
    ctx.log = lambda message: None
    result = stage_axelrod._run(ctx)
    assert result.engine == "fsmarena" and (tmp_path / "raw" / "axelrod.json").exists()
    assert stage_axelrod._run(ctx) == result  # the cached file, read back and validated
    mean = {name: float(np.mean(s)) for name, s in zip(result.names, result.scores)}
    assert len(result.names) == 1 + len(GAME.builtin_players()) and result.names[0] == "c/r000"
    assert mean["defector"] > mean["cooperator"]
    assert "evolved-fsm-16" in result.names


def test_family_rows_average_champions_with_a_replicate_interval():
    result = TournamentResult(
        "axelrod", ["a/r0", "a/r1", "a/r2", "x"], ["A", "A", "A", "x"], [[1.0], [2.0], [3.0], [2.5]], [4, 2, 1, 3]
    )

    class Plan:
        competitors = [type("C", (), {"label": "A"})()]

    rows = {row["group"]: row for row in family_rows(result, Plan())}
    a = rows["A"]
    assert a["score_per_turn"] == pytest.approx(2.0) and a["median_rank"] == 2 and a["best_rank"] == 1
    half = 4.302652729911275 * 1.0 / np.sqrt(3)  # t(0.975, 2) * sd / sqrt(n)
    assert (a["low"], a["high"]) == pytest.approx((2.0 - half, 2.0 + half))
    assert rows["x"]["family"] is False and a["family"] is True


@pytest.mark.parametrize(
    "change, message",
    [
        ({"engine": "nash"}, "unknown engine"),
        ({"ranks": [1, 1]}, "ranks"),
        ({"names": ["other/r000", "x"]}, "champions"),
        ({"scores": [[1.0], ["a"]]}, "numbers"),
        ({"scores": [[1.0], []]}, "finite"),
    ],
)
def test_a_damaged_result_is_refused(change, message):
    class Competitor:
        name, label, replicates = "c", "C", 1

    ctx = type("Ctx", (), {"data": type("D", (), {"plan": type("P", (), {"competitors": [Competitor()]})()})()})()
    raw = {
        "engine": "axelrod",
        "turns": 200,
        "names": ["c/r000", "x"],
        "groups": ["C", "x"],
        "scores": [[1.0], [2.0]],
        "ranks": [2, 1],
    }
    assert stage_axelrod._read(raw, "file", ctx).ranks == [2, 1]
    with pytest.raises(FsmarenaError, match=message):
        stage_axelrod._read({**raw, **change}, "file", ctx)


def test_the_ipd_study_declares_the_stage_and_its_scales():
    from fsmarena.studies.catalogue import get_study

    study = get_study("ipd")
    assert "axelrod" in study.stages
    assert study.scales["test"].options["axelrod_repetitions"] == 1
    assert "ipd.toml" in str(study.source)


def test_the_ipd_study_runs_at_test_scale_with_the_tournament_in_its_report(tmp_path):
    out = tmp_path / "study"
    code, _ = cli("study", "ipd", "--scale", "test", "--out", str(out), "--json", "--quiet", "--no-figures")
    assert code == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## The Axelrod tournament" in report and "Evolved FSM 16" in report
    raw = stage_axelrod.read_json(out / "raw" / "axelrod.json", "tournament")
    assert raw["engine"] == "axelrod" and raw["names"][0] == "fsm/r000"
    assert (out / "axelrod_tournament.csv").read_text(encoding="utf-8").startswith("group,family")


def test_the_pages_table_shows_the_families_harpers_machines_and_the_ten_best_others():
    """342 entrants make a table no one reads: the page keeps every family, Harper et al.'s
    machines wherever they rank and the TOP best of the rest (the CSV keeps every row)."""
    from fsmarena.games.ipd.axelrod_section import TOP, shown

    def row(group, family=False):
        return {"group": group, "family": family}

    rows = [row(f"S{k}") for k in range(TOP + 5)]
    rows.insert(3, row("FSM", True))
    rows.append(row("Evolved FSM 16 Noise 05"))
    rows.append(row("MC", True))
    kept = [r["group"] for r in shown(rows)]
    assert kept == [
        *(f"S{k}" for k in range(3)),
        "FSM",
        *(f"S{k}" for k in range(3, TOP)),
        "Evolved FSM 16 Noise 05",
        "MC",
    ]
