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
# OMB_TP_MOCK (rust: the bench binary's own loopback mock, `OMB_BENCH_SERVE_PORT` mode, built
# like the bench: a plain answer to each generation request and a valid verdict for every rubric
# of each judge request, so both tools run their whole scoring path and the mock is not the
# bottleneck; golden: the golden Python mock, valid verdicts too, but itself the bottleneck on a
# loaded machine), OMB_TP_SEED (0: the rust mock's verdict seed), OMB_TP_ROUNDS (1: rounds, each
# running both tools, alternating which goes first; the best wall time of each is reported).
# OMB_TP_BIN: an already built bench binary (skips the build).
# The last line compares the two tools' scores (compare_scores.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${OMB_TP_WORK:-/tmp/omb-throughput}
conc=${OMB_TP_CONCURRENCY:-8}
delay=${OMB_TP_DELAY_MS:-100}
port=${OMB_TP_PORT:-18790}
venv=${OMB_TP_VENV:-/tmp/omb-evalscope-venv}
profile=${OMB_TP_PROFILE:-release}
mock_kind=${OMB_TP_MOCK:-rust}
seed=${OMB_TP_SEED:-0}
rounds=${OMB_TP_ROUNDS:-1}
base="http://127.0.0.1:$port/v1"
rm -rf "$work" && mkdir -p "$work"

python3 "$here/gen_dataset.py" "$work/data"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q evalscope==1.14.1
fi

if [ -n "${OMB_TP_BIN:-}" ]; then
  bin=$OMB_TP_BIN
else
  if [ "$profile" = release ]; then
    (cd "$root" && cargo bench -p anser-omb --bench throughput --no-run >"$work/build.log" 2>&1)
  else
    (cd "$root" && cargo build -p anser-omb --bench throughput >"$work/build.log" 2>&1)
  fi
  bin=$(ls -t "$root"/target/"$profile"/deps/throughput-* | grep -v '\.d$' | head -1)
fi

if [ "$mock_kind" = rust ]; then
  OMB_BENCH_SERVE_PORT="$port" OMB_BENCH_MOCK_DELAY_MS="$delay" OMB_BENCH_MOCK_SEED="$seed" "$bin" >"$work/mock.log" 2>&1 &
else
  python3 "$here/mock_delay.py" --delay-ms "$delay" --dataset "$work/data/test.jsonl" --port "$port" >"$work/mock.log" 2>&1 &
fi
mock=$!
trap 'kill $mock 2>/dev/null || true' EXIT
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
run_anser() {
  rm -rf "$work/anser"
  OMB_BENCH_DATASET="$work/data/test.jsonl" OMB_BENCH_BASE_URL="$base" OMB_BENCH_CONCURRENCY="$conc" \
    OMB_BENCH_OUT="$work/anser" /usr/bin/time -v "$bin" >"$work/anser.json" 2>"$work/anser.time"
  echo "round $1 anser     wall $(wall "$work/anser.time") s, peak RSS $(rss "$work/anser.time") kB, $(cut -d' ' -f1-3 /proc/loadavg) load"
  echo "$(wall "$work/anser.time") $(rss "$work/anser.time")" >>"$work/anser.rounds"
}
run_evalscope() {
  rm -rf "$work/evalscope"
  /usr/bin/time -v "$venv/bin/python" "$here/evalscope_run.py" "$work/data" "$base" "$conc" "$work/evalscope" \
    >"$work/evalscope.log" 2>"$work/evalscope.time"
  echo "round $1 evalscope wall $(wall "$work/evalscope.time") s, peak RSS $(rss "$work/evalscope.time") kB, $(cut -d' ' -f1-3 /proc/loadavg) load"
  echo "$(wall "$work/evalscope.time") $(rss "$work/evalscope.time")" >>"$work/evalscope.rounds"
}
# Rounds alternate which tool goes first, so a change of load hits both alike; best wall of each.
for round in $(seq "$rounds"); do
  if [ $((round % 2)) = 1 ]; then run_anser "$round"; run_evalscope "$round"; else run_evalscope "$round"; run_anser "$round"; fi
done
best() { sort -n "$1" | head -1; }
read -r aw ar < <(best "$work/anser.rounds")
read -r ew er < <(best "$work/evalscope.rounds")
echo "anser (last round): $(cat "$work/anser.json")"
echo "profile $profile, $mock_kind mock, concurrency $conc, mock delay $delay ms, 400 records (400 generation + 400 judge requests each), best of $rounds"
printf '%-10s %10s %14s\n' tool wall_s peak_rss_kb
printf '%-10s %10s %14s\n' anser "$aw" "$ar" evalscope "$ew" "$er"
awk -v aw="$aw" -v ew="$ew" -v ar="$ar" -v er="$er" \
  'BEGIN {printf "wall time: anser is %.2fx faster; peak RSS: anser uses %.3f of EvalScope'"'"'s (1/%.1f)\n", ew/aw, ar/er, er/ar}'
python3 "$here/compare_scores.py" "$work/anser/runs/throughput" "$work/evalscope"
