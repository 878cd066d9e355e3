"""Interval arithmetic shared by every evaluation (stdlib only, so each layer may use it)."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (sane at 0/n and n/n, unlike the Wald one)."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    # At k == 0 (k == n) the bound is exactly 0 (1); say so instead of leaving float dust.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def rate_json(k: int, n: int) -> dict[str, object]:
    """k of n as {"k", "n", "rate", "ci95"} (rate and interval None when n is 0)."""
    if n <= 0:
        return {"k": k, "n": n, "rate": None, "ci95": None}
    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4), "ci95": [round(low, 4), round(high, 4)]}
