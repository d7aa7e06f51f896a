#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What attaching costs (issue 12's table: attach time for 10 and 1000
# threads, peak RSS, BPF map memory): spinscope -p on a target of N idle
# threads (bench/threads_idle.c), for each thread count in each round, the
# order rotating every round. Per run:
#  - attach: from spawning spinscope to its "tracing ..." line (opening,
#    loading, attaching, seeding the target's threads, building the unwind
#    table of its libraries);
#  - peak RSS of the spinscope process (wait4), trace and report included;
#  - BPF map memory: the kernel's memlock of every map spinscope holds
#    (its /proc fdinfo), read while it traces.
# Prints a markdown table: medians and ranges over the rounds.
#
#   bench/attach_cost.sh [-r ROUNDS] [-t "10 1000"] [-x "SPINSCOPE ARGS"]
#
# As root, from the repository root (make bench-attach builds and runs it).
set -euo pipefail
ROUNDS=5
THREADS="10 1000"
EXTRA=""
usage() { sed -n '16,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "r:t:x:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	x) EXTRA=$OPTARG ;;
	*) usage ;;
	esac
done
export SPINSCOPE=${SPINSCOPE:-build/spinscope}
export TARGET=${TARGET:-build/bench/threads_idle}
for b in "$SPINSCOPE" "$TARGET"; do
	[ -x "$b" ] || { echo "attach_cost.sh: $b missing: run 'make bench-attach'" >&2; exit 2; }
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs" >&2

ROUNDS=$ROUNDS THREADS=$THREADS EXTRA=$EXTRA python3 - <<'EOF'
import os, statistics, subprocess, sys, tempfile, time

spinscope, target = os.environ["SPINSCOPE"], os.environ["TARGET"]
rounds = int(os.environ["ROUNDS"])
counts = [int(x) for x in os.environ["THREADS"].split()]
extra = os.environ["EXTRA"].split()

def map_memlock(pid):
    """Bytes of kernel memory locked by the BPF maps pid holds, per map once."""
    seen, total = set(), 0
    fddir = f"/proc/{pid}/fdinfo"
    for fd in os.listdir(fddir):
        try:
            info = dict(l.split(":", 1) for l in open(f"{fddir}/{fd}") if ":" in l)
        except OSError:
            continue
        if "map_id" in info and "memlock" in info:
            mid = int(info["map_id"])
            if mid not in seen:
                seen.add(mid)
                total += int(info["memlock"])
    return total

def one(n):
    tgt = subprocess.Popen([target, str(n)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = tgt.stdout.readline()
    if not line.startswith("ready"):
        sys.exit(f"attach_cost.sh: {target} {n} did not start: {line!r}")
    with tempfile.TemporaryFile(mode="w+") as err:
        t0 = time.monotonic()
        sp = subprocess.Popen([spinscope, "-p", str(tgt.pid), "-d", "2", "--no-calibrate", "--json"] + extra,
                              stdout=subprocess.DEVNULL, stderr=err, text=True)
        attach = None
        while attach is None:
            err.seek(0)
            if "tracing " in err.read():
                attach = time.monotonic() - t0
            elif sp.poll() is not None:
                err.seek(0)
                sys.exit(f"attach_cost.sh: spinscope exited {sp.returncode}: {err.read()}")
            else:
                time.sleep(0.0005)
        mem = map_memlock(sp.pid)
        _, status, ru = os.wait4(sp.pid, 0)
        sp.returncode = os.waitstatus_to_exitcode(status)
    tgt.stdin.close()
    tgt.wait()
    if sp.returncode != 0:
        sys.exit(f"attach_cost.sh: spinscope exited {sp.returncode}")
    return attach, ru.ru_maxrss / 1024.0, mem / 1048576.0

res = {n: [] for n in counts}
for r in range(rounds):
    order = counts[r % len(counts):] + counts[:r % len(counts)]
    for n in order:
        res[n].append(one(n))
    print(f"  round {r + 1}: load {open('/proc/loadavg').read().split()[0]}", file=sys.stderr)

def cell(vals, fmt):
    return f"{fmt % statistics.median(vals)} ({fmt % min(vals)}-{fmt % max(vals)})"

print("| target threads | runs | attach s, median (range) | peak RSS MiB | BPF map memory MiB |")
print("|---|---|---|---|---|")
for n in counts:
    a, rss, mem = zip(*res[n])
    print(f"| {n} | {len(a)} | {cell(a, '%.3f')} | {cell(rss, '%.1f')} | {cell(mem, '%.2f')} |")
EOF
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
