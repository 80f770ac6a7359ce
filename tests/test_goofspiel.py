"""Goofspiel: the kernel (played by the driver, read through its trace hook) against the plain
loop (games.goofspiel.reference) on the same scripted prize orders and bids, against Stupide Vautour where the rules coincide, observation
invariants, the builtins, bad input and every command at tiny budgets."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.goofspiel import reference
from fsmarena.games.goofspiel.game import MAX_CARDS, MAX_STATES, Goofspiel, GoofspielConfig
from fsmarena.games.vautour.game import N_ABSTRACT, StupideVautour, VautourConfig
from tests.bidding_helpers import play_traced
from tests.cli_helpers import run_cli

STUDY = Path(__file__).resolve().parents[1] / "fsmarena" / "games" / "goofspiel" / "goofspiel.toml"


def bid_decide(bids: np.ndarray, card_action=lambda card: card - 1):
    """A ``decide`` that bids ``bids[g, turn, seat]`` (cards, possibly already played: then the
    nearest remaining card, the lower one on a tie, as the reference does; the kernel takes
    only legal bids), as the action ``card_action(card)``."""

    def decide(seat, obs, rows):
        ids = np.arange(obs.n) if rows is None else np.asarray(rows)
        steps = np.broadcast_to(np.asarray(obs.step), (obs.n,))
        hands = np.broadcast_to(np.asarray(obs.hand), (obs.n,))
        cards = [
            reference.nearest([c for c in range(1, bids.shape[1] + 1) if hand >> (c - 1) & 1], int(bids[g, t, seat]))
            for g, t, hand in zip(ids, steps, hands)
        ]
        return card_action(np.array(cards, dtype=np.int64))

    return decide


def scripted(game: Goofspiel, bids: np.ndarray, orders: np.ndarray):
    """Play ``bids[g, turn, seat]`` (:func:`bid_decide`) on the prize ``orders``: the outcome
    and the turns read from the trace hook (:func:`bidding_helpers.play_traced`)."""
    return play_traced(game, len(orders), bid_decide(bids), deals=orders)


def random_script(rng: np.random.Generator, n: int, players: int, cards: int):
    orders = np.argsort(rng.random((n, cards)), axis=1) + 1
    bids = rng.integers(1, cards + 1, size=(n, cards, players))
    return orders, bids


def reference_game(players: int, cards: int, order, bids) -> dict:
    choosers = [lambda seat, turn, prize, hand, points: int(bids[turn][seat])] * players
    return reference.play_one(players, cards, [int(p) for p in order], choosers)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), cards=st.integers(1, 7), seed=st.integers(0, 2**31))
def test_kernel_equals_reference_game_by_game(players, cards, seed):
    n = 30
    rng = np.random.default_rng(seed)
    orders, bids = random_script(rng, n, players, cards)
    game = Goofspiel(GoofspielConfig(players=players, cards=cards))
    outcome, trace = scripted(game, bids, orders)
    for g in range(n):
        expected = reference_game(players, cards, orders[g], bids[g])
        for turn, step in enumerate(trace):
            assert step["prize"][g] == expected["turns"][turn]["prize"]
            assert list(step["bids"][g]) == expected["turns"][turn]["bids"]
            assert step["winner"][g] == expected["turns"][turn]["winner"]
        assert list(outcome.scores[g]) == expected["points"]
        assert list(outcome.rewards[g]) == expected["rewards"]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), cards=st.integers(1, 8), seed=st.integers(0, 2**31))
def test_every_card_bid_once_and_points_conserved(players, cards, seed):
    """Invariants: each seat bids each card exactly once; won points plus discarded prizes
    are the deck's total; two players' rewards sum to zero."""
    rng = np.random.default_rng(seed)
    orders, bids = random_script(rng, 20, players, cards)
    outcome, trace = scripted(Goofspiel(GoofspielConfig(players=players, cards=cards)), bids, orders)
    played = np.stack([step["bids"] for step in trace], axis=1)  # (n, turns, seats)
    assert (np.sort(played, axis=1) == np.arange(1, cards + 1)[None, :, None]).all()
    discarded = sum(np.where(step["winner"] < 0, step["prize"], 0) for step in trace)
    assert np.array_equal(outcome.scores.sum(axis=1) + discarded, np.full(20, cards * (cards + 1) // 2))
    if players == 2:
        assert (outcome.rewards.sum(axis=1) == 0).all()


@pytest.mark.parametrize("cards", [1, 3, 6, 13])
def test_two_players_equal_stupide_vautour_with_positive_prizes(cards):
    """With two players, prizes 1..n and the seed tie rule (a matched bid discards the prize),
    Stupide Vautour is Goofspiel: same bids, same winners, same points."""
    rng = np.random.default_rng(cards)
    orders, bids = random_script(rng, 200, 2, cards)
    goof, goof_trace = scripted(Goofspiel(GoofspielConfig(cards=cards)), bids, orders)
    vautour = StupideVautour(VautourConfig(cards=cards, prizes=tuple(range(1, cards + 1)), tie_rule="seed"))
    decide = bid_decide(bids, lambda card: card + (N_ABSTRACT - 1))
    vout, vtrace = play_traced(vautour, 200, decide, deals=orders - 1)  # prize positions: value - 1
    assert np.array_equal(goof.scores, vout.scores) and np.array_equal(goof.rewards, vout.rewards)
    for a, b in zip(goof_trace, vtrace):
        assert np.array_equal(a["bids"], b["bids"]) and np.array_equal(a["winner"], b["winner"])


def test_three_players_differ_from_stupide_vautour():
    """Why the cross-check stops at two players: bids 3, 3, 2 on prize 3 give Stupide Vautour's
    prize to the unmatched 2, while Goofspiel discards it."""
    order = np.array([[3, 2, 1]])
    bids = np.array([[[3, 3, 2], [2, 1, 3], [1, 2, 1]]])
    goof, trace = scripted(Goofspiel(GoofspielConfig(players=3, cards=3)), bids, order)
    assert trace[0]["winner"][0] == -1
    vautour = StupideVautour(VautourConfig(players=3, cards=3, prizes=(1, 2, 3)))
    _, vtrace = play_traced(vautour, 1, bid_decide(bids, lambda card: card + 6), deals=order - 1)
    assert vtrace[0]["winner"][0] == 2


def lowest_card(seat, obs, rows):
    """Bid the lowest card in hand."""
    hand = np.broadcast_to(np.asarray(obs.hand), (obs.n,))
    return np.log2(hand & -hand).astype(np.int64)


@pytest.mark.parametrize("order, expected", [("descending", [4, 3, 2, 1]), ("ascending", [1, 2, 3, 4])])
def test_fixed_points_order(order, expected):
    game = Goofspiel(GoofspielConfig(cards=4, points_order=order))
    _, trace = play_traced(game, 5, lowest_card, seed=1)
    assert [int(step["prize"][0]) for step in trace] == expected
    assert all((step["prize"] == step["prize"][0]).all() for step in trace)


def test_random_order_is_a_uniform_shuffle():
    game = Goofspiel(GoofspielConfig(cards=3))
    n = 60_000
    _, trace = play_traced(game, n, lowest_card, seed=2)
    first = trace[0]["prize"]
    shares = np.bincount(first, minlength=4)[1:] / n
    assert np.allclose(shares, 1 / 3, atol=0.01)


@pytest.mark.parametrize(
    "state, clip", [("no-memory", None), ("with-score", None), ("with-score", 4), ("public", None), ("public", 3)]
)
def test_observations_match_the_documented_numbering(state, clip):
    """Index, mask and encodings read back the state the reference keeps, for every decision."""
    cards, players = 5, 3
    game = Goofspiel(GoofspielConfig(players=players, cards=cards, state=state, score_clip=clip))
    radix = 1 if state == "no-memory" else 2 * game.config.lead_clip + 1
    rng = np.random.default_rng(3)
    orders, bids = random_script(rng, 50, players, cards)
    seen: list = []

    bid = bid_decide(bids)

    def decide(seat, obs, rows):
        turn = np.unique(obs.step).item()  # the games move in lock-step
        seen.append((seat, turn, obs.index, obs.mask, obs.prize_value, obs.features, obs.lead, obs.opp_last))
        return bid(seat, obs, rows)

    _, trace = play_traced(game, 50, decide, deals=orders)
    for seat, turn, index, mask, prize, features, lead, opp_last in seen:
        played = [step["bids"][:, seat] for step in trace[:turn]]
        next_played = [step["bids"][:, (seat + 1) % players] for step in trace[:turn]]
        for g in range(50):
            hand = [c for c in range(1, cards + 1) if all(p[g] != c for p in played)]
            bits = sum(1 << (c - 1) for c in hand)
            next_bits = sum(1 << (c - 1) for c in range(1, cards + 1) if all(p[g] != c for p in next_played))
            points = trace[turn - 1]["points"][g] if turn else np.zeros(players, dtype=np.int64)
            ahead = points[seat] - max(points[s] for s in range(players) if s != seat)
            lead_part = 0 if radix == 1 else min(max(ahead, -(radix // 2)), radix // 2) + radix // 2
            base = (prize[g] - 1) * (2**cards - 1) + bits - 1
            if state == "public":  # the next seat's remaining cards
                base = base * (2**cards - 1) + next_bits - 1
            assert index[g] == base * radix + lead_part
            assert list(np.flatnonzero(mask[g]) + 1) == hand
        assert (0 <= index).all() and (index < game.n_states).all()
        assert features.shape == (50, len(game.feature_names)) and (0 <= features).all() and (features <= 1).all()
        assert set(np.unique(lead)) <= {0, 1, 2} and set(np.unique(opp_last)) <= {0, 1, 2, 3}
        assert (opp_last == 0).all() == (turn == 0)


@pytest.mark.parametrize(
    "state, states", [("no-memory", 3 * 7), ("with-score", 3 * 7 * 13), ("public", 3 * 7 * 7 * 13)]
)
def test_state_labels_cover_the_index_range(state, states):
    game = Goofspiel(GoofspielConfig(cards=3, state=state))
    labels = {game.state_label(i) for i in range(game.n_states)}
    assert len(labels) == game.n_states == states
    with pytest.raises(FsmarenaError):
        game.state_label(game.n_states)


@pytest.mark.parametrize(
    "name, rule", [("match", reference.match), ("upbid", reference.upbid), ("max", reference.highest)]
)
def test_builtins_play_their_rule_in_words(name, rule):
    """Each builtin bids what the reference's plain rule bids, against scripted opponents."""
    cards = 7
    game = Goofspiel(GoofspielConfig(cards=cards))
    rng = np.random.default_rng(5)
    orders, bids = random_script(rng, 100, 2, cards)
    player = game.builtin_players()[name]()
    memory = player.begin(game, 100, None, rng)

    opponent = bid_decide(bids)

    def decide(seat, obs, rows):
        return player.act(obs, memory, rows, rng) if seat == 0 else opponent(seat, obs, rows)

    _, trace = play_traced(game, 100, decide, deals=orders)
    for g in range(100):
        expected = reference.play_one(
            2, cards, list(orders[g]), [rule, lambda s, t, p, h, pts, g=g: int(bids[g][t][1])]
        )
        assert [int(step["bids"][g, 0]) for step in trace] == [t["bids"][0] for t in expected["turns"]]


