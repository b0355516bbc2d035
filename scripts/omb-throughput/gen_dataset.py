#!/usr/bin/env python3
"""Synthetic $OneMillion-Bench release-size dataset for the throughput harness (never used in CI).

Shape from the release card (EvalScope's adapter description of the public release): 400 tasks,
40 per language x domain subset (10 subsets), 11-37 rubrics per task, weights from -20 to 12 with
at least one positive and one negative rubric per task. The card gives no prompt-length figures;
questions here are 800-6,000 characters ("context-heavy"), drawn uniformly with a fixed seed.
The text is filler; only sizes matter for throughput.

Usage: gen_dataset.py OUT_DIR   (writes OUT_DIR/test.jsonl, the layout EvalScope loads)
"""

import json
import os
import random
import sys

PAIRS = [
    ('global', 'Economics and Finance'), ('global', 'Healthcare and Medicine'), ('global', 'Industry'),
    ('global', 'Law'), ('global', 'Natural Sciences'),
    ('cn', '经济金融'), ('cn', '医疗健康'), ('cn', '工业'), ('cn', '法律'), ('cn', '自然科学'),
]
LABELS = ['Time-agnostic', 'Weakly time-sensitive', '强时效性']
WORDS_EN = 'market risk dose clause sample yield margin trial statute reactor capital filing'.split()
WORDS_CN = list('市场风险剂量条款样本收益保证金试验法规反应器资本披露')


def text(rng, language, n_chars):
    if language == 'cn':
        return ''.join(rng.choice(WORDS_CN) for _ in range(n_chars))
    out = []
    while sum(len(w) + 1 for w in out) < n_chars:
        out.append(rng.choice(WORDS_EN))
    return ' '.join(out)[:n_chars]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(20261203)
    with open(os.path.join(out_dir, 'test.jsonl'), 'w', encoding='utf-8') as f:
        n = 0
        for language, topic in PAIRS:
            for _ in range(40):
                n += 1
                k = rng.randint(11, 37)
                weights = [rng.randint(1, 12)] + [rng.randint(-20, -1)] + [rng.choice([rng.randint(-20, -1), rng.randint(1, 12)]) for _ in range(k - 2)]
                record = {
                    'id': f'omb-bench-{n:03d}',
                    'case_id': 100000 + n,
                    'language': language,
                    'tags': {'topics': [topic], 'time_sensitivity': {'label': rng.choice(LABELS)}},
                    'question': f'[{n}] ' + text(rng, language, rng.randint(800, 6000)),
                    'rubrics': [
                        {'rubric_number': i + 1, 'rubric_detail': text(rng, language, rng.randint(40, 160)),
                         'rubric_weight': w, 'rubric_tag': 'Analytical Reasoning'}
                        for i, w in enumerate(weights)
                    ],
                }
                f.write(json.dumps(record, ensure_ascii=False) + '\n')
    print(f'wrote {n} records to {out_dir}/test.jsonl')


if __name__ == '__main__':
    main()
