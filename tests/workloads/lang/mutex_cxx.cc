// SPDX-License-Identifier: GPL-2.0
// Workload: THREADS C++ threads contend on one std::mutex (taken through
// std::lock_guard in worker) or std::shared_mutex (written in writer,
// read in reader) for SECONDS, holding it for a 20 us section. shared:
// one writer, the others read; writers: all but one write.
//   mutex_cxx mutex|shared|writers THREADS SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

using clk = std::chrono::steady_clock;
static std::mutex m;
static std::shared_mutex sm;
static unsigned long shared_value;

static unsigned long spin_for(int us)
{
	auto end = clk::now() + std::chrono::microseconds(us);
	unsigned long x = 0;

	while (clk::now() < end)
		x = x * 31 + 1;
	return x;
}

__attribute__((noinline)) static void worker_section()
{
	std::lock_guard<std::mutex> g(m);
	shared_value += spin_for(20);
}

__attribute__((noinline)) static void writer_section()
{
	std::unique_lock<std::shared_mutex> g(sm);
	shared_value += spin_for(20);
}

__attribute__((noinline)) static unsigned long reader_section()
{
	std::shared_lock<std::shared_mutex> g(sm);
	return shared_value + spin_for(5);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mutex_cxx mutex|shared|writers THREADS SECONDS\n");
		return 2;
	}
	bool shared = strcmp(argv[1], "mutex") != 0;
	int n = atoi(argv[2]);
	int writers = !strcmp(argv[1], "writers") ? n - 1 : 1;
	long secs = atol(argv[3]);
	auto end = clk::now() + std::chrono::seconds(secs ? secs : 1L << 30);
	std::vector<std::thread> ts;

	for (int i = 0; i < n; i++)
		ts.emplace_back([=] {
			while (clk::now() < end) {
				if (!shared)
					worker_section();
				else if (i < writers)
					writer_section();
				else
					reader_section();
			}
		});
	puts("ready");
	fflush(stdout);
	for (auto &t : ts)
		t.join();
	return 0;
}