def test_upbid_takes_every_prize_but_the_top_from_match():
    """Derived from the rules: upbid tops match's bid on every prize below n and loses only n."""
    cards = 13
    game = Goofspiel(GoofspielConfig(cards=cards))
    players = game.builtin_players()
    up, match = players["upbid"](), players["match"]()
    rng = np.random.default_rng(6)
    memories = [up.begin(game, 200, None, rng), match.begin(game, 200, None, rng)]
    out = game.play(200, rng, lambda s, o, r: (up, match)[s].act(o, memories[s], r, rng))
    assert (out.scores[:, 0] == cards * (cards + 1) // 2 - cards).all() and (out.scores[:, 1] == cards).all()


@pytest.mark.parametrize(
    "params",
    [
        {"players": "1"},
        {"players": "5"},
        {"cards": "0"},
        {"cards": "17"},
        {"points_order": "sideways"},
        {"deck": "3"},
        {"state": "everything"},
        {"state": "no-memory", "score_clip": "3"},
        {"state": "with-score", "score_clip": "0"},
        {"state": "with-score", "cards": "16"},
    ],
)
def test_bad_rules_are_one_clear_error(params):
    with pytest.raises(FsmarenaError):
        get_game("goofspiel", params)


def test_the_default_state_is_the_richest_that_fits_a_table():
    """``auto``: public while it fits, then with-score, then no-memory (which always fits)."""
    richer = {"public": None, "with-score": "public", "no-memory": "with-score"}
    seen = []
    for cards in range(1, MAX_CARDS + 1):
        chosen = GoofspielConfig(cards=cards).state
        seen.append(chosen)
        total = cards * (cards + 1) // 2
        assert Goofspiel(GoofspielConfig(cards=cards)).n_states <= MAX_STATES
        if richer[chosen] is not None:
            with pytest.raises(FsmarenaError):
                GoofspielConfig(cards=cards, state=richer[chosen], score_clip=total)
    assert seen[0] == "public" and seen[-1] == "no-memory" and seen[12] == "no-memory"  # 13 cards: as before
    assert GoofspielConfig(cards=4) == GoofspielConfig(cards=4, state="public")


def test_bad_actions_are_refused():
    game = Goofspiel(GoofspielConfig(cards=3))
    with pytest.raises(FsmarenaError, match="out of range"):
        game.play(2, np.random.default_rng(0), lambda s, o, r: np.full(2, 3))
    with pytest.raises(FsmarenaError, match="not legal"):  # card 1 again at the second turn
        game.play(2, np.random.default_rng(0), lambda s, o, r: np.zeros(2, dtype=np.int64))


# ---- the commands ------------------------------------------------------------------------------


def test_cli_play(capsys):
    code, out, _ = run_cli(capsys, "play", "goofspiel", "upbid", "match", "--games", 200, "--quiet", "--json")
    assert code == 0
    assert json.loads(out)["win"] == 1.0


def test_cli_tournament(capsys, tmp_path):
    code, _, err = run_cli(
        capsys,
        "tournament",
        "goofspiel",
        "random",
        "match",
        "upbid",
        "--games",
        50,
        "--quiet",
        "--param",
        "cards=5",
        "--out",
        tmp_path / "t",
    )
    assert code == 0, err
    assert (tmp_path / "t" / "tournament.json").exists()


def test_cli_evolve_and_play_the_champion(capsys, tmp_path):
    code, _, err = run_cli(
        capsys,
        "evolve",
        "goofspiel",
        "--param",
        "cards=5",
        "--genome",
        "fsm",
        "--protocol",
        "panel",
        "--panel",
        "match",
        "upbid",
        "--generations",
        2,
        "--population",
        6,
        "--games-per-pair",
        4,
        "--quiet",
        "--out",
        tmp_path / "e",
    )
    assert code == 0, err
    code, _, err = run_cli(
        capsys,
        "play",
        "goofspiel",
        tmp_path / "e" / "best.json",
        "match",
        "--param",
        "cards=5",
        "--games",
        50,
        "--quiet",
    )
    assert code == 0, err


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["mc", "q-learning"])
def test_cli_train(capsys, tmp_path, algo):
    code, _, err = run_cli(
        capsys,
        "train",
        "goofspiel",
        "--param",
        "cards=4",
        "--algo",
        algo,
        "--episodes",
        500,
        "--opponent",
        "match",
        "--eval-games",
        100,
        "--quiet",
        "--out",
        tmp_path / algo,
    )
    assert code == 0, err
    assert (tmp_path / algo / "policy.json").exists()


