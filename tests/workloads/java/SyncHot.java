// SPDX-License-Identifier: GPL-2.0
// Workload: N threads take one Java monitor (synchronized) in a loop and
// hold it for a few microseconds each time, for SECONDS: a synchronized
// hot spot, the monitor inflating and its waiters parking.
//   java SyncHot N SECONDS
public class SyncHot {
    static final Object lock = new Object();
    static long counter;
    static void hot() {
        synchronized (lock) {
            for (int i = 0; i < 50; i++) counter = counter * 31 + i;
        }
    }
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        long end = System.nanoTime() + Long.parseLong(a[1]) * 1000000000L;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(() -> {
                while (System.nanoTime() < end)
                    for (int k = 0; k < 1000; k++) hot();
            }, "worker-" + i);
            ts[i].start();
        }
        System.out.println("ready");
        for (Thread t : ts)
            t.join();
        System.out.println("done");
    }
}
