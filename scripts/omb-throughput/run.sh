#!/usr/bin/env bash
# Throughput of the $OneMillion-Bench path at release size, anser vs EvalScope 1.14.1, side by side:
# the same synthetic 400-record dataset (gen_dataset.py), the same loopback mock with a fixed delay
# (mock_delay.py), the same concurrency for generation and judging. Wall time and peak RSS come
# from /usr/bin/time -v. Not part of CI (it needs EvalScope in a venv and takes minutes).
#
# Environment: OMB_TP_WORK (/tmp/omb-throughput), OMB_TP_CONCURRENCY (8), OMB_TP_DELAY_MS (100),
# OMB_TP_PORT (18790), OMB_TP_VENV (/tmp/omb-evalscope-venv; created with
# `pip install evalscope==1.14.1` when missing), OMB_TP_PROFILE (release; `debug` builds the
# bench without optimisation, e.g. on a machine where a release build takes too long),
# OMB_TP_MOCK (golden: the golden Python mock, valid verdicts, itself the bottleneck on a loaded
# machine; rust: `anser mock-llm` from target/debug, which answers every request with the same
# short text — judge replies then fail the contract on both sides, so the run measures
# transport and pipeline overhead against a server that is not the bottleneck).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${OMB_TP_WORK:-/tmp/omb-throughput}
conc=${OMB_TP_CONCURRENCY:-8}
delay=${OMB_TP_DELAY_MS:-100}
port=${OMB_TP_PORT:-18790}
venv=${OMB_TP_VENV:-/tmp/omb-evalscope-venv}
profile=${OMB_TP_PROFILE:-release}
mock_kind=${OMB_TP_MOCK:-golden}
base="http://127.0.0.1:$port/v1"
rm -rf "$work" && mkdir -p "$work"

python3 "$here/gen_dataset.py" "$work/data"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q evalscope==1.14.1
fi

if [ "$profile" = release ]; then
  (cd "$root" && cargo bench -p anser-omb --bench throughput --no-run >"$work/build.log" 2>&1)
else
  (cd "$root" && cargo build -p anser-omb --bench throughput >"$work/build.log" 2>&1)
fi
bin=$(ls -t "$root"/target/"$profile"/deps/throughput-* | grep -v '\.d$' | head -1)

if [ "$mock_kind" = rust ]; then
  "$root/target/debug/anser" mock-llm --delay-ms "$delay" --port "$port" >"$work/mock.log" 2>&1 &
else
  python3 "$here/mock_delay.py" --delay-ms "$delay" --dataset "$work/data/test.jsonl" --port "$port" >"$work/mock.log" 2>&1 &
fi
mock=$!
trap 'kill $mock 2>/dev/null || true' EXIT
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

OMB_BENCH_DATASET="$work/data/test.jsonl" OMB_BENCH_BASE_URL="$base" OMB_BENCH_CONCURRENCY="$conc" \
  OMB_BENCH_OUT="$work/anser" /usr/bin/time -v "$bin" >"$work/anser.json" 2>"$work/anser.time"
/usr/bin/time -v "$venv/bin/python" "$here/evalscope_run.py" "$work/data" "$base" "$conc" "$work/evalscope" \
  >"$work/evalscope.log" 2>"$work/evalscope.time"

wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
aw=$(wall "$work/anser.time"); ew=$(wall "$work/evalscope.time")
ar=$(rss "$work/anser.time"); er=$(rss "$work/evalscope.time")
echo "anser:     $(cat "$work/anser.json")"
echo "profile $profile, $mock_kind mock, concurrency $conc, mock delay $delay ms, 400 records (400 generation + 400 judge requests each)"
printf '%-10s %10s %14s\n' tool wall_s peak_rss_kb
printf '%-10s %10s %14s\n' anser "$aw" "$ar" evalscope "$ew" "$er"
awk -v aw="$aw" -v ew="$ew" -v ar="$ar" -v er="$er" \
  'BEGIN {printf "wall time: anser is %.2fx faster; peak RSS: anser uses %.3f of EvalScope'"'"'s (1/%.1f)\n", ew/aw, ar/er, er/ar}'
