# SPDX-License-Identifier: GPL-2.0
# Workload: THREADS CPython threads of pure-Python arithmetic for SECONDS:
# they take turns on the GIL (take_gil), one running at a time.
#   python3 gil_threads.py THREADS SECONDS
import sys
import threading
import time


def crunch(end):
    x = 0
    while time.monotonic() < end:
        for i in range(10000):
            x = (x * 31 + i) % 1000003
    return x


def main():
    n, secs = int(sys.argv[1]), float(sys.argv[2])
    end = time.monotonic() + (secs if secs > 0 else 1e9)
    ts = [threading.Thread(target=crunch, args=(end,), name="crunch-%d" % i) for i in range(n)]
    for t in ts:
        t.start()
    print("ready", flush=True)
    for t in ts:
        t.join()


main()
