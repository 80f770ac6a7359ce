"""The cards stage and section (:mod:`fsmarena.studies.stage_cards`, :mod:`fsmarena.studies.cards_section`):
the best champion and the strongest builtin on synthetic records with a known answer, the stored
summary and game round-tripping exactly (and a damaged one refused in one line), a hand-built
summary's card rows word for word, the card passing the figure check, the section's text and
the same cards from the same seed."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from test_minimise import eight_state_fsm

from fsmarena.errors import FsmarenaError
from fsmarena.evo.strategy_summary import CardRow, Group, StateSummary, StrategySummary, summarise
from fsmarena.evo.summary_json import read_summary, read_transcript, summary_to_json
from fsmarena.evo.transcript import rotated_transcripts
from fsmarena.figures.check import figure_defects
from fsmarena.figures.strategy_card import card_figure
from fsmarena.figures.style import plt, style
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.players import resolve_player
from fsmarena.studies.cards_section import cards_section
from fsmarena.studies.stage_cards import Card, best_replicate, cards_to_json, make_cards, read_cards, strongest_builtin


def record(replicate: int, wins: dict[str, int], games: int = 10, player=None):
    panel = {name: {"wins": w, "games": games} for name, w in wins.items()}
    return SimpleNamespace(
        replicate=replicate, panel=panel, curve_win=[0.1, wins and 0.0 or replicate / 10], player=player
    )


def test_the_best_champion_has_most_wins_against_the_curve_opponent_ties_to_the_lowest():
    records = [record(0, {"a": 3, "b": 9}), record(1, {"a": 7, "b": 0}), record(2, {"a": 7, "b": 1})]
    assert best_replicate(records, "a") == (1, "reference")
    # the curve opponent not on the panel: the mean panel rate (r0: 0.6, r1: 0.35, r2: 0.4)
    assert best_replicate(records, "elsewhere") == (0, "panel")
    assert best_replicate([record(0, {}), record(1, {}), record(2, {})], "x") == (2, "curve")


def test_the_strongest_builtin_is_the_one_the_champions_score_worst_against():
    records = [record(0, {"a": 3, "b": 2, "c": 2}), record(1, {"a": 7, "b": 1, "c": 2})]
    assert strongest_builtin(records) == "b"  # means: a 0.5, b 0.15, c 0.2
    assert strongest_builtin([record(0, {"a": 2, "b": 2})]) == "a"  # a tie: the first on the panel
    assert strongest_builtin([]) == ""


def scored(replicate: int, scores: dict[str, float], games: int = 10):
    """A record of a score-objective game: the panel's summed scores per opponent, no wins."""
    panel = {name: {"wins": 0, "games": games, "score": score} for name, score in scores.items()}
    return SimpleNamespace(replicate=replicate, panel=panel, curve_win=[0.0], player=None)


def test_under_the_score_objective_the_best_champion_and_builtin_go_by_the_mean_panel_score():
    """Iterated prisoner's dilemma: wins say little (tit for tat never wins), the score per turn
    decides. Mean scores per game: r0 (3.0 + 1.0) / 2 = 2.0, r1 (2.5 + 2.5) / 2 = 2.5, r2 2.5 (a
    tie: the lower replicate); against 'a' the champions average 2.67, against 'd' 1.67."""
    records = [scored(0, {"a": 30.0, "d": 10.0}), scored(1, {"a": 25.0, "d": 25.0}), scored(2, {"a": 25.0, "d": 25.0})]
    assert best_replicate(records, "a", "score") == (1, "score")
    assert best_replicate(records, "a") == (0, "reference")  # the ranking objective: no wins, a tie
    assert strongest_builtin(records, "score") == "d"
    assert strongest_builtin(records) == "a"  # no wins anywhere: a tie, the first on the panel


