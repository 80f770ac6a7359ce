"""31: whole games on the kernel (through the driver) against the independent plain-Python
reference, and invariants.

* Same deck orders + the same deterministic players (greedy, greedy-knock, and a "hash"
  player that picks legal actions from the cards it sees, so it knocks, takes discards and
  throws every position), the kernel's players reading the driver's observations and the
  reference's its own views, each game played by both => the same action at every decision,
  the same observations (every part the reference defines) and the same final lives and
  rewards, for 2-6 players and the rule options, with knocks and 31s among the rounds.  The
  reference has its own scoring, canonical order, greedy and observation formulas.
* Hypothesis: at every decision the kernel's state holds each of the 52 cards in exactly one
  place (live hands, stock, discard pile, the card in the air), the pile's bit set matches the
  pile, lives are never negative, the seat to move is alive; observations lie in their ranges
  and actions are legal; every game has exactly one winner, who has lives left.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_replay import check_views, thirtyone_view
from thirtyone_helpers import play_and_replay, random_deals, script_deals

from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.players import RandomPlayer
from fsmarena.games.thirtyone import kernel as k31
from fsmarena.games.thirtyone.game import DISCARD, DISCARD_0, DISCARD_GREEDY, TURN, ThirtyOne, ThirtyOneConfig
from fsmarena.games.thirtyone.potential import LivesPotential
from fsmarena.games.thirtyone.reference import View, final_rewards, greedy, play_game


def hash_code(hand_sum, top, drawn, turn, seat):
    return (hand_sum * 31 + top * 7 + drawn * 3 + turn * 11 + seat) % 97


def reference_hash(view: View) -> int:
    h = hash_code(sum(view.hand), view.top, view.drawn, view.round_turn, view.seat)
    if view.phase == 0:
        return 2 if h < 4 and 2 in view.legal else h % 2
    return view.legal[h % len(view.legal)]


def kernel_hash(seat, obs):
    h = hash_code(obs.hand.sum(axis=1), obs.top, obs.drawn, obs.round_turn, seat)
    if obs.phase == TURN:
        return np.where((h < 4) & obs.mask[:, 2], 2, h % 2)
    pick = h % obs.mask.sum(axis=1)
    return np.argmax(np.cumsum(obs.mask, axis=1) > pick[:, None], axis=1)


KINDS = ("hash", "greedy", "knock")


def _recording(game: ThirtyOne, policy, seat: int, seen: dict, potential: LivesPotential):
    """A reference policy that also records, per seat, each decision as the replay describes
    it (:func:`reference_replay.thirtyone_view`) and its action, ``discard_greedy`` as the
    position the reference's greedy throws."""
    tok = game.config.three_of_a_kind

    def act(view: View) -> int:
        action = int(policy(view))
        concrete = greedy(view, tok) if action == DISCARD_GREEDY else action
        seen.setdefault(seat, []).append((thirtyone_view(game, view, potential), concrete))
        return action

    return act


def _concrete(game: ThirtyOne, decisions: dict[int, list]) -> dict[int, list[int]]:
    """Each seat's actions on the kernel, ``discard_greedy`` as the position it threw (the
    ``greedy_discard`` encoding shown with it; the reference's greedy names the position)."""
    which = list(game.encodings).index("greedy_discard")
    return {
        seat: [DISCARD_0 + codes[which] if action == DISCARD_GREEDY else action for *_, codes, action in log]
        for seat, log in decisions.items()
    }


@pytest.mark.parametrize(
    "players, options",
    [
        (2, {}),
        (2, {"three_of_a_kind": 30.5, "max_turns": 30}),
        (2, {"under_the_gun": False}),
        (3, {}),
        pytest.param(4, {"three_of_a_kind": 30.5}, marks=pytest.mark.slow),
        pytest.param(5, {"max_turns": 40}, marks=pytest.mark.slow),
        pytest.param(6, {"lives": 2}, marks=pytest.mark.slow),
    ],
)
def test_kernel_matches_the_reference(players, options):
    config = ThirtyOneConfig(players=players, **options)
    game = ThirtyOne(config)
    n, rounds = 25, 40
    rng = np.random.default_rng(players * 100 + len(options))
    decks = rng.permuted(np.tile(np.arange(52), (n, rounds, 1)), axis=2)
    kinds = [KINDS[(s + len(options)) % 3] for s in range(players)]
    tok = config.three_of_a_kind
    greedy_player, knocker = BuiltinPlayer("greedy"), BuiltinPlayer("greedy-knock", {"threshold": 24})

    def decide(seat, obs, rows):
        if kinds[seat] == "hash":
            return kernel_hash(seat, obs)
        player = greedy_player if kinds[seat] == "greedy" else knocker
        return player.act(obs, player.begin(game, obs.n, None, rng), rows, rng)

    deals = script_deals(config, decks.reshape(n, rounds * 52))
    outcome, log, _ = play_and_replay(game, decide, deals, replay=False)
    potential = LivesPotential.of(game)
    policies = [
        reference_hash
        if k == "hash"
        else (lambda v: greedy(v, tok))
        if k == "greedy"
        else (lambda v: greedy(v, tok, 24))
        for k in kinds
    ]
    kinds_seen = set()
    for g in range(n):
        records: list = []
        seen: dict[int, list] = {}
        seats = [_recording(game, policy, seat, seen, potential) for seat, policy in enumerate(policies)]
        lives = play_game(config, seats, lambda r, g=g: list(decks[g, r]), records)
        assert _concrete(game, log.decisions[g]) == {seat: [a for _, a in views] for seat, views in seen.items()}
        for seat, views in seen.items():
            check_views(game, log.decisions[g][seat], [v for v, _ in views], (g, seat), log.parts[g][seat])
        assert list(outcome.scores[g]) == lives and list(outcome.rewards[g]) == final_rewards(lives)
        kinds_seen.update(r.kind for r in records)
    assert {"knock", "blitz"} <= kinds_seen


