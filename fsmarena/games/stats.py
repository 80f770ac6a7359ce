"""Interval estimates used wherever results are reported (matches, tournaments, studies)."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; (nan, nan) when ``n == 0``.

    Preferred over the normal interval because it stays inside [0, 1] and behaves at rates
    near 0 or 1 (a strong player against ``random``).
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation interval for a mean from its sum and sum of squares."""
    if n <= 0:
        return (math.nan, math.nan)
    mean = total / n
    if n == 1:
        return (mean, mean)
    variance = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z * math.sqrt(variance / n)
    return (mean - half, mean + half)
