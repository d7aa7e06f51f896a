#!/bin/bash
# Repeatability of `spinscope calibrate --quick`: runs it N times (default 5)
# and prints, for each headline figure, the median over the runs and the
# coefficient of variation between runs, as a markdown table for
# docs/BENCHMARKS.md. Goals (issue 3): CV <= 5% for instruction costs,
# <= 10% for contention figures.
#
#   bench/calibrate_repeat.sh [RUNS]      (as root, from the repository root)
set -euo pipefail
runs=${1:-5}
bin=${SPINSCOPE:-./build/spinscope}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for i in $(seq 1 "$runs"); do
	echo "run $i/$runs (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
	"$bin" calibrate --quick --json -o "$dir/run$i.json" >/dev/null 2>"$dir/run$i.err" || {
		echo "calibrate run $i failed:" >&2
		cat "$dir/run$i.err" >&2
		exit 1
	}
done

python3 - "$dir" "$runs" <<'PY'
import json, statistics, sys
d, runs = sys.argv[1], int(sys.argv[2])
docs = [json.load(open(f"{d}/run{i}.json")) for i in range(1, runs + 1)]

def get(doc, path):
    v = doc["results"]
    for k in path.split("."):
        if v is None:
            return None
        v = v.get(k) if isinstance(v, dict) else None
    if isinstance(v, dict):
        v = v.get("median")
    return v

# (family, figure path, label, kind): kind "instr" has a 5% goal, "cont" 10%.
figures = [
    ("spin_hint", "ns_per_hint.pause", "PAUSE, ns", "instr"),
    ("spin_hint", "ns_per_hint.nop", "NOP, ns", "instr"),
    ("memory_order", "uncontended.store_release", "release store, ns", "instr"),
    ("memory_order", "uncontended.store_seq_cst", "seq_cst store, ns", "instr"),
    ("memory_order", "uncontended.store_fence", "store + fence, ns", "instr"),
    ("memory_order", "uncontended.cas_seq_cst", "CAS seq_cst, ns", "instr"),
    ("false_sharing", "ratio_unpadded_padded", "unpadded/padded, 2 threads", "cont"),
    ("spin_threshold", "contention.light.best.acq_per_s", "best lock, light, acq/s", "cont"),
    ("spin_threshold", "contention.light.mutex_acq_per_s", "pthread_mutex, light, acq/s", "cont"),
    ("host_costs", "summary.futex_handoff_cross_cpu_ns", "futex handoff across CPUs, ns", "cont"),
    ("host_costs", "summary.futex_handoff_same_cpu_ns", "futex handoff same CPU, ns", "cont"),
    ("host_costs", "summary.yield_alone_ns", "sched_yield alone, ns", "cont"),
    ("host_costs", "summary.c2c_median_ns", "cache-line round trip, ns", "cont"),
    ("host_costs", "summary.tracing_ns_per_event", "spinscope tracing, ns/event", "cont"),
]
print(f"| family | figure | median of {runs} runs | CV between runs | goal | met |")
print("|---|---|---|---|---|---|")
for fam, path, label, kind in figures:
    vals = [get(doc, f"{fam}.{path}") for doc in docs]
    vals = [v for v in vals if isinstance(v, (int, float))]
    if len(vals) < 2:
        print(f"| {fam} | {label} | n/a | n/a | | skipped |")
        continue
    med = statistics.median(vals)
    cv = statistics.pstdev(vals) / statistics.mean(vals) if statistics.mean(vals) else float("nan")
    goal = 0.05 if kind == "instr" else 0.10
    print(f"| {fam} | {label} | {med:.4g} | {cv * 100:.1f}% | {goal * 100:.0f}% | {'yes' if cv <= goal else 'no'} |")
loads = [doc["host"].get("load1") for doc in docs]
print(f"\nload average at the start of each run: {', '.join(str(l) for l in loads)}")
PY
