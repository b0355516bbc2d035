#!/usr/bin/env python3
"""Check that anser and EvalScope scored the throughput run identically: per sample (status,
expert_score, pass) and per report cell (overall, category and subset expert_score and
pass_rate, with the samples counted). Prints one line; exits 1 on any difference.

Usage: compare_scores.py ANSER_RUN_DIR EVALSCOPE_WORK_DIR
  (ANSER_RUN_DIR holds samples.jsonl and report.json; EVALSCOPE_WORK_DIR is evalscope_run.py's)
"""

import glob
import json
import os
import sys


def main() -> int:
    anser_dir, es_dir = sys.argv[1], sys.argv[2]
    anser = {}
    with open(os.path.join(anser_dir, 'samples.jsonl'), encoding='utf-8') as f:
        for line in f:
            s = json.loads(line)
            anser[s['id']] = (s['status'] == 'scored', s['expert_score'], s['pass'])
    es = {}
    for path in glob.glob(os.path.join(es_dir, 'reviews', '*', '*.jsonl')):
        with open(path, encoding='utf-8') as f:
            for line in f:
                r = json.loads(line)
                score = r['sample_score']['score']
                ok = score.get('status') == 'success'
                value = score.get('value') or {}
                es[r['sample_score']['sample_metadata']['id']] = (
                    ok, value.get('expert_score') if ok else None, value.get('pass_rate') if ok else None)
    diffs = []
    for sid in sorted(set(anser) | set(es)):
        a, e = anser.get(sid), es.get(sid)
        if a is None or e is None or a[0] != e[0] or (a[0] and (abs(a[1] - e[1]) > 1e-9 or a[2] != e[2])):
            diffs.append(f'{sid}: anser {a} evalscope {e}')

    with open(os.path.join(anser_dir, 'report.json'), encoding='utf-8') as f:
        report = json.load(f)
    cells = 0
    reports = glob.glob(os.path.join(es_dir, 'reports', '*', '*.json'))
    with open(reports[0], encoding='utf-8') as f:
        es_report = json.load(f)
    for metric in es_report['metrics']:
        name = metric['identity']['name']
        if name not in ('expert_score', 'pass_rate'):
            continue
        pairs = [('overall', metric['score'], report['overall'][name])]
        for cat in metric['categories']:
            label = cat['name'][0]
            pairs.append((label, cat['score'], report['categories'][label][name]))
            for sub in cat['subsets']:
                pairs.append((sub['name'], sub['score'], report['subsets'][sub['name']][name]))
        for where, e, a in pairs:
            cells += 1
            if abs(e - a) > 1e-9:
                diffs.append(f'{name} {where}: anser {a} evalscope {e}')
    scored = sum(1 for v in anser.values() if v[0])
    passed = sum(1 for v in anser.values() if v[0] and v[2])
    if diffs:
        print(f'scores DIFFER in {len(diffs)} place(s): ' + '; '.join(diffs[:5]))
        return 1
    print(f'scores identical: {len(anser)} samples ({scored} scored, {passed} passed) and {cells} report cells; '
          f'overall expert_score {report["overall"]["expert_score"]}, pass_rate {report["overall"]["pass_rate"]}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
