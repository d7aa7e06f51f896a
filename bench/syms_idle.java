// A JVM that stays up, for bench/syms_resolve.c to symbolize: it runs a
// little Java so that the JIT compiles something, says "ready", and sleeps.
public class SymsIdle {
	static long spin(int n) {
		long x = 0;
		for (int i = 0; i < n; i++)
			x += Integer.toString(i).hashCode();
		return x;
	}

	public static void main(String[] args) throws Exception {
		long sum = 0;
		for (int i = 0; i < 200; i++)
			sum += spin(10000);
		System.out.println("ready " + ProcessHandle.current().pid() + " " + (sum & 1));
		System.out.flush();
		Thread.sleep(600_000);
	}
}
