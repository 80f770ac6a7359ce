"""The plain-Python references (``fsmarena/games/*/reference.py``) replaying a kernel's games.

The kernel tests and the driver tests play a deal on the kernel with scripted picks among the
legal actions, then hand the same deal and the same actions, seat by seat, to the game's
reference (:func:`replay`).  The reference is written from the rules in words and shares no
code or table with the kernel, so every difference is a mistake on one side.  While it
replays, each seat's decision is described by what the reference knows at that point
(:class:`View`): the legal actions always, and the tabular index, encodings, features and other
observation parts where the game's documented formulas give them from the reference's own
state.  At the end come the reference's scores and rewards (and, for a game of rounds, how
each round ended).

Deals are the kernel's (one row of ``deal_size`` integers); ``reference_deal`` of each kernel
says what they are in the rules' terms (deck orders, throws, prize orders), so a change of the
kernel's deal layout is followed here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from kernel_helpers import scripted

from fsmarena.games.goofspiel.reference import ranking_rewards
from fsmarena.games.thirtyone import reference as thirtyone
from fsmarena.games.thirtyone.kernel import BUILTIN_ARGS
from fsmarena.games.thirtyone.potential import LivesPotential


@dataclass
class View:
    """What the reference knows when a seat decides: its legal actions (kernel numbering) and,
    where the game defines them from the reference's state, the index, some encodings by name,
    the features, other observation parts by name and the builtin players' answers by name."""

    legal: list[int]
    index: int | None = None
    codes: dict[str, int] = field(default_factory=dict)
    features: list[float] | None = None
    parts: dict[str, Any] = field(default_factory=dict)
    builtins: dict[str, int] = field(default_factory=dict)


@dataclass
class Replayed:
    """One game replayed by the reference: every seat's decisions, the scores and rewards;
    where the reference records them, the seats in the order they decided and how each round
    ended."""

    views: dict[int, list[View]]
    scores: list[float]
    rewards: list[float]
    order: list[int] | None = None
    rounds: list[Any] = field(default_factory=list)


