// SPDX-License-Identifier: GPL-2.0
// Workload: THREADS threads in a synchronized storm (mode sync: one
// monitor taken in a lambda) or on one ReentrantLock (mode lock) for
// SECONDS (0: until killed).
//   java SyncStorm sync|lock THREADS SECONDS
import java.util.concurrent.locks.ReentrantLock;

public class SyncStorm {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static long counter;

    static void section() {
        for (int i = 0; i < 200; i++) counter = counter * 31 + i;
    }

    public static void main(String[] a) throws Exception {
        boolean sync = a[0].equals("sync");
        int n = Integer.parseInt(a[1]);
        long secs = Long.parseLong(a[2]);
        long end = secs > 0 ? System.nanoTime() + secs * 1000000000L : Long.MAX_VALUE;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(sync ? () -> {
                while (System.nanoTime() < end)
                    synchronized (monitor) { section(); }
            } : () -> {
                while (System.nanoTime() < end) {
                    lock.lock();
                    try { section(); } finally { lock.unlock(); }
                }
            }, "storm-" + i);
            ts[i].start();
        }
        System.out.println("ready");
        for (Thread t : ts) t.join();
    }
}
