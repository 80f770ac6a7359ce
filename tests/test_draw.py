"""Machine graphs: reachable states, merged and labelled edges, and the draw command's files."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from fsmarena.cli import main
from fsmarena.evo.bda import BinaryDecisionAutomaton
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.figures.machine_graph import machine_graph, to_dot
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.players import TablePolicy, save_player

GAME = DivideTheDollar()


def hand_bda():
    """S0: Coop > 0.412, T: large_max -> S2, F: median -> S2 (one merged edge).
    S1: unreachable.  S2: Ttl < 0.5, T: small_spoil -> S2 (loop), F: median -> S0."""
    return BinaryDecisionAutomaton(
        np.array(
            [
                [4, 0, 412, LARGE_MAX, 2, MEDIAN, 2],
                [0, 2, 100, SMALL_SPOIL, 0, SMALL_SPOIL, 1],
                [0, 1, 500, SMALL_SPOIL, 2, MEDIAN, 0],
            ]
        ),
        label="hand",
    )


def hand_fsm():
    """Over opp_last (none, 1/4, 1/2, 3/4).  S0: to S1 on none and 1/4, stays on 1/2 and 3/4.
    S1: back to S0 on everything.  S2: unreachable."""
    next_state = [[1, 1, 0, 0], [0, 0, 0, 0], [2, 2, 2, 2]]
    action = [[SMALL_SPOIL, MEDIAN, LARGE_MAX, LARGE_MAX], [MEDIAN] * 4, [SMALL_SPOIL] * 4]
    return TableFSM(next_state, action, inputs="opp_last", label="hand")


def test_bda_graph_has_reachable_states_with_tests_and_branch_edges():
    graph = machine_graph(hand_bda(), GAME)
    assert sorted(graph.nodes) == [0, 2]
    assert graph.nodes[0]["test"] == "Coop > 0.412" and graph.nodes[2]["test"] == "Ttl < 0.500"
    assert graph.nodes[0]["label"] == "S0 (start)"
    assert {(s, t): d["label"] for s, t, d in graph.edges(data=True)} == {
        (0, 2): "T: large_max / F: median",
        (2, 2): "T: small_spoil",
        (2, 0): "F: median",
    }
    assert graph.edges[0, 2]["branch"] == "both" and graph.edges[2, 0]["branch"] == "false"


def test_fsm_graph_merges_inputs_per_move_and_names_them():
    graph = machine_graph(hand_fsm(), GAME)
    assert sorted(graph.nodes) == [0, 1]
    labels = {(s, t): d["label"] for s, t, d in graph.edges(data=True)}
    assert labels == {
        (0, 1): "opp: none / small_spoil\nopp: 1/4 / median",
        (0, 0): "opp: 1/2 / large_max\nopp: 3/4 / large_max",
        (1, 0): "opp: none / median\nopp: 1/4 / median\nopp: 1/2 / median\nopp: 3/4 / median",
    }
    assert graph.edges[1, 0]["transitions"] == 4


def test_dot_text_names_every_state_and_edge():
    dot = to_dot(machine_graph(hand_bda(), GAME))
    assert dot.startswith('digraph "hand" {') and dot.rstrip().endswith("}")
    assert '0 [label="S0 (start)\\nCoop > 0.412", peripheries=2];' in dot
    assert '0 -> 2 [label="T: large_max / F: median", style=bold];' in dot
    assert '2 -> 0 [label="F: median", style=dashed];' in dot
    assert " 1 [" not in dot and "-> 1 " not in dot


@pytest.mark.parametrize("make", [hand_bda, hand_fsm])
def test_draw_writes_every_format(capsys, tmp_path, make):
    player_file = tmp_path / "machine.json"
    save_player(make(), GAME, player_file)
    for suffix in ("png", "svg", "pdf", "dot", "graphml"):
        out = tmp_path / f"machine.{suffix}"
        assert main(["draw", str(player_file), "--out", str(out)]) == 0
        assert out.stat().st_size > 100
    assert (tmp_path / "machine.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "machine.pdf").read_bytes()[:5] == b"%PDF-"
    assert "<svg" in (tmp_path / "machine.svg").read_text()
    back = nx.read_graphml(tmp_path / "machine.graphml")
    expected = machine_graph(make(), GAME)
    assert sorted(back.nodes) == sorted(str(n) for n in expected.nodes)
    assert {(s, t): d["label"] for s, t, d in back.edges(data=True)} == {
        (str(s), str(t)): d["label"] for s, t, d in expected.edges(data=True)
    }
    assert "2 reachable states" in capsys.readouterr().out


def test_draw_refuses_bad_input_with_one_line(capsys, tmp_path):
    machine = tmp_path / "machine.json"
    save_player(hand_bda(), GAME, machine)
    policy = tmp_path / "policy.json"
    save_player(TablePolicy(np.zeros(GAME.n_states, dtype=int)), GAME, policy)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format_version": 1, "kind": "bda", "game": "dtd", "states": [{"feature": "Ttl"}]}')
    cases = [
        ([str(machine), "--out", str(tmp_path / "m.jpg")], "--out must end in"),
        ([str(policy), "--minimise", "--out", str(tmp_path / "p.png")], "--minimise needs a table-fsm or bda"),
        ([str(policy), "--card", "--out", str(tmp_path / "p.dot")], "a strategy card is a figure"),
        ([str(broken), "--out", str(tmp_path / "b.png")], "missing field 'test'"),
        ([str(tmp_path / "none.json"), "--out", str(tmp_path / "n.png")], "does not exist"),
    ]
    for argv, message in cases:
        assert main(["draw", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "machine.json", "policy.json"]


# ---- usage-weighted drawings, minimal machines, legible tables ---------------------------------


def evolved_like_fsm(inputs="index", states=4, seed=5):
    """A random machine of the size the dtd study evolves (4 states over 40 inputs)."""
    from fsmarena.evo.genome import genome_spec

    spec = genome_spec(GAME, "fsm", states, inputs)
    return spec.player(spec.random(np.random.default_rng(seed), 1), label="big")


def test_graph_with_usage_carries_visits_and_uses():
    from fsmarena.evo.usage import measure_usage

    for machine in (hand_fsm(), hand_bda(), evolved_like_fsm()):
        usage = measure_usage(machine, GAME, games=20)
        graph = machine_graph(machine, GAME, usage)
        assert graph.graph["decisions"] == usage.decisions
        assert sum(d["visits"] for _n, d in graph.nodes(data=True)) == usage.decisions
        assert sum(d["uses"] for _s, _t, d in graph.edges(data=True)) == usage.transitions.sum()
    # the hand BDA's S2 tests Ttl < 0.5 and loops on itself when it holds
    usage = measure_usage(hand_bda(), GAME, games=20)
    graph = machine_graph(hand_bda(), GAME, usage)
    assert graph.edges[2, 2]["uses"] == usage.entries[2, 0]


def _overlaps(boxes):
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("inputs, shown", [("index", 40), ("index+opp_last", 48)])
def test_table_text_of_a_study_sized_machine_never_overlaps(inputs, shown):
    """The table of a 4-state FSM over 40 (or 160) inputs: one row per input met in play (at
    most 48), row labels apart from each other and every cell's text inside its cell."""
    from fsmarena.evo.usage import measure_usage
    from fsmarena.figures.machine_drawing import machine_figure
    from fsmarena.figures.style import plt, style

    machine = evolved_like_fsm(inputs)
    usage = measure_usage(machine, GAME, games=50)
    with style():
        fig = machine_figure(machine_graph(machine, GAME, usage), "", machine, GAME, usage)
        try:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            table_ax = fig.axes[1]
            labels = [t for t in table_ax.get_yticklabels() if t.get_text()]
            assert len(labels) == min(shown, np.count_nonzero(usage.inputs))
            assert not _overlaps([t.get_window_extent(renderer).padded(-0.5) for t in labels])
            cells = [t for t in table_ax.texts]
            assert len(cells) == 4 * len(labels)
            row_height = table_ax.get_window_extent(renderer).height / len(labels)
            column_width = table_ax.get_window_extent(renderer).width / 4
            for text in cells:
                box = text.get_window_extent(renderer)
                assert box.height < row_height and box.width < column_width
            assert fig.get_tightbbox(renderer).width <= 3.5
        finally:
            plt.close(fig)