def replay(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    """The reference of ``game`` playing the kernel deal ``deal`` with ``actions[seat]``, the
    actions each seat chose on the kernel, in order.  A seat asked more often than the kernel
    asked it raises IndexError (the games differ)."""
    return _REPLAYS[game.name](game, np.asarray(deal), {s: list(a) for s, a in actions.items()})


def _script(game: Any, deal: np.ndarray) -> dict:
    """The deal in the rules' terms (the kernel's ``reference_deal`` of one row)."""
    kernel = importlib.import_module(f"fsmarena.games.{_FOLDERS[game.name]}.kernel")
    return {k: np.asarray(v)[0] for k, v in kernel.reference_deal(game.config, deal[None]).items()}


_FOLDERS = {"dtd": "dtd", "421": "dice421", "goofspiel": "goofspiel", "vautour": "vautour", "thirtyone": "thirtyone"}


class _Scripted:
    """A reference policy table (``policy[state] -> action``) that plays a seat's scripted
    actions in order and records the state each decision was asked in."""

    def __init__(self, actions: list[int], views: list[View], legal: Callable[[int], list[int]]):
        self.actions, self.views, self.legal = actions, views, legal

    def __getitem__(self, state: int) -> int:
        self.views.append(View(self.legal(state), index=int(state)))
        return self.actions[len(self.views) - 1]


# ---- divide-the-dollar -----------------------------------------------------------------------


def _dtd(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    from fsmarena.games.dtd.reference import play_one, state_numbers

    config = game.config
    views: dict[int, list[View]] = {0: [], 1: []}
    every = list(range(game.n_actions))
    policies = [_Scripted(actions[s], views[s], lambda _state: every) for s in (0, 1)]
    deck = [int(c) for c in _script(game, deal)["deck_order"]]
    a, b = play_one(config, deck, policies, state_numbers(len(config.cards)))
    return Replayed(views, [float(a), float(b)], ranking_rewards([a, b]))


# ---- 421 --------------------------------------------------------------------------------------


def _dice421(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    """421's reference asks no decision with no re-throw left; the kernel asks one there with
    only ``keep_all`` legal, which this adds when the game ran out of re-throws.  The features
    are the dice, the throws left and the stop score, scaled as :mod:`fsmarena.games.dice421.game` says."""
    from fsmarena.games.dice421.reference import play_one, state_numbers

    R, variant = game.config.rethrows, game.config.scores
    numbers = state_numbers(R)
    views: list[View] = []
    policy = _Scripted(actions[0], views, lambda _state: list(range(game.n_actions)))
    throws = _script(game, deal)["rolls"].tolist()
    dice, score = play_one(R, throws, policy, numbers, variant)
    if len(views) == R and all(action != 0 for action in actions[0][:R]):
        views.append(View([0], index=numbers[(0, *dice)]))
    for view in views:
        view.features = dice421_features(R, variant, view.index)
    return Replayed({0: views}, [float(score)], [float(score)])


def dice421_features(rethrows: int, variant: str, index: int | None) -> list[float]:
    """421's features at the state numbered ``index`` by the reference: the dice (high,
    middle, low) as (d - 1) / 5, the throws left over ``rethrows``, and the stop score over the
    score table's range."""
    from fsmarena.games.dice421.reference import score, state_numbers

    state = {number: key for key, number in state_numbers(rethrows).items()}[index]
    left, dice = state[0], state[1:]
    scores = [score(key[1:], variant) for key in state_numbers(0)]
    low, span = min(scores), max(1, max(scores) - min(scores))
    return [(d - 1) / 5 for d in dice] + [left / rethrows if rethrows else 0.0, (score(dice, variant) - low) / span]


# ---- Goofspiel -----------------------------------------------------------------------------


def _goofspiel(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    """Bids are action + 1 (the actions are legal: cards in hand); index, encodings and
    features by the formulas of :mod:`fsmarena.games.goofspiel.game`'s docstring."""
    from fsmarena.games.goofspiel.reference import play_one

    config = game.config
    P, C = config.players, config.cards
    prizes = [int(v) for v in _script(game, deal)["prize_order"]]
    views: dict[int, list[View]] = {s: [] for s in range(P)}
    bids: dict[int, list[int]] = {s: [] for s in range(P)}

    def choose(seat: int, turn: int, prize: int, hand: list[int], points: list[int]) -> int:
        views[seat].append(_goofspiel_view(config, seat, turn, prize, hand, points, bids, prizes))
        card = actions[seat][turn] + 1
        bids[seat].append(card)
        return card

    played = play_one(P, C, prizes, [choose] * P)
    return Replayed(views, [float(p) for p in played["points"]], played["rewards"])


def _goofspiel_view(config, seat, turn, prize, hand, points, bids, prizes) -> View:
    P, C = config.players, config.cards
    full = (1 << C) - 1
    nxt = (seat + 1) % P
    others = [s for s in range(P) if s != seat]
    hands = {s: [c for c in range(1, C + 1) if c not in bids[s][:turn]] for s in range(P)}
    lead = points[seat] - max(points[s] for s in others)
    index = (prize - 1) * full + (_bits(hand) - 1)
    if config.state == "public":
        index = index * full + (_bits(hands[nxt]) - 1)
    if config.state != "no-memory":
        clip = config.lead_clip
        index = index * (2 * clip + 1) + max(-clip, min(clip, lead)) + clip
    total = C * (C + 1) // 2
    features = [
        prize / C,
        min(hand) / C,
        sum(hand) / len(hand) / C,
        max(hand) / C,
        max(max(hands[s]) for s in others) / C,
        turn / (C - 1) if C > 1 else 0.0,
        0.5 + 0.5 * max(-1.0, min(1.0, lead / total)),
        sum(prizes[turn + 1 :]) / total,
    ]
    codes = {
        "prize": prize - 1,
        "opp_last": _third(bids[nxt][turn - 1], C) if turn else 0,
        "phase": 3 * turn // C,
        "lead": (lead > 0) - (lead < 0) + 1,
    }
    return View([c - 1 for c in hand], index=index, codes=codes, features=features)


def _bits(cards: list[int]) -> int:
    return sum(1 << (c - 1) for c in cards)


def _third(card: int, cards: int) -> int:
    """The ``opp_last`` bucket of a bid: 1 low, 2 middle, 3 high third of ``1..cards``."""
    return 1 + min(2, 3 * (card - 1) // cards)


# ---- Stupide Vautour -----------------------------------------------------------------------


def _vautour(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    """Actions 0-5 bid by the reference's abstract rules, 7.. bid card ``action - 6`` (the
    scripted picks never take the random bid 6); the index is checked for the no-memory state,
    the prize, phase and ``opp_last`` encodings always."""
    from fsmarena.games.vautour.reference import ABSTRACT, abstract_bid, play_one, state_number

    config = game.config
    P, C = config.players, config.cards
    prizes = [int(v) for v in _script(game, deal)["prize_order"]]
    by_value = sorted(prizes)
    views: dict[int, list[View]] = {s: [] for s in range(P)}
    bids: dict[int, list[int]] = {s: [] for s in range(P)}

    def legal(hand: list[int]) -> list[int]:
        abstract = list(range(len(ABSTRACT) + 1))
        concrete = [len(ABSTRACT) + c for c in hand]
        return {"abstract": abstract, "bids": concrete, "both": abstract + concrete}[config.action_set]

    def choose(seat: int, turn: int, prize: int, hand: list[int], deck) -> int:
        nxt = bids[(seat + 1) % P]
        codes = {
            "prize": by_value.index(prize),
            "opp_last": _third(nxt[turn - 1], C) if turn else 0,
            "phase": 3 * turn // C,
        }
        index = state_number(prize, hand, deck) if config.state == "no-memory" else None
        views[seat].append(View(legal(hand), index=index, codes=codes))
        action = actions[seat][turn]
        card = abstract_bid(ABSTRACT[action], hand, prize, deck) if action < len(ABSTRACT) else action - len(ABSTRACT)
        bids[seat].append(card)
        return card

    totals = play_one(prizes, P, config.tie_rule, [choose] * P)
    return Replayed(views, [float(t) for t in totals], ranking_rewards(totals))


# ---- 31 ------------------------------------------------------------------------------------


def _thirtyone(game: Any, deal: np.ndarray, actions: dict[int, list[int]]) -> Replayed:
    """31's reference plays the decks the kernel deals from ``deal`` (``round_decks``) with
    the kernel's actions; each decision is what :func:`fsmarena.games.thirtyone.reference.observe`
    makes of the reference's view (index, encodings, features, parts), the lives potential of
    :mod:`fsmarena.games.thirtyone.potential` and the answers of the reference's greedy players
    (greedy's and greedy-knock's turn decision; at a discard decision both play the abstract
    ``discard_greedy``, which the reference resolves with its own greedy)."""
    config = game.config
    decks = _script(game, deal)["deck_order"]
    potential = LivesPotential.of(game)
    views: dict[int, list[View]] = {s: [] for s in range(config.players)}
    order: list[int] = []

    def policy(seat: int) -> Callable[[thirtyone.View], int]:
        def act(view: thirtyone.View) -> int:
            views[seat].append(thirtyone_view(game, view, potential))
            order.append(seat)
            return actions[seat][len(views[seat]) - 1]

        return act

    rounds: list = []
    lives = thirtyone.play_game(config, [policy(s) for s in range(config.players)], lambda r: decks[r].tolist(), rounds)
    return Replayed(views, [float(n) for n in lives], thirtyone.final_rewards(lives), order, rounds)


def thirtyone_view(game: Any, view: Any, potential: LivesPotential) -> View:
    """One 31 decision of the reference (:class:`fsmarena.games.thirtyone.reference.View`) as
    the replay describes decisions."""
    seen = thirtyone.observe(game.config, view)
    assert sorted(seen.features) == sorted(game.feature_names)
    tok = game.config.three_of_a_kind
    turn = view.phase == 0
    builtins = {
        "greedy": thirtyone.greedy(view, tok) if turn else thirtyone.DISCARD_GREEDY,
        "greedy-knock": thirtyone.greedy(view, tok, BUILTIN_ARGS["greedy-knock"][0][1])
        if turn
        else thirtyone.DISCARD_GREEDY,
    }
    parts = {**seen.parts, "potential": float(potential.exact_value(np.array([view.lives]), view.seat)[0])}
    features = [seen.features[name] for name in game.feature_names]
    return View(sorted(view.legal), seen.index, seen.encodings, features, parts, builtins)


def kernel_game(module, p, deal, g, picks):
    """Play one deal on the kernel with the scripted ``picks[g]``; every seat's decisions as
    ``(index, features, mask, encodings, action)``, and the rewards and scores."""
    s = np.zeros(module.state_size(p), dtype=np.int64)
    module.reset(p, s, deal)
    mask = np.zeros(module.n_actions(p), dtype=np.bool_)
    feats = np.zeros(module.n_features(p))
    log: dict[int, list] = {}
    while True:
        seat = module.to_move(p, s)
        if seat < 0:
            break
        decisions = log.setdefault(seat, [])
        module.legal(p, s, seat, mask)
        module.features(p, s, seat, feats)
        codes = [module.encoding(p, s, seat, w) for w in range(module.n_encodings(p))]
        legal = scripted(module, mask)
        action = int(legal[picks[g, seat, len(decisions)] % len(legal)])
        decisions.append((module.observe_index(p, s, seat), feats.tolist(), mask.tolist(), codes, action))
        module.step(p, s, action)
    rewards = np.zeros(module.n_seats(p))
    scores = np.zeros(module.n_seats(p))
    module.rewards(p, s, rewards)
    module.scores(p, s, scores)
    return log, rewards, scores


def reference_agrees(game, deal, log, rewards, scores, where, parts=None) -> Replayed:
    """The reference replays ``deal`` with the kernel's actions: same decisions, same outcome.
    ``parts`` (optional, per seat): every decision's observation parts as shown, ``{name:
    (kind, value)}``, held to the parts the reference defines.  Returns the replay."""
    again = replay(game, deal, {seat: [d[-1] for d in decisions] for seat, decisions in log.items()})
    for seat in set(again.views) | set(log):
        shown = None if parts is None else parts.get(seat, [])
        check_views(game, log.get(seat, []), again.views.get(seat, []), (where, seat), shown)
    assert np.asarray(rewards).tolist() == again.rewards, (where, rewards, again.rewards)
    assert np.allclose(scores, again.scores, rtol=0, atol=1e-12), (where, scores, again.scores)
    return again


_REPLAYS: dict[str, Callable[[Any, np.ndarray, dict[int, list[int]]], Replayed]] = {
    "dtd": _dtd,
    "421": _dice421,
    "goofspiel": _goofspiel,
    "vautour": _vautour,
    "thirtyone": _thirtyone,
}


def has_reference(game: Any) -> bool:
    """Whether :func:`replay` knows ``game``."""
    return game.name in _REPLAYS


def check_views(game: Any, kernel_log: list[tuple], views: list[View], where: Any, parts: list | None = None) -> None:
    """Every decision of one seat of one game as the kernel logged it ``(index, features, mask,
    encodings, action)`` against the reference's :class:`View` of it; with ``parts`` (each
    decision's observation parts as shown, ``{name: (kind, value)}``), every part the
    reference defines too, exactly."""
    assert len(kernel_log) == len(views), (where, len(kernel_log), len(views))
    if parts is not None:
        assert len(parts) == len(views), (where, len(parts), len(views))
        for t, (shown, view) in enumerate(zip(parts, views)):
            for name, value in view.parts.items():
                assert shown[name][1] == value, (where, t, name, shown[name][1], value)
    names = list(game.encodings)
    for t, ((index, feats, mask, codes, _action), view) in enumerate(zip(kernel_log, views)):
        at = (where, t)
        assert np.flatnonzero(mask).tolist() == sorted(view.legal), at
        if view.index is not None:
            assert index == view.index, at
        for name, value in view.codes.items():
            assert codes[names.index(name)] == value, (at, name)
        if view.features is not None:
            assert np.allclose(feats, view.features, rtol=0, atol=1e-12), (at, feats, view.features)
