#!/usr/bin/env bash
# Release-scale measurements (README "Release scale"): generate the release-size sample, build
# the BM25 index of every route one by one, then run `--method offline` and `--method retrieval`
# over all release-size tasks. Every step runs under `/usr/bin/time -v` (wall time, peak RSS);
# index sizes and the sample's disk use come from `du`. Prints one table row per step and writes
# the raw logs next to the output.
#
# Usage: scripts/release-bench.sh [OUT_DIR] [SCALE]
#   OUT_DIR  where the sample, indexes and runs go (default: ./release-bench); the sample is
#            reused when OUT_DIR/sample already holds it (same seed, size and scale)
#   SCALE    fraction in (0, 1] of the release counts (default 1: the full release, ~2.2 GB)
# ANSER_RELEASE_SAMPLE=DIR uses (or generates) the sample in DIR instead of OUT_DIR/sample;
# ANSER_BIN=PATH uses that binary instead of building target/release/anser; SKIP_INDEX=1 keeps
# the indexes already in OUT_DIR/indices (runs only); METHODS="offline" runs only those methods.
# Each run also prints its overhead per route. Under load, the CPU seconds (user + sys) printed
# beside the wall time say more than the wall time.
# Needs: a release build (built here), GNU time (/usr/bin/time), python3 (summaries only).
# Never run by tests or CI: the full size takes tens of minutes and several GB of disk.
set -euo pipefail

OUT=${1:-release-bench}
SCALE=${2:-1}
BIN=${ANSER_BIN:-target/release/anser}
SAMPLE=${ANSER_RELEASE_SAMPLE:-$OUT/sample}
INDEX="$OUT/indices"
RUNS="$OUT/runs"
LOGS="$OUT/logs"
ROUTES=(finance_zh_reports finance_zh_rules finance_en_reports finance_en_capital_rules finance_en_audit
  legal_zh_cases legal_zh_statutes legal_en_cases legal_en_precedents science_articles)

if [[ ! -x /usr/bin/time ]]; then
  echo "release-bench: /usr/bin/time (GNU time) is missing; install the 'time' package" >&2
  exit 2
fi
if [[ -z ${ANSER_BIN:-} ]]; then
  cargo build --release --bin anser
fi
mkdir -p "$OUT" "$LOGS"

# "wall_s peak_rss_mib cpu_s" of a `/usr/bin/time -v` log.
time_of() {
  python3 - "$1" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", text).group(1)) for k in ("User", "System"))
print(f"{secs:.1f} {rss / 1024:.0f} {cpu:.1f}")
EOF
}

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. Generate (unless the sample is there: `anser sample` leaves its marker file last).
if [[ -f "$SAMPLE/anser-sample.json" ]]; then
  echo "generate: reusing the sample in $SAMPLE"
else
  /usr/bin/time -v "$BIN" sample --size release --scale "$SCALE" --out "$SAMPLE" > "$LOGS/sample.out" 2> "$LOGS/sample.time"
  read -r wall rss cpu < <(time_of "$LOGS/sample.time")
  echo "generate: ${wall} s (cpu ${cpu} s), peak RSS ${rss} MiB, disk $(du -sh "$SAMPLE" | cut -f1) (load $(cut -d' ' -f1 /proc/loadavg))"
  head -1 "$LOGS/sample.out"
fi

# 2. BM25 per route (default analyzers), one process per route so each gets its own peak RSS.
if [[ -z ${SKIP_INDEX:-} ]]; then
printf '%-26s %10s %9s %9s %10s %9s\n' route units build_s cpu_s index_MiB rss_MiB
total_wall=0
total_cpu=0
max_rss=0
for route in "${ROUTES[@]}"; do
  /usr/bin/time -v "$BIN" index --corpus-root "$SAMPLE/corpus" --index-dir "$INDEX" --routes "$route" --rebuild \
    > "$LOGS/index-$route.out" 2> "$LOGS/index-$route.time"
  read -r wall rss cpu < <(time_of "$LOGS/index-$route.time")
  units=$(grep -o '[0-9]* units' "$LOGS/index-$route.out" | head -1 | cut -d' ' -f1)
  size=$(du -sm "$INDEX/$route" | cut -f1)
  printf '%-26s %10s %9s %9s %10s %9s  load %s\n' "$route" "$units" "$wall" "$cpu" "$size" "$rss" "$(cut -d' ' -f1 /proc/loadavg)"
  total_wall=$(python3 -c "print(round($total_wall + $wall, 1))")
  total_cpu=$(python3 -c "print(round($total_cpu + $cpu, 1))")
  max_rss=$(( rss > max_rss ? rss : max_rss ))
done
printf '%-26s %10s %9s %9s %10s %9s\n' "all ten routes" "" "$total_wall" "$total_cpu" "$(du -sm "$INDEX" | cut -f1)" "$max_rss"
echo "(load after indexing: $(cut -d' ' -f1-3 /proc/loadavg))"
fi

# 3. Full runs over every release-size task. Offline has no LLM call, so a task's latency in
# trace.jsonl (task_end) is all non-LLM overhead: tools, corpus opening and the loop.
for method in ${METHODS:-offline retrieval}; do
  rm -rf "${RUNS:?}/rel-$method"
  /usr/bin/time -v "$BIN" run --method "$method" --run-name "rel-$method" --benchmark-dir "$SAMPLE/query" \
    --corpus-root "$SAMPLE/corpus" --index-dir "$INDEX" --output-dir "$RUNS" --quiet \
    > "$LOGS/run-$method.out" 2> "$LOGS/run-$method.time" || true
  read -r wall rss cpu < <(time_of "$LOGS/run-$method.time")
  python3 - "$RUNS/rel-$method" "$method" "$wall" "$rss" "$cpu" <<'EOF'
import collections, json, sys
run, method, wall, rss, cpu = sys.argv[1:]
lat, llm = {}, {}
for line in open(f"{run}/trace.jsonl", encoding="utf-8"):
    e = json.loads(line)
    if e["event"] == "task_end":
        lat[e["task_id"]] = e["detail"]["latency"]
    elif e["event"] == "llm_call":
        llm[e["task_id"]] = llm.get(e["task_id"], 0.0) + e["seconds"]
route = {t["id"]: t["route"] for t in json.load(open(f"{run}/selection.json", encoding="utf-8"))}
per_task = {t: (lat[t] - llm.get(t, 0.0)) * 1000 for t in lat}
def q(values, p):
    return values[round((len(values) - 1) * p)]
over = sorted(per_task.values())
print(f"run {method}: {len(over)} tasks, wall {wall} s (cpu {cpu} s), peak RSS {rss} MiB, "
      f"non-LLM overhead per task p50 {q(over, 0.5):.1f} ms, p95 {q(over, 0.95):.1f} ms, max {over[-1]:.1f} ms")
by_route = collections.defaultdict(list)
for t, ms in per_task.items():
    by_route[route.get(t, "?")].append(ms)
for r, values in sorted(by_route.items()):
    values.sort()
    print(f"  {r:26s} {len(values):5d} tasks  p50 {q(values, 0.5):8.1f}  p95 {q(values, 0.95):8.1f}  max {values[-1]:8.1f} ms")
EOF
  echo "(load: $(cut -d' ' -f1-3 /proc/loadavg))"
  # The run's own summary: how many tasks finished, then the evaluation over all of them.
  head -1 "$LOGS/run-$method.out"
  sed -n '/^all (/,/Latency p95/p' "$LOGS/run-$method.out"
done
echo "(load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