def test_draw_minimise_draws_the_minimal_machine(capsys, tmp_path):
    """States 1 and 2 of this machine are copies: the minimal drawing has two states."""
    machine = TableFSM(
        [[1, 2, 1, 2], [0, 0, 0, 0], [0, 0, 0, 0]],
        [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4, [MEDIAN] * 4],
        inputs="opp_last",
        label="copies",
    )
    player_file = tmp_path / "machine.json"
    save_player(machine, GAME, player_file)
    assert main(["draw", str(player_file), "--out", str(tmp_path / "full.dot"), "--games", "0"]) == 0
    assert "3 reachable states" in capsys.readouterr().out
    assert main(["draw", str(player_file), "--out", str(tmp_path / "min.graphml"), "--minimise"]) == 0
    assert "2 reachable states" in capsys.readouterr().out
    graph = nx.read_graphml(tmp_path / "min.graphml")
    assert sorted(graph.nodes) == ["0", "1"]
    assert sum(int(d["visits"]) for _n, d in graph.nodes(data=True)) == int(graph.graph["decisions"])
    assert main(["draw", str(player_file), "--out", str(tmp_path / "min.png"), "--minimise", "--panel", "random"]) == 0
    assert main(["draw", str(player_file), "--out", str(tmp_path / "x.png"), "--games", "-1"]) == 2
    assert "must be zero or more" in capsys.readouterr().err


