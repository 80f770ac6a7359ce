"""Strategy summaries and cards: a hand-built machine's summary word for word, the counts
against the usage counter (a second, independent count of the same games), every player kind
through ``inspect`` and ``draw --card``, the generic words of a game without phrases, and the
card's rows and colours."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.evo.bda import BinaryDecisionAutomaton
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.strategy_summary import StrategySummary, summarise
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.evo.usage import measure_usage
from fsmarena.figures.strategy_card import MAX_COLOURS, MAX_ROWS, colour_key, shown_rows
from fsmarena.figures.style import OKABE_ITO
from fsmarena.games.dice421.game import Dice421
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy, save_player

DTD = DivideTheDollar()


def thrower(game: Dice421) -> TableFSM:
    """Over ``throws_left``, worked by hand: every 421 game is three decisions, 2, 1 and 0
    throws left.  S0 rerolls everything and moves to S1, S1 rerolls the two highest and moves
    to S2, S2 stops and moves back to S0; an input a state never meets stops and stays."""
    stop, every, two_highest = (game.action_names.index(a) for a in ("keep_all", "reroll_all", "reroll_high_middle"))
    return TableFSM(
        [[0, 0, 1], [1, 2, 1], [0, 2, 2]],
        [[stop, stop, every], [stop, two_highest, stop], [stop, stop, stop]],
        inputs="throws_left",
        label="thrower",
    )


def test_a_hand_built_machine_is_summarised_word_for_word():
    game = Dice421()
    summary = summarise(thrower(game), game, games=4, seed=3)
    assert summary.lines() == [
        "strategy of table-fsm 'thrower' (421) in 4 games alone",
        "  situations: 'throws_left'; 12 decisions",
        "  S0 (start): 33% of decisions",
        "    reroll_all 100%: 2 throws left (100%)",
        "    -> S1 always",
        "  S1: 33% of decisions",
        "    reroll_high_middle 100%: 1 throw left (100%)",
        "    -> S2 always",
        "  S2: 33% of decisions",
        "    keep_all 100%: no throw left (100%)",
        "    -> S0 always",
        "  actions:",
        "    keep_all: stop",
        "    reroll_high_middle: reroll the two highest",
        "    reroll_all: reroll every die",
    ]


def test_fsm_counts_are_those_of_the_usage_counter():
    """Two counts of the same games: the summary's groups are the usage counter's (state,
    input) entries, gathered by the action the table plays and the state it moves to."""
    spec = genome_spec(DTD, "fsm", states=3, inputs="index+opp_last")
    fsm = spec.player(spec.random(np.random.default_rng(4), 1))
    panel = [RandomPlayer(), FixedActionPlayer(LARGE_MAX)]
    summary = summarise(fsm, DTD, panel, games=6, seed=9)
    usage = measure_usage(fsm, DTD, panel, games=6, seed=9)
    action, target = fsm.action[0], fsm.next_state[0]
    assert summary.decisions == usage.decisions and summary.games == usage.games == 24
    for state in summary.states:
        entries = usage.entries[state.state]
        assert state.decisions == usage.visits[state.state]
        for group in state.actions:
            expected = {x: int(entries[x]) for x in np.flatnonzero(entries) if action[state.state, x] == group.key}
            assert dict(group.inputs) == expected and group.count == sum(expected.values())
        for group in state.moves:
            expected = {x: int(entries[x]) for x in np.flatnonzero(entries) if target[state.state, x] == group.key}
            assert dict(group.inputs) == expected and group.key != state.state
    assert sum(s.decisions for s in summary.states) == usage.decisions


def test_bda_decisions_begin_where_the_usage_counter_says_and_its_features_are_spelled_out():
    spec = genome_spec(DTD, "bda", states=4)
    bda = spec.player(spec.random(np.random.default_rng(2), 1))
    assert isinstance(bda, BinaryDecisionAutomaton)
    summary = summarise(bda, DTD, [RandomPlayer()], games=5, seed=1)
    usage = measure_usage(bda, DTD, [RandomPlayer()], games=5, seed=1)
    assert {s.state: s.decisions for s in summary.states} == {s: int(v) for s, v in enumerate(usage.visits) if v}
    tested = {DTD.feature_names[bda.genes[0][s.state, 0]] for s in summary.states}
    assert set(summary.legend) == tested
    for state in summary.states:
        assert f"    tests {summary.tests[state.state]} first" in summary.lines()
    assert summary.legend.get("Ttl", "value of the card showing (0 when leading)").startswith("value of the card")
    assert "  features:" in summary.lines()


def test_players_without_states_have_one_state_and_a_fixed_player_one_action():
    fixed = summarise(FixedActionPlayer(SMALL_SPOIL), DTD, [RandomPlayer()], games=3)
    (state,) = fixed.states
    assert state.state == 0 and [g.key for g in state.actions] == [SMALL_SPOIL] and state.moves == ()
    table = np.full(DTD.n_states, MEDIAN)
    table[DTD.n_states - 1] = LARGE_MAX  # leading with three 3/4: the policy leads the largest
    policy = summarise(TablePolicy(table), DTD, [RandomPlayer()], games=20, seed=2)
    groups = {g.key: g for g in policy.states[0].actions}
    assert set(groups) <= {MEDIAN, LARGE_MAX}
    if LARGE_MAX in groups:
        assert groups[LARGE_MAX].inputs == ((DTD.n_states - 1, groups[LARGE_MAX].count),)
        assert policy.words[DTD.n_states - 1] == "leading; hand 3/4-3/4-3/4"


def test_a_game_without_phrases_names_each_input_by_its_number_and_label(monkeypatch):
    monkeypatch.setattr(DivideTheDollar, "phrases", "")
    summary = summarise(FixedActionPlayer(MEDIAN), DTD, [RandomPlayer()], games=2)
    for code, words in summary.words.items():
        assert words == f"input {code} ({DTD.state_label(code)})"
    assert summary.meanings == {}


def _summary_with(rows: int) -> StrategySummary:
    """A summary of ``rows`` one-action states, state k taking k + 1 decisions."""
    from fsmarena.evo.strategy_summary import Group, StateSummary

    states = [StateSummary(k, k + 1, (Group(k % 3, k + 1, ((0, k + 1),)),), ()) for k in range(rows)]
    total = sum(s.decisions for s in states)
    return StrategySummary("table-fsm", "m", "dtd", "index", [], 1, total, states, {0: "x"}, list(DTD.action_names))


def test_a_card_shows_at_most_a_dozen_rows_and_counts_the_rest():
    rows, other = shown_rows(_summary_with(MAX_ROWS))
    assert len(rows) == MAX_ROWS and other == ""
    summary = _summary_with(20)
    rows, other = shown_rows(summary)
    assert len(rows) == MAX_ROWS - 1  # the last row says what is left out
    hidden = sum(range(1, 21)) - sum(r.count for r in rows)
    assert other == f"other: 9 rows, {hidden / summary.decisions:.0%} of decisions"
    assert [r.count for r in rows] == sorted((r.count for r in rows), reverse=True)


def test_card_colours_are_okabe_ito_and_grouped_with_words_beyond_seven_actions():
    names = [f"bid_{k}" for k in range(1, 16)]
    colours, key = colour_key(range(MAX_COLOURS), names)
    assert len(set(colours.values())) == MAX_COLOURS and set(colours.values()) <= set(OKABE_ITO)
    colours, key = colour_key(range(15), names)
    assert len(set(colours.values())) == 3 and set(colours.values()) <= set(OKABE_ITO)
    assert [words for _c, words in key] == ["low: bid_1 to bid_5", "middle: bid_6 to bid_10", "high: bid_11 to bid_15"]


def _kinds(tmp_path) -> dict[str, object]:
    rng = np.random.default_rng(3)
    files = {}
    players = {
        "table-fsm": genome_spec(DTD, "fsm", states=3, inputs="opp_last").player(
            genome_spec(DTD, "fsm", states=3, inputs="opp_last").random(rng, 1)
        ),
        "bda": genome_spec(DTD, "bda", states=3).player(genome_spec(DTD, "bda", states=3).random(rng, 1)),
        "table-policy": TablePolicy(rng.integers(0, DTD.n_actions, DTD.n_states)),
        "builtin": DTD.builtin_players()["always-median"](),
        "fixed-action": FixedActionPlayer(LARGE_MAX),
        "random": RandomPlayer(),
    }
    for kind, player in players.items():
        files[kind] = tmp_path / f"{kind}.json"
        save_player(player, DTD, files[kind])
    return files


def test_every_player_kind_is_inspected_and_drawn_as_a_card(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FSMARENA_DRAWINGS", str(tmp_path / "drawings.json"))
    for kind, path in _kinds(tmp_path).items():
        code, out, err = run_cli(capsys, "inspect", path, "--games", 2, "--panel", "random")
        assert code == 0 and not err, kind
        assert f"strategy of {kind} " in out and "  S0 (start): " in out, kind
        card = tmp_path / f"{kind}-card.png"
        code, out, err = run_cli(capsys, "draw", path, "--card", "--games", 2, "--panel", "random", "--out", card)
        assert code == 0 and card.stat().st_size > 0, kind
        data = json.loads(run_cli(capsys, "inspect", path, "--games", 1, "--json")[1])
        assert str(card) in data["drawings"]["found"], kind
        assert data["strategy"]["states"][0]["state"] == "S0"
    # a kind without a graph is drawn as its card without --card
    code, out, _ = run_cli(capsys, "draw", tmp_path / "builtin.json", "--games", 2, "--out", tmp_path / "b.png")
    assert code == 0 and out.startswith("strategy card of builtin")
    assert (
        run_cli(capsys, "draw", tmp_path / "random.json", "--card", "--games", 0, "--out", tmp_path / "r.png")[0] == 2
    )


@pytest.mark.parametrize("rows", [3, 20])
def test_a_card_fits_one_column(rows, tmp_path):
    from fsmarena.figures.strategy_card import card_figure
    from fsmarena.figures.style import COLUMN_WIDTH, plt, style

    with style():
        fig = card_figure(_summary_with(rows))
        try:
            assert fig.get_figwidth() <= COLUMN_WIDTH + 1e-9
            fig.canvas.draw()
            right = max(t.get_window_extent().x1 for t in fig.axes[0].texts)
            assert right <= fig.get_figwidth() * fig.dpi  # no text runs off the card
            assert len([t for t in fig.axes[0].texts if t.get_text().startswith("S")]) <= MAX_ROWS
        finally:
            plt.close(fig)


def test_a_share_is_never_printed_as_zero_when_something_happened():
    """0.5% rounds half to even, to '0%': a share of a count that is not zero says '<1%'."""
    from fsmarena.text import percent

    assert [percent(0, 200), percent(1, 200), percent(1, 1000), percent(3, 200), percent(200, 200)] == [
        "never",
        "<1%",
        "<1%",
        "2%",
        "100%",
    ]
