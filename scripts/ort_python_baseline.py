#!/usr/bin/env python3
"""Reference throughput of Python onnxruntime on an anser encoder directory.

The Rust side (`cargo bench -p anser-indexer --bench onnx_throughput`) writes the texts it
encodes to a JSON file (a list of strings); this script encodes the same texts the way
anser-encoder does (truncate to the model's maximum length, sort by token count, pad each batch
to its own longest text, mean pooling over the attention mask, L2 normalisation) with the same
batch size and intra-op thread count, and prints one JSON line with the timing.

Needs the PyPI `onnxruntime` wheel (the same version as the Rust side's libonnxruntime.so,
1.32.0 here), `tokenizers` and `numpy`, for example in a venv:

    python3 -m venv /tmp/ortvenv && /tmp/ortvenv/bin/pip install onnxruntime==1.32.0 tokenizers numpy
    /tmp/ortvenv/bin/python scripts/ort_python_baseline.py --model ../shared/models/m3e-small \
        --texts target/onnx-bench/finance_zh_rules.json --batch 32 --threads 2

`--vectors OUT.f32` also writes the vectors (little-endian f32, input order) so the two sides
can be compared.
"""

import argparse
import json
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="encoder directory: model.onnx + tokenizer.json")
    ap.add_argument("--texts", required=True, help="JSON file holding a list of strings")
    ap.add_argument("--batch", type=int, default=32, help="texts per session.run (default 32)")
    ap.add_argument("--threads", type=int, default=2, help="intra-op threads (default 2)")
    ap.add_argument("--max-length", type=int, default=512, help="tokens per text, special tokens included")
    ap.add_argument("--repeat", type=int, default=1, help="timed passes; the best one is reported")
    ap.add_argument("--vectors", help="write the pooled vectors here (little-endian f32, input order)")
    args = ap.parse_args()
    if args.batch < 1 or args.threads < 1 or args.max_length < 2 or args.repeat < 1:
        print("error: --batch, --threads and --repeat must be ≥ 1, --max-length ≥ 2", file=sys.stderr)
        return 2

    try:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as e:
        print(f"error: {e}; pip install onnxruntime==1.32.0 tokenizers numpy", file=sys.stderr)
        return 2

    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        print(f"error: {args.texts}: expected a JSON list of strings", file=sys.stderr)
        return 2

    max_length = args.max_length
    cfg_path = os.path.join(args.model, "config.json")
    if os.path.isfile(cfg_path):
        with open(cfg_path, encoding="utf-8") as f:
            max_length = min(max_length, json.load(f).get("max_position_embeddings", max_length))

    tok = Tokenizer.from_file(os.path.join(args.model, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length)
    pad_id = tok.token_to_id("[PAD]") or tok.token_to_id("<pad>") or 0

    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(
        os.path.join(args.model, "model.onnx"), sess_options=so, providers=["CPUExecutionProvider"]
    )
    input_names = [i.name for i in sess.get_inputs()]

    def encode(batch_texts):
        encodings = tok.encode_batch(batch_texts)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        vectors = [None] * len(batch_texts)
        for start in range(0, len(order), args.batch):
            rows = order[start : start + args.batch]
            seq = max(1, max(len(encodings[i].ids) for i in rows))
            ids = np.full((len(rows), seq), pad_id, dtype=np.int64)
            mask = np.zeros((len(rows), seq), dtype=np.int64)
            types = np.zeros((len(rows), seq), dtype=np.int64)
            for r, i in enumerate(rows):
                e = encodings[i]
                n = len(e.ids)
                ids[r, :n] = e.ids
                mask[r, :n] = e.attention_mask
                types[r, :n] = e.type_ids
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            hidden = sess.run(None, {k: feed[k] for k in input_names})[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            for r, i in enumerate(rows):
                vectors[i] = pooled[r]
        return vectors, sum(len(e.ids) for e in encodings)

    # Warm-up (first run allocates and plans), as the Rust side does.
    encode(texts[: args.batch])
    best = None
    vectors, tokens = None, 0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        vectors, tokens = encode(texts)
        s = time.perf_counter() - t0
        best = s if best is None else min(best, s)

    if args.vectors:
        np.stack(vectors).astype("<f4").tofile(args.vectors)
    print(
        json.dumps(
            {
                "runtime": f"python onnxruntime {ort.__version__}",
                "units": len(texts),
                "tokens": tokens,
                "batch": args.batch,
                "threads": args.threads,
                "seconds": best,
                "units_per_s": len(texts) / best,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
