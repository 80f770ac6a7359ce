"""Torch set up for reproducible training: one thread and deterministic operations.

With the same seed, a deep family must give the same weights and results on any machine load
and for any ``--jobs``: a study runs its tasks in parallel processes already, so torch gets one
thread (also the fastest for networks this small), and torch's deterministic algorithms are
required for the block.  Both are put back afterwards, so a program calling the training keeps
its own settings.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch


@contextmanager
def deterministic_torch() -> Iterator[None]:
    """Inside the block: one torch thread and deterministic algorithms only."""
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)
