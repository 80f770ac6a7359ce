"""The kernel contract's functions as placeholders of the compiled templates, declared once.

A loop written once for every game (the driver's loops over rows, the compiled players'
interpreter, the sequential learners' training loop) calls a kernel function through one of these
names; :func:`fsmarena.specialise.specialise` binds each to that kernel's function when it
compiles the loop for a kernel (:mod:`fsmarena.games.kernel` is the contract).  Every template
module imports the names it reads from here.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from fsmarena.jit import njit
from fsmarena.specialise import built_per_kernel, kernel_function, specialise


@njit
def no_builtin_law(p, s, seat, code, args, out):
    """The stand-in of a kernel without ``builtin_law`` (never asked:
    :class:`fsmarena.games.builtin_player.BuiltinPlayer` checks first): every entry -1."""
    out[:] = -1.0


k_n_seats = kernel_function("n_seats")
k_n_actions = kernel_function("n_actions")
k_n_features = kernel_function("n_features")
k_state_size = kernel_function("state_size")
k_deal_size = kernel_function("deal_size")
k_draw_deal = kernel_function("draw_deal")
k_reset = kernel_function("reset")
k_to_move = kernel_function("to_move")
k_legal = kernel_function("legal")
k_observe_index = kernel_function("observe_index")
k_features = kernel_function("features")
k_encoding = kernel_function("encoding")
k_observe_part = kernel_function("observe_part")
k_step = kernel_function("step")
k_rewards = kernel_function("rewards")
k_scores = kernel_function("scores")
k_builtin_action = kernel_function("builtin_action")
k_builtin_law = kernel_function("builtin_law", no_builtin_law)


def is_legal_by_mask(p, s, seat, action, mask):
    """The stand-in of a kernel without ``is_legal`` (:mod:`fsmarena.games.kernel`): its mask, read."""
    k_legal(p, s, seat, mask)
    return mask[action]


def make_is_legal(kernel: ModuleType) -> Callable[..., Any]:
    """The kernel's own ``is_legal``, or :func:`is_legal_by_mask` for it (compiled into callers)."""
    own = getattr(kernel, "is_legal", None)
    return own if own is not None else specialise(is_legal_by_mask, kernel, inline=True)


k_is_legal = built_per_kernel(make_is_legal)


def objective_function(kernel: ModuleType) -> Callable[..., Any]:
    """What a learner maximises in ``kernel``'s game: its ``scores`` when the kernel declares
    ``OBJECTIVE = "score"`` (the game's ``objective``, a non-zero-sum game's score per turn), its
    ranking ``rewards`` otherwise."""
    return kernel.scores if getattr(kernel, "OBJECTIVE", "rank") == "score" else kernel.rewards


k_objective = built_per_kernel(objective_function)
