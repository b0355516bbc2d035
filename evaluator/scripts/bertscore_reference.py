"""Reference BERTScore for evaluator/tests/data/bertscore_m3e_small.json.

bert_score semantics with idf=False and no baseline rescaling, on an ONNX encoder directory, one text per
run (no padding). Usage (onnxruntime==1.32.0, tokenizers, numpy in a venv):

    python evaluator/scripts/bertscore_reference.py ../shared/models/m3e-small > evaluator/tests/data/bertscore_m3e_small.json
"""
import json, sys
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer

model_dir = sys.argv[1]
tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
tok.no_padding()
tok.enable_truncation(512)
sess = ort.InferenceSession(f"{model_dir}/model.onnx", providers=["CPUExecutionProvider"])
names = [i.name for i in sess.get_inputs()]

def embed(text):
    e = tok.encode(text)
    feed = {"input_ids": np.array([e.ids], dtype=np.int64), "attention_mask": np.array([e.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids], dtype=np.int64)}
    h = sess.run(None, {k: feed[k] for k in names})[0][0].astype(np.float64)
    h = h / np.linalg.norm(h, axis=1, keepdims=True)
    w = np.array([0.0 if s else 1.0 for s in e.special_tokens_mask])
    return h, w

def score(c, r):
    hc, wc = embed(c); hr, wr = embed(r)
    if wc.sum() == 0 or wr.sum() == 0: return 0.0, 0.0, 0.0
    sim = hc @ hr.T
    p = float((sim.max(axis=1) * wc).sum() / wc.sum())
    rr = float((sim.max(axis=0) * wr).sum() / wr.sum())
    f = 0.0 if p + rr == 0 else 2 * p * rr / (p + rr)
    return p, rr, f

pairs = [
    ("营收增长较快，毛利率下降明显", "营收增长较快，毛利率下降明显"),
    ("营收增长较快，但毛利率有所下降", "营收增长较快，毛利率下降明显"),
    ("今天天气很好", "营收增长较快，毛利率下降明显"),
    ("Earlier antiretroviral therapy delays viral rebound.", "Earlier antiretroviral-therapy initiation is associated with delayed viral rebound after analytical treatment interruption."),
    ("The court should affirm the judgment.", "The court should reverse."),
    ("", "Positive association"),
    ("Positive association", ""),
    ("机器学习 machine learning", "machine learning 机器学习"),
    ("{\"option\": \"positive\", \"value\": {\"odds_ratio\": 1.5}}", "{\"option\": \"positive\", \"value\": {\"n\": 10, \"odds_ratio\": 2.0}}"),
    ("根据《上市公司收购管理办法》第六条，应当披露。", "应当披露"),
]
out = {"source": "BERTScore (greedy cosine matching, idf=False, no baseline rescaling; [CLS]/[SEP] matched with weight 0) "
                  "computed with onnxruntime 1.32.0 + tokenizers 0.23.3 on ../shared/models/m3e-small by evaluator/scripts/bertscore_reference.py (batch size 1)",
       "pairs": [{"candidate": c, "reference": r, "precision": p, "recall": rr, "f1": f} for (c, r) in pairs for (p, rr, f) in [score(c, r)]]}
print(json.dumps(out, ensure_ascii=False, indent=1))