@pytest.mark.parametrize("game_name", ["dtd", "thirtyone"])
def test_bda_table_lines_fit_a_column(game_name):
    """A BDA over the game's longest feature and action names: no two texts of the table
    overlap and the whole figure stays one column wide."""
    from fsmarena.evo.genome import genome_spec
    from fsmarena.evo.usage import measure_usage
    from fsmarena.figures.machine_drawing import feature_legend_lines, machine_figure
    from fsmarena.figures.style import plt, style
    from fsmarena.games.phrases import feature_words
    from fsmarena.games.registry import entry, resolve

    game = resolve(entry(game_name).game, "game")()
    spec = genome_spec(game, "bda", 8)
    genes = spec.random(np.random.default_rng(2), 1)
    genes[0, :, 0] = np.argmax([len(name) for name in game.feature_names])  # the longest feature
    machine = spec.player(genes)
    usage = measure_usage(machine, game, games=5)
    with style():
        fig = machine_figure(machine_graph(machine, game, usage), "", machine, game, usage)
        try:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            boxes = [t.get_window_extent(renderer) for t in fig.axes[1].texts]
            legend = feature_legend_lines(machine_graph(machine, game), machine, game)
            assert len(boxes) == 4 * (len(machine_graph(machine, game).nodes) + 1) + len(legend)
            assert not _overlaps(boxes)
            longest = max(game.feature_names, key=len)  # spelled out under the table
            assert f"{longest}: {feature_words(game, longest)}" in " ".join(legend)
            assert fig.get_tightbbox(renderer).width <= 3.5
        finally:
            plt.close(fig)


# ---- any size within the limits -----------------------------------------------------------------


def ring_fsm(states: int, seed: int = 0) -> TableFSM:
    """A table FSM over opp_last with every state reachable (input 'none' steps round a ring)
    and random moves on the other inputs."""
    rng = np.random.default_rng(seed)
    next_state = rng.integers(0, states, size=(states, 4))
    next_state[:, 0] = (np.arange(states) + 1) % states
    return TableFSM(next_state, rng.integers(0, 3, size=(states, 4)), inputs="opp_last", label=f"ring {states}")