def hand_summary() -> StrategySummary:
    """Two states: S0 plays action 1 in 6 of 8 decisions (situations 0 x4, 1 x2) and 0 in 2,
    moving to S1 after situation 1 twice; S1 always plays action 0."""
    s0 = StateSummary(0, 8, (Group(1, 6, ((0, 4), (1, 2))), Group(0, 2, ((1, 2),))), (Group(1, 2, ((1, 2),)),))
    s1 = StateSummary(1, 3, (Group(0, 3, ((0, 3),)),), ())
    return StrategySummary(
        "table-fsm",
        "hand",
        "dtd",
        "opp_last",
        ["always-large"],
        5,
        11,
        [s0, s1],
        {0: "they bid low", 1: "they bid high"},
        ["low", "high"],
    )


def test_a_hand_built_summarys_card_rows_word_for_word_and_after_a_round_trip():
    summary = hand_summary()
    expected = [
        CardRow(0, "action", 1, 6, 8, "they bid low (67%), they bid high (33%)"),
        CardRow(1, "action", 0, 3, 3, "they bid low (100%)"),
        CardRow(0, "action", 0, 2, 8, "they bid high (100%)"),
        CardRow(0, "move", 1, 2, 8, "they bid high (100%)"),
    ]
    assert summary.rows() == expected
    stored = json.loads(json.dumps(summary_to_json(summary)))
    assert read_summary(stored, "card").rows() == expected


def test_a_played_summary_and_game_round_trip_exactly():
    game = DivideTheDollar()
    rival = resolve_player("always-large", game)
    summary = summarise(eight_state_fsm(), game, [rival], 10, 3)
    back = read_summary(json.loads(json.dumps(summary_to_json(summary))), "card")
    assert back == summary and back.lines() == summary.lines()
    (game_played,) = rotated_transcripts(game, eight_state_fsm(), rival, 1, 3)
    stored = json.loads(json.dumps(game_played.to_dict()))
    assert read_transcript(stored, "game", game.action_names) == game_played


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda s: s["machine_states"][0].update(decisions=-1), "decisions must be a whole number"),
        (lambda s: s["machine_states"][0]["actions"][0].update(key=9), "field 'key' must be between 0 and 1"),
        (lambda s: s.update(decisions=12), "do not add up to 12"),
        (lambda s: s["words"].pop(), "a situation without words"),
    ],
)
def test_a_damaged_summary_is_refused_in_one_line(damage, message):
    stored = json.loads(json.dumps(summary_to_json(hand_summary())))
    damage(stored)
    with pytest.raises(FsmarenaError, match=message) as refused:
        read_summary(stored, "card")
    assert "\n" not in str(refused.value)


def synthetic_data(tmp_path):
    game = DivideTheDollar()
    players = {0: eight_state_fsm(), 1: resolve_player("always-large", game)}
    records = {("fsm", r): record(r, {"always-large": 2 + r, "random": 5}, player=players[r]) for r in (0, 1)}
    competitor = SimpleNamespace(name="fsm", label="FSM", replicates=2)
    plan = SimpleNamespace(
        competitors=[competitor],
        seed=7,
        study=SimpleNamespace(curve_opponent="always-large", title="DTD"),
        competitor=lambda name: competitor,
    )
    family = lambda name: [records[(name, r)] for r in (0, 1)]  # noqa: E731
    return SimpleNamespace(plan=plan, game=game, records=records, family=family, out=tmp_path, stages={})


def test_cards_from_the_same_seed_are_the_same_and_read_back_checked(tmp_path):
    data = synthetic_data(tmp_path)
    first, again = cards_to_json(make_cards(data, 5)), cards_to_json(make_cards(data, 5))
    assert first == again
    (card,) = first
    assert (card["replicate"], card["chosen_by"], card["opponent"]) == (1, "reference", "always-large")
    assert cards_to_json(read_cards(json.loads(json.dumps(first)), "store", data)) == first
    first[0]["replicate"] = 2
    with pytest.raises(FsmarenaError, match="store: card 1: 'replicate' must be one of the family's 2 replicates"):
        read_cards(first, "store", data)


