"""A plain-Python, one-game-at-a-time 31 (Scat / Blitz): the oracle and the benchmark baseline.

Written independently of the batched engine in :mod:`fsmarena.games.thirtyone.game` (lists of card numbers,
the rules spelled out step by step, its own scoring and its own greedy player), it serves two
purposes: tests check that the engine and this loop produce the same rounds and the same
final lives from the same deck orders with the same deterministic players, and
``fsmarena bench thirtyone`` reports the engine's speed as a ratio to it, measured in the same
run.  The rules are those documented in :mod:`fsmarena.games.thirtyone.game`.

Cards are 0..51: suit ``card // 13``, rank ``card % 13`` (0 = two ... 8 = ten, 9..11 = jack,
queen, king, 12 = ace).  Scores are kept doubled (integers) so that the optional three of a
kind worth 30.5 compares exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Sequence

DRAW_DECK, DRAW_DISCARD, KNOCK, DISCARD_GREEDY, DISCARD_0, DISCARD_1, DISCARD_2, DISCARD_DRAWN = range(8)
RANK_VALUES = (2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11)


def card_value(card: int) -> int:
    return RANK_VALUES[card % 13]


def double_score(hand: Sequence[int], three_of_a_kind: float | None) -> int:
    """Twice the hand's score: the best single-suit sum (three of a kind if that rule is on)."""
    sums = [0, 0, 0, 0]
    for card in hand:
        sums[card // 13] += card_value(card)
    best = 2 * max(sums)
    ranks = {card % 13 for card in hand}
    if three_of_a_kind is not None and len(hand) == 3 and len(ranks) == 1:
        best = max(best, int(round(2 * three_of_a_kind)))
    return best


def canonical(hand: Sequence[int]) -> list[int]:
    """The order the engine keeps a hand in: the strongest suit group first, then by value,
    then by card number, all descending."""
    sums = [0, 0, 0, 0]
    for card in hand:
        sums[card // 13] += card_value(card)
    return sorted(hand, key=lambda c: (sums[c // 13], card_value(c), c), reverse=True)


@dataclass
class View:
    """What the deciding player sees (the reference's counterpart of an Observation)."""

    seat: int
    phase: int  # 0 = turn decision, 1 = discard decision
    hand: list[int]  # canonical order
    top: int  # face-up card on the discard pile (phase 0)
    drawn: int  # the card just drawn (phase 1), else -1
    from_discard: bool  # phase 1: the drawn card came from the discard pile
    knocked: bool  # someone has knocked this round
    round_turn: int  # turns completed this round
    pile: list[int]  # discard pile, bottom first (phase 0: includes top)
    known: list[int]  # cards known to sit in other players' hands
    legal: list[int] = field(default_factory=list)


Policy = Callable[[View], int]


def greedy(view: View, three_of_a_kind: float | None = None, threshold: float | None = None) -> int:
    """The reference greedy: take the discard when its known result beats the expected result
    of a deck draw (over cards not in the own hand, the pile or known hands), else draw; after
    drawing, discard to maximise (score, hand total), ties to the drawn card then the last
    position.  With ``threshold``, knock when allowed and the score is at least the threshold."""
    hand = view.hand
    if view.phase == 0:
        current = double_score(hand, three_of_a_kind)
        if threshold is not None and KNOCK in view.legal and current >= round(2 * threshold):
            return KNOCK
        with_top = max(double_score(hand[:i] + [view.top] + hand[i + 1 :], three_of_a_kind) for i in range(3))
        if with_top <= current:
            return DRAW_DECK
        excluded = set(hand) | set(view.pile) | set(view.known)
        unseen = [c for c in range(52) if c not in excluded]
        total = 0
        for card in unseen:
            best = current
            for i in range(3):
                best = max(best, double_score(hand[:i] + [card] + hand[i + 1 :], three_of_a_kind))
            total += best
        return DRAW_DISCARD if with_top * len(unseen) > total else DRAW_DECK
    options = []  # (score, total, preference) for each choice
    if not view.from_discard:
        options.append((double_score(hand, three_of_a_kind), sum(map(card_value, hand)), 3, DISCARD_DRAWN))
    for i in range(3):
        new = hand[:i] + [view.drawn] + hand[i + 1 :]
        options.append((double_score(new, three_of_a_kind), sum(map(card_value, new)), i, DISCARD_0 + i))
    return max(options)[3]


@dataclass
class RoundRecord:
    """How a round ended: ``kind`` in {'deal31', 'blitz', 'gun', 'knock', 'cap'}, the
    knocker (-1 if none), and the lives after it."""

    kind: str
    knocker: int
    lives: list[int]


def play_game(
    config, policies: Sequence[Policy], deck_for_round: Callable[[int], Sequence[int]], records: list | None = None
) -> list[int]:
    """One full game; returns the final lives.  ``deck_for_round(r)`` gives round r's card
    order (52 distinct cards: dealt three at a time to the live players from the round's first
    player on, then one card face up, then drawn in order)."""
    S = config.players
    lives = [config.lives] * S
    first = 0
    rounds = 0
    while sum(1 for x in lives if x > 0) > 1 and rounds < config.max_rounds:
        kind, knocker, scores = _play_round(config, policies, list(deck_for_round(rounds)), lives, first)
        alive = [s for s in range(S) if lives[s] > 0]
        losses = {s: 0 for s in alive}
        if kind in ("deal31", "blitz"):
            for s in alive:
                if scores[s] != 62:
                    losses[s] = 1
            if all(losses[s] for s in alive):  # impossible, kept for symmetry with the tie rule
                losses = {s: 0 for s in alive}
        else:
            low = min(scores[s] for s in alive)
            lowest = [s for s in alive if scores[s] == low]
            if len(lowest) < len(alive):
                for s in lowest:
                    losses[s] = 2 if s == knocker else 1
        for s in alive:
            lives[s] = max(0, lives[s] - losses[s])
        if records is not None:
            records.append(RoundRecord(kind, knocker, list(lives)))
        rounds += 1
        first = _next_alive(first, lives, S)
    return lives


def _next_alive(seat: int, lives: list[int], S: int) -> int:
    for step in range(1, S + 1):
        candidate = (seat + step) % S
        if lives[candidate] > 0:
            return candidate
    return seat


def _play_round(config, policies, deck: list[int], lives: list[int], first: int):
    """Play one round; return (kind, knocker, doubled scores by seat)."""
    S = config.players
    tok = config.three_of_a_kind
    order = [(first + k) % S for k in range(S) if lives[(first + k) % S] > 0]
    hands: dict[int, list[int]] = {}
    position = 0
    for s in order:
        hands[s] = canonical(deck[position : position + 3])
        position += 3
    pile = [deck[position]]
    position += 1
    stock = deck[position:]
    public = {pile[0]}  # cards that have been face up since they last left the stock

    def scores() -> dict[int, int]:
        return {s: double_score(hands[s], tok) for s in order}

    if any(double_score(hands[s], tok) == 62 for s in order):
        return "deal31", -1, scores()
    knocker = -1
    last_turns = 0
    turn = 0
    mover_index = 0
    while True:
        if turn >= config.max_turns:
            return "cap", knocker, scores()
        seat = order[mover_index]
        known = [c for s in order if s != seat for c in hands[s] if c in public]
        legal = [DRAW_DECK, DRAW_DISCARD] + ([KNOCK] if knocker < 0 else [])
        view = View(seat, 0, list(hands[seat]), pile[-1], -1, False, knocker >= 0, turn, list(pile), known, legal)
        action = policies[seat](view)
        if action not in legal:
            raise ValueError(f"illegal turn action {action}")
        if action == KNOCK:
            knocker = seat
            if turn == 0 and config.under_the_gun:
                return "gun", knocker, scores()
            last_turns = len(order) - 1
        else:
            if action == DRAW_DECK:
                if not stock:  # turn the discard pile (all but its top card) over as the new stock
                    stock = pile[:-1]
                    pile = pile[-1:]
                    public -= set(stock)
                drawn = stock.pop(0)
            else:
                drawn = pile.pop()
            from_discard = action == DRAW_DISCARD
            legal = [DISCARD_GREEDY, DISCARD_0, DISCARD_1, DISCARD_2] + ([] if from_discard else [DISCARD_DRAWN])
            view = View(
                seat,
                1,
                list(hands[seat]),
                pile[-1] if pile else -1,
                drawn,
                from_discard,
                knocker >= 0,
                turn,
                list(pile),
                known,
                legal,
            )
            choice = policies[seat](view)
            if choice not in legal:
                raise ValueError(f"illegal discard action {choice}")
            if choice == DISCARD_GREEDY:  # the abstract action: whatever greedy would throw
                choice = greedy(view, tok)
            if choice == DISCARD_DRAWN:
                thrown = drawn
            else:
                hand = hands[seat]
                thrown = hand[choice - DISCARD_0]
                hand[choice - DISCARD_0] = drawn
                hands[seat] = canonical(hand)
            pile.append(thrown)
            public.add(thrown)
            if double_score(hands[seat], tok) == 62:
                return "blitz", knocker, scores()
            if knocker >= 0 and seat != knocker:
                last_turns -= 1
        turn += 1
        if knocker >= 0 and last_turns == 0:
            return "knock", knocker, scores()
        mover_index = (mover_index + 1) % len(order)


def plain_loop(config, n_games: int, seed: int, policies: Sequence[Policy] | None = None) -> int:
    """The benchmark baseline: ``n_games`` complete games in plain Python (greedy players by
    default); returns how many seat 0 won."""
    rng = random.Random(seed)
    tok = config.three_of_a_kind
    players = policies or [lambda view: greedy(view, tok)] * config.players
    cards = list(range(52))

    def deck_for_round(_round: int) -> list[int]:
        rng.shuffle(cards)
        return cards

    wins = 0
    for _ in range(n_games):
        lives = play_game(config, players, deck_for_round)
        wins += lives[0] > 0
    return wins
