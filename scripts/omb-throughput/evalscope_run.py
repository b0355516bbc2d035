#!/usr/bin/env python3
"""EvalScope 1.14.1 on the synthetic dataset against the delayed mock: generation + judging at
one concurrency (`eval_batch_size`, used by inference and judging alike), as the golden run was
made (TaskConfig with dataset_args.one_million_bench.dataset_id = DIR).

Usage: evalscope_run.py DATA_DIR BASE_URL CONCURRENCY WORK_DIR
"""

import sys

from evalscope import TaskConfig, run_task

data_dir, base_url, concurrency, work_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
config = TaskConfig(
    model='mock-answerer',
    api_url=base_url,
    api_key='EMPTY',
    eval_type='openai_api',
    datasets=['one_million_bench'],
    dataset_args={'one_million_bench': {'dataset_id': data_dir}},
    judge={'strategy': 'llm', 'models': [{'model_id': 'mock-judge', 'api_url': base_url, 'api_key': 'EMPTY'}]},
    eval_batch_size=concurrency,
    work_dir=work_dir,
    no_timestamp=True,
)
run_task(config)
