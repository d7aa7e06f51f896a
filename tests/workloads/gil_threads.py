#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Workload: T threads of pure-Python arithmetic on CPython's GIL.

    gil_threads T SECONDS

The threads never share data, so on a free-threaded interpreter they would
run in parallel; on a GIL build they take turns. Known answer: the process
runs about one CPU's worth however many CPUs are free (serialization on the
GIL). As every workload (workload.h): prints "ready pid=N" and waits for
go (SIGUSR1, or a line on stdin), then "done loops=N".
"""
import ctypes
import os
import select
import signal
import sys
import threading
import time


def crunch(stop, counts, i):
    n = 0
    while not stop.is_set():
        x = 0
        for k in range(1000):
            x += k * k
        n += 1
    counts[i] = n


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gil_threads T SECONDS")
    t, seconds = int(sys.argv[1]), float(sys.argv[2])
    signal.alarm(120)  # never outlive a test that forgot it (workload.h)
    if os.environ.get("WL_COMM"):  # a name for every thread (workload.h)
        ctypes.CDLL(None).prctl(15, os.environ["WL_COMM"].encode(), 0, 0, 0)  # PR_SET_NAME
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    print(f"ready pid={os.getpid()}", flush=True)
    while not signal.sigtimedwait({signal.SIGUSR1}, 0.05):
        readable, _, _ = select.select([sys.stdin], [], [], 0)
        if readable and sys.stdin.readline():
            break
    stop = threading.Event()
    counts = [0] * t
    threads = [threading.Thread(target=crunch, args=(stop, counts, i)) for i in range(t)]
    for th in threads:
        th.start()
    time.sleep(seconds)
    stop.set()
    for th in threads:
        th.join()
    print(f"done loops={sum(counts)}", flush=True)


main()
