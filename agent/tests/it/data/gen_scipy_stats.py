"""Reference values for agent/tests/it/stats.rs, computed once with scipy.

Run: python3 -m venv /tmp/v && /tmp/v/bin/pip install scipy==1.17.1 numpy
     /tmp/v/bin/python agent/tests/it/data/gen_scipy_stats.py > agent/tests/it/data/scipy_stats.json
"""
import json
import math

import numpy as np
import scipy
from scipy import stats

rng = np.random.default_rng(7)
tables = [
    [3, 1, 1, 3], [4, 0, 0, 4], [2, 2, 2, 2], [38, 20, 48, 73], [24, 134, 163, 368],
    [43, 45, 115, 63], [6, 66, 42, 49], [0, 12, 5, 9], [7, 0, 3, 11], [1, 0, 0, 1],
    [136, 13, 26, 33], [500, 480, 470, 520], [1, 99, 30, 70], [12, 5, 0, 0 + 1],
]
for _ in range(30):
    tables.append([int(v) for v in rng.integers(0, 60, size=4)])
tables = [t for t in tables if (t[0] + t[1]) > 0 and (t[2] + t[3]) > 0]


def wald(t, always):
    c = [v + 0.5 for v in t] if (always or 0 in t) else [float(v) for v in t]
    a, b, cc, d = c
    lor = math.log(a * d / (b * cc))
    se = math.sqrt(1 / a + 1 / b + 1 / cc + 1 / d)
    return a * d / (b * cc), float(2 * stats.norm.sf(abs(lor / se)))


rows = []
for t in tables:
    or_raw, p_raw = wald(t, False)
    or_h, p_h = wald(t, True)
    rows.append({
        "table": t,
        "fisher_p": float(stats.fisher_exact([[t[0], t[1]], [t[2], t[3]]], alternative="two-sided").pvalue),
        "odds_ratio": or_raw, "wald_p": p_raw,
        "odds_ratio_haldane": or_h, "wald_p_haldane": p_h,
    })
normal = [{"z": z, "p": float(2 * stats.norm.sf(abs(z)))} for z in [0.0, 0.1, 0.5, 1.0, 1.6448536, 1.959964, 2.5, 3.0, 3.5, 4.2, 5.0, 6.5, -2.2]]
medians = []
for n in [1, 2, 3, 10, 11, 57]:
    v = [float(x) for x in rng.integers(0, 40, size=n)]
    medians.append({"values": v, "median": float(np.median(v))})
print(json.dumps({"scipy": scipy.__version__, "numpy": np.__version__, "tables": rows, "normal": normal,
                  "medians": medians}, indent=1))