def _state_names(fig) -> list:
    """The texts inside the graph's states (their names: 'S0', 'S12\n3%' ...)."""
    return [t for t in fig.axes[0].texts if t.get_text().startswith("S")]


def _look_edges(largest: int) -> set[int]:
    """The state counts the default run draws: 1, 2, ``largest`` and both sides of every change
    of look (one column, two-line names, a font under 4 points); the other counts of 1 to
    ``largest`` run with the slow tests."""
    from fsmarena.figures.machine_layout import graph_look

    def look(states: int) -> tuple[bool, bool, bool]:
        found = graph_look(states)
        return found.edge_labels, found.shares, found.font < 4.0

    changes = {s for s in range(2, largest + 1) if look(s) != look(s - 1)}
    return {1, 2, largest} | changes | {s - 1 for s in changes}


_LOOK_EDGES = _look_edges(64)


@pytest.mark.parametrize(
    "states", [s if s in _LOOK_EDGES else pytest.param(s, marks=pytest.mark.slow) for s in range(1, 65)]
)
def test_machines_of_1_to_64_states_draw_with_states_apart_and_named(states):
    """Every state drawn, named, inside the figure and apart from its neighbours: no two
    states' circles nor names overlap, and the figure is at most a page wide."""
    from matplotlib.patches import Circle

    from fsmarena.figures.machine_drawing import machine_figure
    from fsmarena.figures.machine_layout import graph_look
    from fsmarena.figures.style import plt, style

    machine = ring_fsm(states)
    graph = machine_graph(machine, GAME)
    assert graph.number_of_nodes() == states
    with style():
        fig = machine_figure(graph, "", None, None, None)
        try:
            fig.canvas.draw()
            renderer = fig.canvas.get_renderer()
            circles = [p for p in fig.axes[0].patches if isinstance(p, Circle)]
            assert len(circles) == states
            centres = np.array([c.center for c in circles])
            radius = graph_look(states).node_radius
            gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.eye(states) * 9
            assert gaps.min() > 2 * radius
            names = _state_names(fig)
            assert sorted(t.get_text() for t in names) == sorted(f"S{s}" for s in range(states))
            assert not _overlaps([t.get_window_extent(renderer) for t in names])
            assert min(t.get_fontsize() for t in names) >= 3
            assert fig.get_tightbbox(renderer).width <= 7.1
        finally:
            plt.close(fig)


@pytest.mark.parametrize("kind, states", [("fsm", 32), pytest.param("bda", 64, marks=pytest.mark.slow)])
def test_draw_command_draws_large_machines_with_their_tables(capsys, tmp_path, kind, states):
    """Machines past the old limit of about 18 states, through the command with usage and table."""
    from fsmarena.evo.genome import genome_spec

    spec = genome_spec(GAME, kind, states, "opp_last") if kind == "fsm" else genome_spec(GAME, kind, states)
    player_file = tmp_path / "big.json"
    save_player(spec.player(spec.random(np.random.default_rng(3), 1)), GAME, player_file)
    assert main(["draw", str(player_file), "--out", str(tmp_path / "big.png"), "--games", "10"]) == 0
    assert "reachable states" in capsys.readouterr().out
    assert (tmp_path / "big.png").stat().st_size > 0