def test_the_section_shows_each_familys_card_and_game_with_its_caption(tmp_path):
    data = synthetic_data(tmp_path)
    data.stages["cards"] = [Card("fsm", "FSM", 1, "reference", "random", hand_summary(), _game(data))]
    results = SimpleNamespace(parts={None: data}, out=tmp_path)
    text = cards_section(results, figures=True)
    assert text.startswith("## Each family's best champion\n")
    assert (
        "Strategy card of FSM's best champion, replicate 1 of 2 (most panel wins against always-large; `fsm/r001`): "
        "what it does in each state, against random, the panel's builtin the champions score worst against; "
        "the shares are counted over 5 games (11 decisions), every seat in turn."
    ) in text
    assert "(figures/card_fsm.png)" in text and (tmp_path / "figures" / "card_fsm.png").exists()
    assert "One game against random (the champion in seat 0" in text
    plain = cards_section(results, figures=False)
    assert "| S0 (start) | 73% | plays **" in plain and "card_fsm.png" not in plain
    assert cards_section(SimpleNamespace(parts={None: synthetic_data(tmp_path)}, out=tmp_path), True) == ""


def _game(data):
    rival = resolve_player("random", data.game)
    (game_played,) = rotated_transcripts(data.game, eight_state_fsm(), rival, 1, 0)
    return game_played


def test_the_card_drawn_from_stored_rows_passes_the_figure_check():
    with style():
        fig = card_figure(read_summary(summary_to_json(hand_summary()), "card"))
        try:
            assert figure_defects(fig) == []
        finally:
            plt.close(fig)


def test_a_studys_policy_map_masks_the_states_met_too_seldom_and_says_so(tmp_path):
    from fsmarena.figures.policy_map import MIN_DECISIONS
    from fsmarena.games.players import TablePolicy
    from fsmarena.studies.analysis import Analysis
    from fsmarena.studies.machines import masked_policy_map

    game = DivideTheDollar()
    policies = [TablePolicy([r % game.n_actions] * game.n_states) for r in (0, 1)]
    data = synthetic_data(tmp_path)
    data.records = {("fsm", r): record(r, {"always-large": r}, player=policies[r]) for r in (0, 1)}
    data.family = lambda name: [data.records[(name, r)] for r in (0, 1)]
    data.kept = None
    data.plan.study.panel = ["always-large"]
    data.plan.scale = SimpleNamespace(panel_games=20)
    analysis = Analysis(labels={"fsm": "FSM"})
    assert masked_policy_map(data, analysis) is None  # no map drawn: none redrawn
    analysis.figures["policy_map"] = []
    (tmp_path / "figures").mkdir()
    drawn = masked_policy_map(data, analysis)
    assert drawn is not None and (tmp_path / "figures" / "policy_map.png").exists()
    assert f"met fewer than {MIN_DECISIONS} times in all in play against always-large" in drawn.caption


def test_a_one_player_games_card_plays_its_own_games_not_the_empty_panels():
    """421 has no panel (its panel games, 1, count nothing): a card from one game was noise."""
    from fsmarena.games import get_game
    from fsmarena.studies.stage_cards import CARD_GAMES, _games

    def context(game, panel_games):
        data = SimpleNamespace(game=game, plan=SimpleNamespace(scale=SimpleNamespace(panel_games=panel_games)))
        return SimpleNamespace(data=data)

    assert _games(context(get_game("421"), 1)) == CARD_GAMES
    assert _games(context(DivideTheDollar(), 60)) == 60
    assert _games(context(DivideTheDollar(), 10_000)) == CARD_GAMES


def test_an_action_name_of_nineteen_characters_ends_before_its_share():
    """421's `reroll_high_middle` ran into its share column."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    long = "x" * 19
    summary = hand_summary()
    summary.actions[1] = long
    with style():
        fig = card_figure(summary)
        FigureCanvasAgg(fig).draw()
        renderer = fig.canvas.get_renderer()
        texts = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.axes[0].texts]
        plt.close(fig)
    name = next(box for text, box in texts if text == long)
    share = next(box for text, box in texts if text == "75%" and abs(box.y0 - name.y0) < 1)
    assert name.x1 < share.x0
