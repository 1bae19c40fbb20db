#!/usr/bin/env python3
"""Prints the exact (Garwood) 95% Poisson bounds on the mean for n = 1..29 observed events, as the
C table of native/interception-profiler/src/allocation/sampled_estimate.c:
  L(n): the mean at which P(X >= n) = 0.025  (= chi2_0.025(2n) / 2)
  U(n): the mean at which P(X <= n) = 0.025  (= chi2_0.975(2n + 2) / 2)
Each found by bisection on the Poisson CDF alone (no chi-square or gamma function), in 60-digit
decimal arithmetic, to far below the 17 digits printed.
Run: python3 tools/make_poisson_bounds.py"""
from decimal import Decimal, getcontext

getcontext().prec = 60
BELOW = 30  # AIP_POISSON_EXACT_BELOW in sampled_estimate.h
TAIL = Decimal("0.025")


def cdf(n, mean):
    """P(X <= n) for X ~ Poisson(mean)."""
    term = (-mean).exp()
    total = term
    for k in range(1, n + 1):
        term = term * mean / k
        total += term
    return total


def bisect(falls, low, high):
    """The mean where falls(mean) turns true (false at low, true at high)."""
    for _ in range(240):
        mid = (low + high) / 2
        if falls(mid):
            high = mid
        else:
            low = mid
    return (low + high) / 2


def main():
    lows, highs = [], []
    for n in range(1, BELOW):
        # P(X >= n) = 1 - P(X <= n - 1) grows with the mean: L where it reaches 0.025.
        lows.append(bisect(lambda m: 1 - cdf(n - 1, m) >= TAIL, Decimal(0), Decimal(200)))
        # P(X <= n) falls as the mean grows: U where it drops to 0.025.
        highs.append(bisect(lambda m: cdf(n, m) <= TAIL, Decimal(0), Decimal(200)))
    print("/* n = 1..%d: L(n), U(n) */" % (BELOW - 1))
    for n, (lo, hi) in enumerate(zip(lows, highs), start=1):
        print("    {%.17g, %.17g}, /* %d */" % (float(lo), float(hi), n))


if __name__ == "__main__":
    main()
