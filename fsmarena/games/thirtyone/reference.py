"""A plain-Python, one-game-at-a-time 31 (Scat / Blitz): the oracle and the benchmark baseline.

Written from the rules in words (:mod:`fsmarena.games.thirtyone.game`), independently of the
compiled kernel (:mod:`fsmarena.games.thirtyone.kernel`): lists of card numbers, the rules
spelled out step by step, its own scoring, canonical order, greedy player and observation
formulas.  It serves two purposes: the tests replay the kernel's games on it (the decks the
kernel deals, the actions its players chose) and require the same game decision by decision
(the legal actions, the tabular index, the encodings, the features and the observation parts,
:func:`observe`), the same rounds and the same final lives; and ``fsmarena bench thirtyone``
reports the kernel's speed as a ratio to :func:`plain_loop`, measured in the same run.

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
BLITZ2 = 62  # a hand of 31, doubled
SUIT_NAMES = "SHDC"
SUIT_TOTAL = 95  # the values of one suit's 13 cards: 2 + ... + 10 + 3 * 10 + 11
#: the lowest score (in points) of each score bucket after the first: <=16, 17-19, 20-22,
#: 23-25, 26-27, 28, 29, 30+
SCORE_THRESHOLDS = (17, 20, 23, 26, 28, 29, 30)
#: the lowest gain (in whole points) of each gain bucket after the first: <=0, 1-4, 5-9, 10+
GAIN_THRESHOLDS = (1, 5, 10)
N_SCORE, N_GAIN, N_TURN = 8, 4, 4


def card_value(card: int) -> int:
    return RANK_VALUES[card % 13]


def double_score(hand: Sequence[int], three_of_a_kind: float | None) -> int:
    """Twice the hand's score: the best single-suit sum (three of a kind if that rule is on)."""
    sums = [0, 0, 0, 0]
    for card in hand:
        sums[card // 13] += RANK_VALUES[card % 13]
    best = 2 * max(sums)
    if three_of_a_kind is not None and len(hand) == 3 and hand[0] % 13 == hand[1] % 13 == hand[2] % 13:
        best = max(best, int(round(2 * three_of_a_kind)))
    return best


def canonical(hand: Sequence[int]) -> list[int]:
    """The order hands are kept in: the strongest suit group first, then by value, then by
    card number, all descending."""
    sums = [0, 0, 0, 0]
    for card in hand:
        sums[card // 13] += card_value(card)
    return sorted(hand, key=lambda c: (sums[c // 13], card_value(c), c), reverse=True)


def swapped(hand: Sequence[int], position: int, card: int) -> list[int]:
    """The hand with ``card`` in place of the card at ``position``."""
    return [card if i == position else c for i, c in enumerate(hand)]


@dataclass
class View:
    """What the deciding player sees (the reference's counterpart of an Observation)."""

    seat: int
    phase: int  # 0 = turn decision, 1 = discard decision
    hand: list[int]  # canonical order
    top: int  # face-up card on the discard pile (-1 when taking it emptied the pile)
    drawn: int  # the card just drawn (phase 1), else -1
    from_discard: bool  # phase 1: the drawn card came from the discard pile
    knocked: bool  # someone has knocked this round
    round_turn: int  # turns completed this round
    pile: list[int]  # discard pile, bottom first (phase 0: includes top; phase 1: not the drawn card)
    #: per other live seat, the cards known to sit in its hand (taken from the pile and still there)
    known_in: dict[int, list[int]] = field(default_factory=dict)
    legal: list[int] = field(default_factory=list)
    lives: list[int] = field(default_factory=list)  # every seat's lives
    thrown: dict[int, list[int]] = field(default_factory=dict)  # per live seat, the cards it threw this round
    rounds: int = 0  # rounds completed
    turns_before: int = 0  # turns played in earlier rounds
    stock_left: int = 0  # cards left in the stock
    #: :func:`expected_draw` of this view, by rule (computed once: greedy and observe both ask)
    expected: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def known(self) -> list[int]:
        """Every card known to sit in another player's hand."""
        return [card for cards in self.known_in.values() for card in cards]


Policy = Callable[[View], int]


def expected_draw(view: View, three_of_a_kind: float | None) -> tuple[int, int]:
    """The sum, over the cards the player cannot locate (not in its hand, the discard pile or a
    hand known to hold them; the card in the air counts as unseen), of the doubled score of
    the best three of the four cards after drawing it; and how many such cards there are."""
    if three_of_a_kind in view.expected:
        return view.expected[three_of_a_kind]
    hand = view.hand
    excluded = set(hand) | set(view.pile) | set(view.known)
    unseen = [c for c in range(52) if c not in excluded]
    current = double_score(hand, three_of_a_kind)
    total = 0
    for card in unseen:
        total += max(current, best_swap(hand, card, three_of_a_kind))
    view.expected[three_of_a_kind] = total, len(unseen)
    return total, len(unseen)


def best_swap(hand: Sequence[int], card: int, three_of_a_kind: float | None) -> int:
    """The doubled score of the best hand with ``card`` in place of one of the three."""
    a, b, c = hand
    tok = three_of_a_kind
    return max(double_score((card, b, c), tok), double_score((a, card, c), tok), double_score((a, b, card), tok))


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
        with_top = best_swap(hand, view.top, three_of_a_kind)
        if with_top <= current:
            return DRAW_DECK
        total, count = expected_draw(view, three_of_a_kind)
        return DRAW_DISCARD if with_top * count > total else DRAW_DECK
    options = []  # (score, total, preference) for each choice
    if not view.from_discard:
        options.append((double_score(hand, three_of_a_kind), sum(map(card_value, hand)), 3, DISCARD_DRAWN))
    for i in range(3):
        new = swapped(hand, i, view.drawn)
        options.append((double_score(new, three_of_a_kind), sum(map(card_value, new)), i, DISCARD_0 + i))
    return max(options)[3]


# ---- observations --------------------------------------------------------------------------


@dataclass
class Observed:
    """A decision as the game's observations describe it (``ThirtyOne``'s docs): the tabular
    index, the encodings and the features by name, and the other parts by name."""

    index: int
    encodings: dict[str, int]
    features: dict[str, float]
    parts: dict[str, object]


def score_bucket(score2: int) -> int:
    return sum(score2 >= 2 * t for t in SCORE_THRESHOLDS)


def gain_bucket(gain2: int) -> int:
    """The bucket of a doubled gain, counted in whole points (rounded down)."""
    return sum(gain2 // 2 >= t for t in GAIN_THRESHOLDS)


def live_seats(view: View) -> list[int]:
    return [s for s, lives in enumerate(view.lives) if lives > 0]


def turn_bucket(view: View) -> int:
    """0 the round's very first turn, 1 its first two laps, 2 laps 3-4, 3 later."""
    turn, lap = view.round_turn, len(live_seats(view))
    return 0 if turn == 0 else 1 if turn < 2 * lap else 2 if turn < 4 * lap else 3


def fewest_opposing_lives(view: View, lives: int) -> int:
    """The fewest lives among the other live players (``lives``, the most, when none)."""
    return min([n for s, n in enumerate(view.lives) if s != view.seat and n > 0], default=lives)


def greedy_turn(view: View, three_of_a_kind: float | None) -> int:
    """Greedy's turn decision (0 the stock, 1 the face-up card); 0 at a discard decision."""
    return greedy(view, three_of_a_kind) if view.phase == 0 else DRAW_DECK


def greedy_discard(view: View, three_of_a_kind: float | None) -> tuple[int, int]:
    """Greedy's discard decision: the position it throws (3 = the drawn card) and the doubled
    score of the hand it keeps."""
    position = greedy(view, three_of_a_kind) - DISCARD_0
    kept = view.hand if position == 3 else swapped(view.hand, position, view.drawn)
    return position, double_score(kept, three_of_a_kind)


def neighbours(view: View) -> tuple[int, int]:
    """The next live seat clockwise (left) and the one before (right)."""
    live = live_seats(view)
    k = live.index(view.seat)
    return live[(k + 1) % len(live)], live[(k - 1) % len(live)]


def observe(config, view: View) -> Observed:
    """The index, encodings, features and parts of the decision ``view`` under the rules
    ``config`` (a ``ThirtyOneConfig``), from the formulas of the game's docs."""
    tok, L = config.three_of_a_kind, config.lives
    own = double_score(view.hand, tok)
    knocked = int(view.knocked)
    total, count = expected_draw(view, tok)
    if view.phase == 0:
        option = best_swap(view.hand, view.top, tok)
        choice = greedy_turn(view, tok)
        gain = gain_bucket(option - own)
        lives = (view.lives[view.seat] - 1) * L + fewest_opposing_lives(view, L) - 1
        index = (((score_bucket(own) * N_GAIN + gain) * N_TURN + turn_bucket(view)) * (L * L) + lives) * 2 + knocked
        discard_code = 0
    else:
        choice, option = greedy_discard(view, tok)
        gain = gain_bucket(option - own)
        code = ((int(view.from_discard) * 4 + choice) * N_SCORE + score_bucket(option)) * N_GAIN + gain
        index = N_SCORE * N_GAIN * N_TURN * L * L * 2 + code * 2 + knocked
        discard_code = choice
    encodings = {
        "phase": view.phase,
        "knocked": knocked,
        "score_bucket": score_bucket(own),
        "gain_bucket": gain,
        "turn_bucket": turn_bucket(view),
        "greedy_discard": discard_code,
        "greedy_turn": choice if view.phase == 0 else DRAW_DECK,
    }
    parts: dict[str, object] = {
        "step": view.turns_before + view.round_turn,
        "score2": own,
        "hand": list(view.hand),
        "top": view.top,
        "drawn": view.drawn,
        "from_discard": view.from_discard,
        "round_turn": view.round_turn,
        "round": view.rounds,
        "lives": list(view.lives),
        "expected_draw2": total / max(count, 1),
        "segment": view.rounds,
    }
    return Observed(index, encodings, features(config, view, own, option, total, count, choice), parts)


def features(config, view: View, own: int, option: int, total: int, count: int, choice: int) -> dict[str, float]:
    """The feature vector by name (the game's ``FEATURE_DOC`` says what each means)."""
    out: dict[str, float] = {}

    def suit_slots(prefix: str, card: int) -> None:
        for k, suit in enumerate(SUIT_NAMES):
            out[f"{prefix}_{suit}"] = card_value(card) / 11.0 if card >= 0 and card // 13 == k else 0.0

    def suit_values(prefix: str, cards: Sequence[int], scale: float) -> None:
        for k, suit in enumerate(SUIT_NAMES):
            out[f"{prefix}_{suit}"] = sum(card_value(c) for c in cards if c // 13 == k) / scale

    for p in range(3):
        suit_slots(f"hand{p}", view.hand[p])
    suit_slots("top", view.top)
    suit_slots("drawn", view.drawn)
    out["phase"] = float(view.phase)
    out["from_discard"] = float(view.from_discard)
    out["score"] = own / BLITZ2
    out["option_score"] = option / BLITZ2
    out["expected_draw"] = (total / max(count, 1)) / BLITZ2
    candidate = view.top if view.phase == 0 else view.drawn
    for p in range(3):
        after = double_score(swapped(view.hand, p, candidate), config.three_of_a_kind) if candidate >= 0 else own
        out[f"swap_score_{p}"] = after / BLITZ2
    for k in range(4):
        out[f"greedy_{k}"] = 1.0 if choice == k else 0.0
    for k, suit in enumerate(SUIT_NAMES):
        out[f"pile_seen_{suit}"] = sum(1 for c in view.pile if c // 13 == k) / 13.0
    located = set(view.hand) | set(view.pile) | set(view.known)
    suit_values("unseen_value", [c for c in range(52) if c not in located], float(SUIT_TOTAL))
    for side, neighbour in zip(("left", "right"), neighbours(view)):
        other = neighbour != view.seat
        suit_values(f"{side}_known", view.known_in[neighbour] if other else [], 31.0)
        suit_values(f"{side}_thrown", view.thrown[neighbour] if other else [], float(SUIT_TOTAL))
    S, L = config.players, config.lives
    out["first_turn"] = 1.0 if view.round_turn == 0 else 0.0
    out["knocked"] = 1.0 if view.knocked else 0.0
    out["turn"] = min(view.round_turn / config.max_turns, 1.0)
    out["own_lives"] = view.lives[view.seat] / L
    out["min_opp_lives"] = fewest_opposing_lives(view, L) / L
    out["opponents_left"] = (len(live_seats(view)) - 1) / (S - 1)
    out["stock_left"] = view.stock_left / 52.0
    return out


# ---- a game ---------------------------------------------------------------------------------


@dataclass
class RoundRecord:
    """How a round ended: ``kind`` in {'deal31', 'blitz', 'gun', 'knock', 'cap'}, the
    knocker (-1 if none), and the lives after it."""

    kind: str
    knocker: int
    lives: list[int]


def final_rewards(lives: Sequence[int]) -> list[float]:
    """+1 for the last player standing (or the sole player with the most lives when the
    round cap stopped the game), 0 for a shared first place, -1 for everybody else."""
    best = max(lives)
    shared = list(lives).count(best) > 1
    return [(0.0 if shared else 1.0) if n == best else -1.0 for n in lives]


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
    turns_before = 0
    while sum(1 for x in lives if x > 0) > 1 and rounds < config.max_rounds:
        deck = list(deck_for_round(rounds))
        kind, knocker, scores, turns = _play_round(config, policies, deck, lives, first, rounds, turns_before)
        alive = [s for s in range(S) if lives[s] > 0]
        losses = {s: 0 for s in alive}
        if kind in ("deal31", "blitz"):
            for s in alive:
                if scores[s] != BLITZ2:
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
        turns_before += turns
        first = _next_alive(first, lives, S)
    return lives


def _next_alive(seat: int, lives: list[int], S: int) -> int:
    for step in range(1, S + 1):
        candidate = (seat + step) % S
        if lives[candidate] > 0:
            return candidate
    return seat


@dataclass
class _RoundTable:
    """One round's table as it is played (:func:`_play_round`): the live seats in turn order from
    the round's first player, their hands (canonical order), the discard pile (bottom first), the
    stock, the cards face up since they last left the stock, the cards each seat threw, the
    knocker (-1: none) and the turns played; and, for the views, the game's lives, the rounds
    completed and the turns played in earlier rounds."""

    order: list[int]
    hands: dict[int, list[int]]
    pile: list[int]
    stock: list[int]
    public: set[int]
    thrown: dict[int, list[int]]
    lives: list[int]
    rounds: int
    turns_before: int
    knocker: int = -1
    turn: int = 0

    def scores(self, three_of_a_kind: float | None) -> dict[int, int]:
        """Every live seat's doubled score."""
        return {s: double_score(self.hands[s], three_of_a_kind) for s in self.order}

    def view(
        self, seat: int, phase: int, known_in: dict, legal: list[int], drawn: int = -1, from_discard: bool = False
    ) -> View:
        """What ``seat`` sees at its turn decision (``phase`` 0) or its discard decision (1)."""
        return View(
            seat=seat,
            phase=phase,
            hand=list(self.hands[seat]),
            top=self.pile[-1] if self.pile else -1,
            drawn=drawn,
            from_discard=from_discard,
            knocked=self.knocker >= 0,
            round_turn=self.turn,
            pile=list(self.pile),
            known_in=known_in,
            legal=legal,
            lives=list(self.lives),
            thrown={s: list(cards) for s, cards in self.thrown.items()},
            rounds=self.rounds,
            turns_before=self.turns_before,
            stock_left=len(self.stock),
        )


def _deal_round(config, deck: list[int], lives: list[int], first: int, rounds: int, turns_before: int) -> _RoundTable:
    """The table after a round's deal: three cards to each live seat in turn from ``first`` on,
    then one card face up on the discard pile; the rest of ``deck`` is the stock."""
    S = config.players
    order = [(first + k) % S for k in range(S) if lives[(first + k) % S] > 0]
    hands: dict[int, list[int]] = {}
    position = 0
    for s in order:
        hands[s] = canonical(deck[position : position + 3])
        position += 3
    pile = [deck[position]]
    thrown: dict[int, list[int]] = {s: [] for s in order}
    return _RoundTable(order, hands, pile, deck[position + 1 :], {pile[0]}, thrown, lives, rounds, turns_before)


def _draw(table: _RoundTable, action: int) -> int:
    """The card a turn's ``action`` draws: the stock's first (when the stock is empty, the discard
    pile but its top card is turned over as the new stock) or the discard pile's top."""
    if action == DRAW_DECK:
        if not table.stock:
            table.stock = table.pile[:-1]
            table.pile = table.pile[-1:]
            table.public -= set(table.stock)
        return table.stock.pop(0)
    return table.pile.pop()


def _draw_and_discard(config, policies, table: _RoundTable, seat: int, action: int, known_in: dict) -> bool:
    """The rest of a turn that draws (``action``, from the stock or the discard pile): ``seat``
    draws, decides which card it throws and throws it.  Returns whether its hand is then 31."""
    tok = config.three_of_a_kind
    drawn = _draw(table, action)
    from_discard = action == DRAW_DISCARD
    legal = [DISCARD_GREEDY, DISCARD_0, DISCARD_1, DISCARD_2] + ([] if from_discard else [DISCARD_DRAWN])
    seen = table.view(seat, 1, known_in, legal, drawn, from_discard)
    choice = policies[seat](seen)
    if choice not in legal:
        raise ValueError(f"illegal discard action {choice}")
    if choice == DISCARD_GREEDY:  # the abstract action: whatever greedy would throw
        choice = greedy(seen, tok)
    if choice == DISCARD_DRAWN:
        card = drawn
    else:
        hand = table.hands[seat]
        card = hand[choice - DISCARD_0]
        hand[choice - DISCARD_0] = drawn
        table.hands[seat] = canonical(hand)
    table.pile.append(card)
    table.public.add(card)
    if card not in table.thrown[seat]:  # a card thrown again (taken back in between) counts once
        table.thrown[seat].append(card)
    return double_score(table.hands[seat], tok) == BLITZ2


def _play_round(config, policies, deck: list[int], lives: list[int], first: int, rounds: int, turns_before: int):
    """Play one round; return (kind, knocker, doubled scores by seat, turns played: the turn
    that ends the round counts, a knock is a turn)."""
    tok = config.three_of_a_kind
    table = _deal_round(config, deck, lives, first, rounds, turns_before)
    order = table.order
    if any(double_score(table.hands[s], tok) == BLITZ2 for s in order):
        return "deal31", -1, table.scores(tok), 0
    last_turns = 0
    mover_index = 0
    while True:
        if table.turn >= config.max_turns:
            return "cap", table.knocker, table.scores(tok), table.turn
        seat = order[mover_index]
        known_in = {s: [c for c in table.hands[s] if c in table.public] for s in order if s != seat}
        legal = [DRAW_DECK, DRAW_DISCARD] + ([KNOCK] if table.knocker < 0 else [])
        action = policies[seat](table.view(seat, 0, known_in, legal))
        if action not in legal:
            raise ValueError(f"illegal turn action {action}")
        if action == KNOCK:
            table.knocker = seat
            if table.turn == 0 and config.under_the_gun:
                return "gun", table.knocker, table.scores(tok), table.turn + 1
            last_turns = len(order) - 1
        else:
            if _draw_and_discard(config, policies, table, seat, action, known_in):
                return "blitz", table.knocker, table.scores(tok), table.turn + 1
            if table.knocker >= 0 and seat != table.knocker:
                last_turns -= 1
        table.turn += 1
        if table.knocker >= 0 and last_turns == 0:
            return "knock", table.knocker, table.scores(tok), table.turn
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