def test_machines_above_the_drawing_limit_get_one_clear_line_and_dot_still_works(capsys, tmp_path):
    from fsmarena.figures.machine_layout import MAX_DRAWN_STATES

    player_file = tmp_path / "huge.json"
    save_player(ring_fsm(MAX_DRAWN_STATES + 1), GAME, player_file)
    assert main(["draw", str(player_file), "--out", str(tmp_path / "huge.png"), "--games", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MAX_DRAWN_STATES" in err and ".dot" in err
    assert not (tmp_path / "huge.png").exists()
    assert main(["draw", str(player_file), "--out", str(tmp_path / "huge.dot"), "--games", "0"]) == 0


# ---- heat maps of any size ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "players, annotated, named",
    [(3, True, True), (24, True, True), (25, False, True), (71, False, False), (200, False, False)],
)
def test_heat_map_annotates_and_names_only_what_is_legible(monkeypatch, tmp_path, players, annotated, named):
    """Cells carry their rate up to MAX_ANNOTATED players (then n^2 texts would be unreadable
    and cost most of the drawing); rows and columns are named up to MAX_NAMED."""
    import fsmarena.figures.heatmap as heatmap

    drawn = []
    monkeypatch.setattr(heatmap, "save", lambda fig, stem: drawn.append(fig) or [])
    rates = np.random.default_rng(0).random((players, players))
    np.fill_diagonal(rates, np.nan)
    heatmap.win_rate_heatmap(rates, [f"p{i}" for i in range(players)], tmp_path / "h", rates - 0.1, rates + 0.1)
    ax = drawn[0].axes[0]
    assert len(ax.texts) == (players * (players - 1) if annotated else 0)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert (labels == [f"p{i}" for i in range(players)]) == named
    assert ("numbered" in ax.get_ylabel()) == (not named)


# ---- the file's numbers, minimised machines, routed edges, legends -------------------------------


def gapped_fsm():
    """Over opp_last, 6 states of which 0, 2 and 4 are reachable; S2 and S4 are copies (both
    play median and go back to S0), so the minimal machine has two states."""
    return TableFSM(
        [[2, 2, 4, 4], [1, 1, 1, 1], [0, 0, 0, 0], [3, 3, 3, 3], [0, 0, 0, 0], [5, 5, 5, 5]],
        [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4, [MEDIAN] * 4, [LARGE_MAX] * 4, [MEDIAN] * 4, [0] * 4],
        inputs="opp_last",
        label="gapped",
    )


def drawn_figure(monkeypatch, argv) -> tuple[dict[str, str], str]:
    """Run ``fsmarena draw ARGV`` to a PNG and read the figure it would save: each state's
    text in the graph (name -> share of decisions, '' without usage) and the graph's title."""
    import fsmarena.figures.style

    seen = []
    monkeypatch.setattr(fsmarena.figures.style, "save_as", lambda fig, path, fmt: seen.append(fig))
    assert main(["draw", *argv]) == 0
    ax = seen[0].axes[0]
    names = dict((t.get_text() + "\n").split("\n")[:2] for t in ax.texts if t.get_text().startswith("S"))
    return names, ax.get_title()


def inspect_shares(capsys, player_file) -> dict[str, str]:
    """The 'decisions begun in' line of ``fsmarena inspect``: state name -> share printed."""
    assert main(["inspect", str(player_file)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "decisions begun in:" in x)
    return dict(item.split(" ") for item in line.split(": ", 1)[1].split(", "))


def test_drawing_names_states_as_inspect_prints_them(capsys, monkeypatch, tmp_path):
    player_file = tmp_path / "gapped.json"
    save_player(gapped_fsm(), GAME, player_file)
    printed = inspect_shares(capsys, player_file)
    assert set(printed) == {"S0", "S2", "S4"}  # the file's numbers, gaps included
    names, title = drawn_figure(monkeypatch, [str(player_file), "--out", str(tmp_path / "g.png")])
    assert {name: share for name, share in names.items() if share != "never"} == printed
    assert "minimised" not in title


def test_minimised_drawing_keeps_the_files_numbers_and_says_so(capsys, monkeypatch, tmp_path):
    import json

    player_file = tmp_path / "gapped.json"
    save_player(gapped_fsm(), GAME, player_file)
    names, title = drawn_figure(monkeypatch, [str(player_file), "--minimise", "--out", str(tmp_path / "g.png")])
    assert sorted(names) == ["S0", "S2"]  # S4 is merged into S2, not renumbered
    assert "minimised: 2 of 6 states; numbers as in the player file" in title and "merged: S2=S4" in title
    assert main(["draw", str(player_file), "--minimise", "--out", str(tmp_path / "g.graphml")]) == 0
    assert "minimised from 6 states" in capsys.readouterr().out
    assert main(["inspect", str(player_file), "--json"]) == 0
    visits = json.loads(capsys.readouterr().out)["usage"]["visits"]
    graph = nx.read_graphml(tmp_path / "g.graphml")
    for _node, data in graph.nodes(data=True):  # each drawn state plays for the file's states it names
        group = [int(s) for s in data["stands_for"].split()]
        assert data["number"] == min(group)
        assert data["visits"] == sum(visits[s] for s in group)


def test_a_machine_drawn_unminimised_has_no_note(monkeypatch, tmp_path):
    player_file = tmp_path / "hand.json"
    save_player(hand_bda(), GAME, player_file)
    names, title = drawn_figure(monkeypatch, [str(player_file), "--out", str(tmp_path / "h.png"), "--games", "0"])
    assert sorted(names) == ["S0", "S2"] and "minimised" not in title and "merged" not in title


def _edge_clearances(fig) -> list[float]:
    """For every line drawn in the graph (edges and self-loops), its least distance to a state
    it does not join, minus the states' radius: negative when it passes through one."""
    from matplotlib.patches import Circle

    from fsmarena.figures.machine_layout import _clearance

    ax = fig.axes[0]
    circles = [p for p in ax.patches if isinstance(p, Circle)]
    centres, radius = np.array([c.center for c in circles]), circles[0].radius
    gaps = []
    for line in ax.lines:
        points = line.get_xydata()
        ends = {int(np.argmin(np.linalg.norm(centres - points[k], axis=1))) for k in (0, -1)}
        others = np.array([c for k, c in enumerate(centres) if k not in ends]).reshape(-1, 2)
        gaps.append(_clearance(points, others) - radius)
    return gaps


@pytest.mark.parametrize("states", [3, 6, 9, 13, 20, 40])
def test_bda_edges_pass_through_no_other_state(states):
    """Random BDAs: no edge segment comes within another state's circle (the old drawing,
    every lone edge bulging outwards along the circle, ran through neighbours)."""
    from fsmarena.evo.genome import genome_spec
    from fsmarena.figures.machine_drawing import machine_figure
    from fsmarena.figures.style import plt, style

    spec = genome_spec(GAME, "bda", states)
    for seed in range(3):
        machine = spec.player(spec.random(np.random.default_rng(seed), 1))
        with style():
            fig = machine_figure(machine_graph(machine, GAME), "", None, None, None)
            try:
                gaps = _edge_clearances(fig)
                assert len(gaps) >= machine_graph(machine, GAME).number_of_edges()
                assert min(gaps) > 0
            finally:
                plt.close(fig)


def test_vautour_legend_lists_only_the_bids_on_view_each_in_its_own_colour():
    from fsmarena.evo.genome import genome_spec
    from fsmarena.figures.machine_drawing import machine_figure
    from fsmarena.figures.style import plt, style
    from fsmarena.games.registry import entry, resolve

    game = resolve(entry("vautour").game, "game")()
    spec = genome_spec(game, "fsm", 3)
    machine = spec.player(spec.random(np.random.default_rng(1), 1))
    bids = [game.action_names.index(name) for name in ("highest", "bid_3", "bid_11")]
    machine.action[0] = np.array(bids * machine.n_inputs)[: machine.action[0].size].reshape(machine.action[0].shape)
    with style():
        fig = machine_figure(machine_graph(machine, game), "", machine, game, None)
        try:
            legend = fig.axes[1].get_legend()
            assert [t.get_text() for t in legend.get_texts()] == ["highest", "bid_3", "bid_11"]
            colours = {tuple(h.get_facecolor()) for h in legend.legend_handles}
            assert len(colours) == 3
        finally:
            plt.close(fig)


def _state_places(monkeypatch, argv) -> dict[str, tuple[float, float]]:
    """Where ``fsmarena draw ARGV`` puts each state: its name -> the centre of its circle."""
    import fsmarena.figures.style

    seen = []
    monkeypatch.setattr(fsmarena.figures.style, "save_as", lambda fig, path, fmt: seen.append(fig))
    assert main(["draw", *argv]) == 0
    ax = seen[0].axes[0]
    return {
        t.get_text().split("\n")[0]: tuple(np.round(t.get_position(), 9)) for t in ax.texts if t.get_text()[:1] == "S"
    }


def test_minimise_played_drops_the_never_used_state_and_keeps_every_place(capsys, monkeypatch, tmp_path):
    from test_minimise import eight_state_fsm

    player_file = tmp_path / "eight.json"
    save_player(eight_state_fsm(), GAME, player_file)
    assert main(["inspect", str(player_file), "--games", "20"]) == 0
    assert "states used: 7;" in capsys.readouterr().out
    plain = _state_places(monkeypatch, [str(player_file), "--games", "20", "--out", str(tmp_path / "p.png")])
    argv = [str(player_file), "--games", "20", "--minimise", "played", "--out", str(tmp_path / "m.png")]
    minimal = _state_places(monkeypatch, argv)
    assert sorted(plain) == [f"S{s}" for s in range(8)] and sorted(minimal) == [f"S{s}" for s in range(7)]
    assert all(minimal[name] == plain[name] for name in minimal)  # the layout does not move
    names, title = drawn_figure(monkeypatch, argv)
    assert "minimised: 7 of 8 states" in title
    names, title = drawn_figure(monkeypatch, argv[:-3] + ["--minimise", "inputs", "--out", str(tmp_path / "i.png")])
    assert "minimised: 8 of 8 states" in title  # on the inputs met in play, S7 stays


@pytest.mark.parametrize("states", [3, 8])
def test_a_table_with_more_actions_than_colours_groups_them_and_names_every_action(states):
    """A Vautour machine playing all 22 actions: at most 7 colours (three groups: low,
    middle, high), and every cell says its action, by name in a narrow table, by number (the
    key naming each) in a wide one."""
    from fsmarena.evo.genome import genome_spec
    from fsmarena.figures.machine_drawing import NAMED_ACTION_COLUMNS, machine_figure
    from fsmarena.figures.strategy_card import MAX_COLOURS
    from fsmarena.figures.style import plt, style
    from fsmarena.games.registry import entry, resolve

    game = resolve(entry("vautour").game, "game")()
    spec = genome_spec(game, "fsm", states)
    machine = spec.player(spec.random(np.random.default_rng(1), 1))
    machine.action[0] = np.arange(machine.action[0].size).reshape(machine.action[0].shape) % game.n_actions
    with style():
        fig = machine_figure(machine_graph(machine, game), "", machine, game, None)
        try:
            table = fig.axes[1]
            colours = {tuple(h.get_facecolor()) for h in table.get_legend().legend_handles}
            assert len(colours) == 3 <= MAX_COLOURS
            cells = [t.get_text().split(" ")[0] for t in table.texts]
            assert len(cells) == machine.n_states * machine.n_inputs
            keys = [t.get_text() for t in table.get_legend().get_texts()]
            if states <= NAMED_ACTION_COLUMNS:
                assert set(cells) == set(game.action_names)
                assert keys == ["low: lowest to random", "middle: bid_1 to bid_7", "high: bid_8 to bid_15"]
            else:
                assert set(cells) == {str(a) for a in range(game.n_actions)}
                assert keys == [f"{a} {name}" for a, name in enumerate(game.action_names)]
        finally:
            plt.close(fig)
