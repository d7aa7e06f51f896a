// SPDX-License-Identifier: GPL-2.0
/*
 * Workload: three threads each increment a volatile long field of one
 * object, the fields adjacent (false sharing) or each marked @Contended
 * (on lines of their own; needs -XX:-RestrictContended outside the JDK).
 * Three, not two: the JVM aligns objects to 8 bytes, not to a cache line,
 * so two adjacent fields straddle a line boundary in one placement of
 * eight (seen: a run where the heap put them on two lines, and nothing
 * was shared); three span 24 bytes, and a boundary can split them only
 * into one and two: two of them always share a line.
 * Prints "ready pid=N" once the loops have run a second (JIT-compiled by
 * then), runs SECONDS more.
 *
 *   java FalseSharingFields adjacent|contended SECONDS
 */
import jdk.internal.vm.annotation.Contended;

public class FalseSharingFields {
    static final class Adjacent {
        volatile long a;
        volatile long b;
        volatile long c;
    }

    static final class Padded {
        @Contended volatile long a;
        @Contended volatile long b;
        @Contended volatile long c;
    }

    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[1]);
        Thread[] t = new Thread[3];

        if (args[0].equals("adjacent")) {
            Adjacent p = new Adjacent();
            t[0] = new Thread(() -> { while (!stop) p.a++; }, "writer-a");
            t[1] = new Thread(() -> { while (!stop) p.b++; }, "writer-b");
            t[2] = new Thread(() -> { while (!stop) p.c++; }, "writer-c");
        } else if (args[0].equals("contended")) {
            Padded p = new Padded();
            t[0] = new Thread(() -> { while (!stop) p.a++; }, "writer-a");
            t[1] = new Thread(() -> { while (!stop) p.b++; }, "writer-b");
            t[2] = new Thread(() -> { while (!stop) p.c++; }, "writer-c");
        } else {
            System.err.println("usage: FalseSharingFields adjacent|contended SECONDS");
            System.exit(2);
        }
        for (Thread x : t)
            x.start();
        Thread.sleep(1000);
        System.out.println("ready pid=" + ProcessHandle.current().pid());
        Thread.sleep(seconds * 1000);
        stop = true;
        for (Thread x : t)
            x.join();
    }
}