def check_state(p, s, seat):
    """The invariants of one decision, read from the kernel's state."""
    S = k31.n_seats(p)
    state = s.tolist()
    alive = state[k31.ALIVE]
    places = [c for o in range(S) if (alive >> o) & 1 for c in state[k31.HANDS + 3 * o : k31.HANDS + 3 * o + 3]]
    places += state[k31.STOCK + state[k31.PTR] : k31.STOCK + 52]
    pile = state[k31.PILE : k31.PILE + state[k31.PLEN]]
    places += pile
    drawn = state[k31.DRAWN]
    assert (drawn >= 0) == (state[k31.PHASE] == DISCARD)
    if drawn >= 0:
        places.append(drawn)
    assert sorted(places) == list(range(52)), "52 cards, each in exactly one place"
    assert state[k31.PILE_BITS] == sum(1 << c for c in pile)
    assert min(state[k31.LIVES : k31.LIVES + S]) >= 0 and (alive >> seat) & 1 == 1
    assert state[k31.MOVER] == seat and not state[k31.DONE]


@settings(max_examples=25)
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    lives=st.integers(1, 3),
    tok=st.sampled_from([None, 30.5]),
    max_turns=st.sampled_from([12, 40, 100]),
    gun=st.booleans(),
    mix=st.lists(st.integers(0, 3), min_size=6, max_size=6),
)
def test_invariants_at_every_decision(players, seed, lives, tok, max_turns, gun, mix):
    """The driver's games with random and greedy players; each game then stepped again on the
    kernel with the same actions, its state checked at every decision."""
    config = ThirtyOneConfig(players=players, lives=lives, three_of_a_kind=tok, max_turns=max_turns, under_the_gun=gun)
    game = ThirtyOne(config)
    pool = [
        RandomPlayer(),
        BuiltinPlayer("greedy"),
        BuiltinPlayer("greedy-knock", {"threshold": 22}),
        BuiltinPlayer("greedy-knock", {"threshold": 29}),
    ]
    seats = [pool[k] for k in mix[:players]]
    rng = np.random.default_rng(seed)

    def decide(seat, obs, rows):
        actions = np.asarray(seats[seat].act(obs, seats[seat].begin(game, obs.n, None, rng), rows, rng))
        assert obs.mask[np.arange(obs.n), actions].all(), "illegal action"
        index = obs.index
        assert np.all((index >= 0) & (index < game.n_states))
        if obs.phase == TURN:
            assert np.all(index < game.n_turn_states)
        else:
            assert np.all(index >= game.n_turn_states)
        features = obs.features
        assert features.shape == (obs.n, len(game.feature_names))
        assert np.all((features >= 0) & (features <= 1))
        for name, size in game.encodings.items():
            value = np.asarray(getattr(obs, name))
            assert np.all((value >= 0) & (value < size)), name
        return actions

    n = 12
    deals = random_deals(game, n, rng)
    outcome, log, _ = play_and_replay(game, decide, deals, replay=False, observe=False)
    p = k31.make_params(config)
    s = np.zeros(k31.state_size(p), dtype=np.int64)
    for g in range(n):
        k31.reset(p, s, deals[g])
        for seat, action in log.order[g]:
            check_state(p, s, seat)
            k31.step(p, s, action)
        assert k31.to_move(p, s) == -1
        assert s[k31.LIVES : k31.LIVES + players].tolist() == outcome.scores[g].tolist()
    assert np.all((outcome.rewards == 1).sum(axis=1) == 1), "exactly one winner"
    assert np.all((outcome.rewards == -1).sum(axis=1) == players - 1)
    winner_lives = outcome.scores[outcome.rewards == 1]
    assert np.all(winner_lives > 0) and np.all(outcome.scores[outcome.rewards == -1] == 0)


def test_same_seed_same_games():
    game = ThirtyOne(ThirtyOneConfig(players=3))
    seats = [BuiltinPlayer("greedy"), RandomPlayer(), BuiltinPlayer("greedy-knock", {"threshold": 27})]
    from fsmarena.games.arena import play_games

    a = play_games(game, seats, 200, np.random.default_rng(5))
    b = play_games(game, seats, 200, np.random.default_rng(5))
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.rewards, b.rewards)


def test_seats_are_symmetric_for_identical_players():
    """Greedy against greedy: seat 0 moves first in odd-numbered... every other round, so over
    many games neither seat may win significantly more (a check on turn order and rotation)."""
    from fsmarena.games.arena import play_games
    from fsmarena.games.stats import wilson_interval

    outcome = play_games(
        ThirtyOne(), [BuiltinPlayer("greedy"), BuiltinPlayer("greedy")], 6000, np.random.default_rng(11)
    )
    low, high = wilson_interval(int((outcome.rewards[:, 0] == 1).sum()), 6000, z=3.3)
    assert low < 0.5 < high


def test_every_encoding_value_has_its_own_label():
    game = ThirtyOne()
    for name, size in game.encodings.items():
        labels = [game.encoding_label(name, v) for v in range(size)]
        assert len(set(labels)) == size and not any(label.startswith(f"{name}=") for label in labels), name
    assert game.encoding_label("greedy_turn", 1) == "greedy: pile"
    assert game.encoding_label("score_bucket", 7) == "score 30+"
