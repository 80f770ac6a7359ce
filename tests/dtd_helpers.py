"""Helpers for divide-the-dollar tests: scripted decks, card names, and the rounds of a game read
from the driver's trace hook (``trace(seat, rows, observation, actions)``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from fsmarena.games.dtd.game import DivideTheDollar, DTDConfig
from fsmarena.games.players import Player

QUARTER, HALF, THREE_QUARTERS = 0, 1, 2
SMALL_SPOIL, MEDIAN, LARGE_MAX = 0, 1, 2


def small_game(counts=(2, 2, 2), hand_size=2) -> DivideTheDollar:
    """Default card values with a tiny deck, small enough to work out by hand."""
    return DivideTheDollar(DTDConfig(counts=counts, hand_size=hand_size))


def play_scripted(game, players, deck_order):
    """Play one game per row of ``deck_order`` (card types, the kernel's deal) with the given
    players; return (outcome, rounds) with the rounds of :func:`rounds_from`."""
    assert all(isinstance(p, Player) for p in players)
    deck_order = np.atleast_2d(np.asarray(deck_order, dtype=np.int64))
    n = len(deck_order)
    rng = np.random.default_rng(0)
    memories = [p.begin(game, n, None, rng) for p in players]
    decisions: list = []

    def decide(seat, obs, rows):
        return players[seat].act(obs, memories[seat], rows, rng)

    outcome = game.play(n, rng, decide, deals=deck_order, trace=lambda *decision: decisions.append(seen(*decision)))
    rounds = rounds_from(game, decisions, deck_order)
    totals = np.zeros((n, 2))
    for record in rounds:
        values = np.asarray(game.config.cards)
        totals[:, record["leader"]] += record["scored"] * values[record["lead_card"]]
        totals[:, 1 - record["leader"]] += record["scored"] * values[record["follow_card"]]
    np.testing.assert_allclose(outcome.scores, totals)  # the rounds read are the rounds scored
    return outcome, rounds


def seen(seat, rows, obs, actions) -> tuple:
    """What the trace hook shows of one decision, read at once (an observation's parts are read
    from the games' states on first use, and the states move on after the decision)."""
    parts = {name: np.array(getattr(obs, name), copy=True) for name in ("leading", "hand", "opp_last")}
    return seat, rows, parts, np.array(actions, copy=True)


def rounds_from(game, decisions: list, deck_order: np.ndarray) -> list[dict]:
    """Per round, from the decisions :func:`seen` recorded: the leader, the leader's and the
    follower's hands before the round (card counts per type), the lead card (the follower's
    ``opp_last``), the follow card and whether the round scored.  Every game of the batch
    plays in lock-step, so each decision holds every row.

    The follow card is what left the follower's hand: its hand when it leads the next round,
    less the card it drew from ``deck_order`` after this round.  In the last round there is no
    next hand, so it is the card ``follow_rule`` picks for the follower's action."""
    config = game.config
    h = config.hand_size
    asked = [(seat, parts, actions) for seat, rows, parts, actions in decisions]
    assert len(asked) == 2 * config.rounds
    n = len(deck_order)
    rounds = []
    for r in range(config.rounds):
        (leader, lead_seen, _), (follower, follow_seen, follow_actions) = asked[2 * r], asked[2 * r + 1]
        assert (leader, follower) == (r % 2, 1 - r % 2)
        assert bool(np.all(lead_seen["leading"])) and not np.any(follow_seen["leading"])
        lead_card = follow_seen["opp_last"] - 1
        hand = follow_seen["hand"]
        if r + 1 < config.rounds:
            next_hand = asked[2 * r + 2][1]["hand"]  # the follower leads the next round
            drawn = np.zeros_like(hand)
            position = 2 * h + 2 * r + follower  # seat 0 then seat 1 draw after each round
            if position < config.deck_size:
                drawn[np.arange(n), deck_order[:, position]] = 1
            left = hand + drawn - next_hand
            assert np.all(left.sum(axis=1) == 1) and np.all(left >= 0)
            follow_card = left.argmax(axis=1)
        else:
            follow_card = np.array(
                [follow_rule(config, hand[i], int(lead_card[i]), int(follow_actions[i])) for i in range(n)]
            )
        rounds.append(
            {
                "round": r,
                "leader": leader,
                "lead_card": lead_card,
                "follow_card": follow_card,
                "scored": np.array([fits(config, a, b) for a, b in zip(lead_card, follow_card)]),
                "hands": (lead_seen["hand"], hand) if leader == 0 else (hand, lead_seen["hand"]),
            }
        )
    return rounds


def fits(config, a: int, b: int) -> bool:
    """Whether cards of types ``a`` and ``b`` sum to at most the dollar (exact fractions)."""
    exact = [Fraction(c).limit_denominator(10_000) for c in config.cards]
    return exact[a] + exact[b] <= Fraction(config.dollar).limit_denominator(10_000)


def follow_rule(config, counts: np.ndarray, lead: int, action: int) -> int:
    """The card a follower with hand ``counts`` plays on ``lead`` (the rules in words)."""
    cards = [k for k, count in enumerate(counts) for _ in range(int(count))]
    if action == MEDIAN:
        return cards[config.hand_size // 2]
    if action == SMALL_SPOIL:
        spoilers = [k for k in cards if not fits(config, lead, k)]
        return spoilers[0] if spoilers else cards[-1]
    fitting = [k for k in cards if fits(config, lead, k)]
    return fitting[-1] if fitting else cards[0]
