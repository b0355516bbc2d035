"""Reference values for the anser-reports statistics, computed with numpy/scipy.

Regenerate (writes stats_reference.json next to this file):
    python3 -m venv /tmp/statsvenv && /tmp/statsvenv/bin/pip install numpy scipy
    /tmp/statsvenv/bin/python reports/tests/data/stats_reference.py

Each case is one metric of one group compared between a baseline `a` and a run `b` over the
same tasks. What is exact in scipy (means, the exact sign-flip p-value, Holm) must match to
1e-12; what is Monte Carlo (bootstrap CIs, the sign-flip p-value with many non-zero pairs) is
computed here with many more resamples than anser uses, and the stored tolerance is four
standard errors of anser's own Monte Carlo error (10,000 resamples); for the CI ends 0.12
bootstrap standard deviations (about four standard errors of a 2.5 % quantile from 10,000
resamples) plus one lattice step of the mean. Checked: over 30 seeds no anser value left its
tolerance.
"""

import json
import math
import pathlib

import numpy as np
from scipy import stats

RNG = np.random.default_rng(20240601)
ANSER_RESAMPLES = 10_000
REF_BOOT = 200_000
REF_PERM = 200_000


def case(name, a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    d = b - a
    nonzero = int(np.count_nonzero(d))
    exact = nonzero <= 20
    # Zero differences do not change any sign-flipped sum, so the exact distribution over the
    # non-zero ones gives the same p-value as over all 2^n sign vectors (and is feasible).
    res = stats.permutation_test(
        (d[d != 0] if exact and nonzero >= 2 else d,), np.mean, permutation_type="samples", alternative="two-sided",
        n_resamples=np.inf if exact else REF_PERM, random_state=RNG, vectorized=True, batch=20_000,
    )
    p = float(res.pvalue)
    if exact:
        p_tol = 1e-12
    else:
        p_tol = 4 * 2 * math.sqrt(max(p / 2 * (1 - p / 2), 1e-4) / ANSER_RESAMPLES)
    boot = stats.bootstrap((d,), np.mean, method="percentile", n_resamples=REF_BOOT,
                           confidence_level=0.95, random_state=RNG, vectorized=True, batch=20_000)
    sd = float(boot.standard_error)
    # Means of values on a grid (Recall@5 in steps of 0.2, 0/1 accuracy) have a discrete bootstrap
    # distribution: a Monte Carlo percentile can land one lattice step away from the reference.
    lattice = float(np.abs(d[d != 0]).min() / len(d)) if nonzero else 0.0
    lo, hi = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
    return {
        "name": name, "a": a.tolist(), "b": b.tolist(),
        "mean_a": float(a.mean()), "mean_b": float(b.mean()), "delta": float(d.mean()),
        "nonzero_pairs": nonzero, "p_exact": exact, "p_value": p, "p_tolerance": p_tol,
        "ci95": [lo, hi], "ci_tolerance": 0.12 * sd + lattice,
    }


def grid(n, step, p_up):
    """Paired values on a grid (like Recall@5 in steps of 0.2): b improves on a sometimes."""
    a = RNG.integers(0, int(round(1 / step)) + 1, n) * step
    shift = (RNG.random(n) < p_up).astype(float) * step - (RNG.random(n) < 0.15).astype(float) * step
    b = np.clip(a + shift, 0, 1)
    return np.round(a, 10), np.round(b, 10)


cases = []
a, b = grid(20, 0.2, 0.35)
cases.append(case("recall_20_tasks", a, b))
a = (RNG.random(12) < 0.4).astype(float)
b = np.where(RNG.random(12) < 0.5, 1.0, a)
cases.append(case("accuracy_12_tasks", a, b))
a, b = grid(57, 0.2, 0.3)
cases.append(case("recall_57_tasks", a, b))
a = RNG.beta(2, 5, 40)
b = np.clip(a + RNG.normal(0.03, 0.08, 40), 0, 1)
cases.append(case("token_f1_40_tasks_monte_carlo", a, b))
a = RNG.gamma(2.0, 10.0, 15)
b = a + RNG.normal(-2.0, 4.0, 15)
cases.append(case("mae_15_tasks", a, b))
a = np.array([0.5, 0.5, 0.5])
cases.append(case("no_difference", a, a.copy()))

# Holm over the raw p-values of the cases above taken as one family, plus a hand-made family,
# computed without statsmodels: sort, multiply by (m - i), running max, clip at 1.
def holm(p):
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    adj = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adj[i] = running
    return adj.tolist()

families = [
    {"p": [c["p_value"] for c in cases if c["p_exact"]]},
    {"p": [0.001, 0.04, 0.03, 0.2, 0.0125]},
]
for f in families:
    f["adjusted"] = holm(f["p"])

out = {"generator": f"numpy {np.__version__}, scipy {__import__('scipy').__version__}",
       "cases": cases, "holm": families}
path = pathlib.Path(__file__).with_name("stats_reference.json")
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}")