def test_cli_bad_param_exits_2_and_writes_nothing(capsys, tmp_path):
    code, _, err = run_cli(
        capsys, "tournament", "goofspiel", "random", "match", "--param", "players=9", "--quiet", "--out", tmp_path / "t"
    )
    assert code == 2 and err.count("\n") == 1 and "players" in err
    assert not (tmp_path / "t").exists()


@pytest.mark.slow
def test_cli_study_test_scale(capsys, tmp_path):
    code, _, err = run_cli(
        capsys, "study", STUDY, "--scale", "test", "--no-figures", "--quiet", "--out", tmp_path / "s"
    )
    assert code == 0, err
    assert any((tmp_path / "s").iterdir())


def test_pettingzoo_parallel_environment_plays_goofspiel():
    """The generic environments serve the new game unchanged: PettingZoo's own API check
    passes, and highest-against-lowest gives the highest bidder every prize."""
    from pettingzoo.test import parallel_api_test

    from fsmarena.games.environments import parallel_env

    parallel_api_test(parallel_env("goofspiel", params={"cards": "4"}), num_cycles=10)
    env = parallel_env("goofspiel", params={"cards": "4", "players": "3"})
    obs, _ = env.reset(seed=3)
    first, *rest = env.agents
    while env.agents:
        legal = {a: np.flatnonzero(obs[a]["action_mask"]) for a in env.agents}
        actions = {a: int(legal[a][-1] if a == first else legal[a][0]) for a in env.agents}
        obs, rewards, *_ = env.step(actions)
    assert rewards[first] == 1.0 and all(rewards[a] == -1.0 for a in rest)


def test_the_named_study_is_the_toml_on_the_generic_runner():
    """``fsmarena study goofspiel`` names the packaged TOML through the game's entry, and every
    scale plans the twelve families (five textbook ones, three learners a user tries first, four
    tuned twins) against the four builtins."""
    from fsmarena.studies.catalogue import get_study, load_study_toml

    study = get_study("goofspiel")
    assert study == load_study_toml(STUDY)
    assert study.game == "goofspiel" and set(study.panel) == set(get_game("goofspiel").builtin_players())
    for scale in ("test", "quick", "paper"):
        plan = study.plan(scale)
        untuned = {"fsm", "bda", "mc", "sarsa", "q-learning", "mc-on-policy", "expected-sarsa", "double-q-learning"}
        tuned = {"fsm-tuned", "bda-tuned", "q-learning-tuned", "mc-on-policy-tuned"}
        assert {c.name for c in plan.competitors} == untuned | tuned
        assert {c.name for c in plan.competitors if c.tune} == tuned
