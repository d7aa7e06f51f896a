// SPDX-License-Identifier: GPL-2.0
// Workload: N threads allocate 256 KiB arrays (larger than a TLAB refill)
// as fast as they can for SECONDS, under Shenandoah: allocation outside
// TLABs, zeroing, and a collector marking to keep up.
//   java -XX:+UseShenandoahGC -Xmx256m AllocStorm N SECONDS
public class AllocStorm {
    static volatile Object sink;

    static void storm(long end) {
        while (System.nanoTime() < end)
            sink = new byte[256 * 1024];
    }

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        long end = System.nanoTime() + Long.parseLong(a[1]) * 1000000000L;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(() -> storm(end), "alloc-" + i);
            ts[i].start();
        }
        System.out.println("ready");
        for (Thread t : ts)
            t.join();
        System.out.println("done");
    }
}
