// SPDX-License-Identifier: GPL-2.0
/* Workload, spinscope and JSON helpers for the integration tests (see tracetest.h). */
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/wait.h>
#include <libgen.h>
#include <bpf/bpf.h>
#include <gelf.h>
#include <libelf.h>
#include "tracetest.h"

#define TT_MAX_CHILDREN 64
/* Budgets of a child's own CPU time (see struct tt_wait). */
#define TT_READY_TIMEOUT_MS 10000
#define TT_ATTACH_TIMEOUT_MS 10000
/* The kernel frees BPF objects asynchronously: poll this long at most. */
#define TT_LEAK_POLL_MS 30000
/* A wait also ends after this many times its budget in wall-clock time:
 * a child blocked for good uses no CPU. */
#define TT_WALL_FACTOR 6
/* Sanitized code burns about three times the CPU (the calibration kernels
 * spinscope runs when none is stored: 17 s plain, 65 s under ASan), and a
 * budget is a hang detector, not a timing: `make asan` scales them all. */
#if defined(__SANITIZE_ADDRESS__)
#define TT_SAN_FACTOR 3
#else
#define TT_SAN_FACTOR 1
#endif

/* ---- bookkeeping: every child, so that teardown can end it -------------- */

static pid_t children[TT_MAX_CHILDREN];

static void child_add(pid_t pid)
{
	for (int i = 0; i < TT_MAX_CHILDREN; i++)
		if (!children[i]) {
			children[i] = pid;
			return;
		}
	fail_msg("more than %d child processes: a test forgot to end them", TT_MAX_CHILDREN);
}

static void child_forget(pid_t pid)
{
	for (int i = 0; i < TT_MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}

void tt_track(pid_t pid)
{
	child_add(pid);
}

void tt_untrack(pid_t pid)
{
	child_forget(pid);
}

int tt_teardown(void **state)
{
	for (int i = 0; i < TT_MAX_CHILDREN; i++)
		if (children[i]) {
			kill(children[i], SIGKILL);
			waitpid(children[i], NULL, 0);
			children[i] = 0;
		}
	return 0;
}

const char *tt_num(long long v)
{
	static char buf[8][24];
	static int next;
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%lld", v);
	return b;
}

long long tt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int ms_left(long long deadline)
{
	long long left = deadline - tt_now_ms();

	return left > 0 ? (int)left : 0;
}

/*
 * Waiting for a child to do something. On a loaded host (eight engineers'
 * builds and tests on 2 CPUs) a child's wall-clock time says little about
 * how much it worked: a wait gives the child a budget of its own CPU time
 * (user + system of all its threads and reaped children, /proc/PID/stat)
 * and polls; it is over when the child has used the budget, or after
 * TT_WALL_FACTOR times the budget in wall-clock time, which catches a child
 * blocked for good (it uses no CPU). Unloaded, a wait ends as before.
 */
struct tt_wait {
	pid_t pid;
	int budget_ms;
	long long cpu0_ms;	/* the child's CPU time when the wait began */
	long long wall_end;
};

long long tt_cpu_ms(pid_t pid)
{
	unsigned long long ut, st, cut, cst;
	char path[64], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* Fields 14-17, counted after the ")" that ends the command name. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return -1;
	return (long long)((ut + st + cut + cst) * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
}

/* budget_ms, scaled by TT_SAN_FACTOR: what the messages print. */
static void wait_begin(struct tt_wait *w, pid_t pid, int budget_ms)
{
	long long cpu = tt_cpu_ms(pid);

	budget_ms *= TT_SAN_FACTOR;
	w->pid = pid;
	w->budget_ms = budget_ms;
	w->cpu0_ms = cpu < 0 ? 0 : cpu;
	w->wall_end = tt_now_ms() + (long long)budget_ms * TT_WALL_FACTOR;
}

/* How long to poll now: at most 100 ms, 0 when the wait is over. */
static int wait_slice(const struct tt_wait *w)
{
	long long cpu = tt_cpu_ms(w->pid);
	int left = ms_left(w->wall_end);

	if (cpu >= 0 && cpu - w->cpu0_ms >= w->budget_ms)
		return 0;
	return left < 100 ? left : 100;
}

/* One line from fd within the wait. False on end of file or when the wait
 * is over (*timed_out tells which); buf then holds the partial line. */
static bool read_line(int fd, char *buf, size_t size, const struct tt_wait *w, bool *timed_out)
{
	size_t n = 0;

	*timed_out = false;
	while (n + 1 < size) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int slice = wait_slice(w), r;
		char c;

		if (!slice) {
			*timed_out = true;
			break;
		}
		r = poll(&pfd, 1, slice);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0)
			continue;
		if (read(fd, &c, 1) != 1)
			break;
		if (c == '\n') {
			buf[n] = 0;
			return true;
		}
		buf[n++] = c;
	}
	buf[n] = 0;
	return false;
}

static void append(char **s, const char *more, size_t len)
{
	size_t have = *s ? strlen(*s) : 0;
	char *t = realloc(*s, have + len + 1);

	assert_non_null(t);
	memcpy(t + have, more, len);
	t[have + len] = 0;
	*s = t;
}

/* Reads both pipes to end of file within the wait; false when it is over. */
static bool drain(int out_fd, int err_fd, char **out, char **err, const struct tt_wait *w)
{
	struct pollfd pfd[2] = {
		{ .fd = out_fd, .events = POLLIN },
		{ .fd = err_fd, .events = POLLIN },
	};
	char **dst[2] = { out, err };
	int open = 2;

	if (!*out)
		append(out, "", 0);
	if (!*err)
		append(err, "", 0);
	while (open) {
		int slice = wait_slice(w), r;

		if (!slice)
			return false;
		r = poll(pfd, 2, slice);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char buf[4096];
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0) {
				append(dst[i], buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				pfd[i].fd = -1;
				open--;
			}
		}
	}
	return true;
}

static int wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	child_forget(pid);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void spawn(struct tl_proc *p, const char *const argv[])
{
	if (tl_spawn(p, (char *const *)argv))
		fail_msg("cannot start %s: %s", argv[0], strerror(errno));
	child_add(p->pid);
}

/* ---- workloads ---------------------------------------------------------- */

void tt_workload_start(struct tt_workload *w, const char *name, const char *const args[])
{
	char path[4096];
	const char *argv[32];
	struct tt_wait wait;
	int n = 0;
	bool timed_out;

	snprintf(path, sizeof(path), "workloads/%s", name);
	argv[n++] = tl_path(path);
	while (args && *args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	spawn(&w->proc, argv);
	wait_begin(&wait, w->proc.pid, TT_READY_TIMEOUT_MS);
	if (!read_line(w->proc.out_fd, w->ready, sizeof(w->ready), &wait, &timed_out) ||
	    strncmp(w->ready, "ready pid=", 10)) {
		char *err = NULL, *out = NULL;

		wait_begin(&wait, w->proc.pid, 100);
		drain(w->proc.out_fd, w->proc.err_fd, &out, &err, &wait);
		fail_msg("workload %s did not get ready (%s): got '%s', stderr: %s", name,
			 timed_out ? "timeout" : "exited", w->ready, err);
	}
	assert_int_equal(tt_field(w->ready, "pid"), w->proc.pid);
}

void tt_workload_go(struct tt_workload *w)
{
	assert_int_equal(kill(w->proc.pid, SIGUSR1), 0);
}

void tt_workload_wait_line(struct tt_workload *w, const char *prefix, char *buf, size_t size,
			   int timeout_ms)
{
	struct tt_wait wait;
	bool timed_out;

	wait_begin(&wait, w->proc.pid, timeout_ms);
	while (read_line(w->proc.out_fd, buf, size, &wait, &timed_out))
		if (!strncmp(buf, prefix, strlen(prefix)))
			return;
	{
		char *err = NULL, *out = NULL;

		wait_begin(&wait, w->proc.pid, 100);
		if (!timed_out)
			drain(w->proc.out_fd, w->proc.err_fd, &out, &err, &wait);
		fail_msg("workload pid %d: no '%s' line (%s); stderr: %s", w->proc.pid, prefix,
			 timed_out ? "timeout" : "it exited", err ? err : "");
	}
}

int tt_workload_wait_exit(struct tt_workload *w, int timeout_ms)
{
	struct tt_wait wait;
	int st;

	wait_begin(&wait, w->proc.pid, timeout_ms);
	for (;;) {
		pid_t r = waitpid(w->proc.pid, &st, WNOHANG);

		if (r == w->proc.pid)
			break;
		if (r < 0 || !wait_slice(&wait))
			fail_msg("workload pid %d did not exit within %d ms of its CPU time", w->proc.pid,
				 wait.budget_ms);
		usleep(10000);
	}
	child_forget(w->proc.pid);
	close(w->proc.out_fd);
	close(w->proc.err_fd);
	w->proc.pid = 0;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

void tt_workload_end(struct tt_workload *w)
{
	if (w->proc.pid <= 0)
		return;
	kill(w->proc.pid, SIGKILL);
	wait_status(w->proc.pid);
	close(w->proc.out_fd);
	close(w->proc.err_fd);
	w->proc.pid = 0;
}

static const char *field_start(const char *line, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = line; (p = strstr(p, key)); p++)
		if ((p == line || p[-1] == ' ') && p[klen] == '=')
			return p + klen + 1;
	fail_msg("no '%s=' in '%s'", key, line);
	return NULL;
}

unsigned long long tt_field(const char *line, const char *key)
{
	const char *s = field_start(line, key);
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || (*end && *end != ' '))
		fail_msg("'%s=' in '%s' is not a number", key, line);
	return v;
}

int tt_field_list(const char *line, const char *key, long long *out, int max)
{
	const char *s = field_start(line, key);
	int n = 0;

	while (n < max) {
		char *end;

		errno = 0;
		out[n++] = strtoll(s, &end, 0);
		if (errno || end == s)
			fail_msg("'%s=' in '%s' is not a list of numbers", key, line);
		if (*end != ',')
			break;
		s = end + 1;
	}
	return n;
}

/* ---- spinscope ---------------------------------------------------------- */

void tt_trace_start(struct tt_trace *t, const char *const args[])
{
	static const char tracing[] = "spinscope: tracing";
	struct timespec a, b;
	const char *argv[32];
	struct tt_wait wait;
	bool timed_out;
	int n = 0;

	memset(t, 0, sizeof(*t));
	argv[n++] = tl_path("spinscope");
	while (args && *args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	clock_gettime(CLOCK_MONOTONIC, &a);
	spawn(&t->proc, argv);
	/* Loading and verifying is CPU work of spinscope's (the verifier
	 * runs in its system time): under load it takes longer, not more. */
	wait_begin(&wait, t->proc.pid, TT_ATTACH_TIMEOUT_MS);
	while (read_line(t->proc.err_fd, t->tracing, sizeof(t->tracing), &wait, &timed_out)) {
		if (!strncmp(t->tracing, tracing, sizeof(tracing) - 1)) {
			clock_gettime(CLOCK_MONOTONIC, &b);
			t->attach_s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
			return;
		}
		/* Warnings before the tracing line stay part of stderr. */
		append(&t->err, t->tracing, strlen(t->tracing));
		append(&t->err, "\n", 1);
	}
	if (timed_out)
		fail_msg("spinscope printed no '%s' line within %d ms of its CPU time; stderr so far: %s",
			 tracing, wait.budget_ms, t->err ? t->err : "");
	wait_begin(&wait, t->proc.pid, 2000);
	drain(t->proc.out_fd, t->proc.err_fd, &t->out, &t->err, &wait);
	t->rc = wait_status(t->proc.pid);
	fail_msg("spinscope exited (status %d) before tracing; stderr: %s", t->rc, t->err);
}

void tt_trace_end(struct tt_trace *t, int sig, int timeout_ms)
{
	struct tt_wait wait;

	if (sig)
		assert_int_equal(kill(t->proc.pid, sig), 0);
	wait_begin(&wait, t->proc.pid, timeout_ms);
	if (!drain(t->proc.out_fd, t->proc.err_fd, &t->out, &t->err, &wait)) {
		kill(t->proc.pid, SIGKILL);
		wait_status(t->proc.pid);
		fail_msg("spinscope did not finish within %d ms of its CPU time%s; stderr: %s",
			 wait.budget_ms, sig ? " after the signal" : "", t->err);
	}
	close(t->proc.out_fd);
	close(t->proc.err_fd);
	t->rc = wait_status(t->proc.pid);
}

void tt_trace_free(struct tt_trace *t)
{
	free(t->out);
	free(t->err);
	t->out = t->err = NULL;
}

json_object *tt_trace_until_done(struct tt_workload *w, const char *const extra[],
				 int work_timeout_ms, int end_timeout_ms)
{
	const char *args[64] = { "-p", tt_num(w->proc.pid), "-d", "0", "--json", "--no-calibrate" };
	size_t n = 6;
	struct tt_trace t;
	json_object *doc;
	char done[256];

	for (size_t i = 0; extra && extra[i]; i++) {
		assert_true(n < sizeof(args) / sizeof(args[0]) - 1);
		args[n++] = extra[i];
	}
	args[n] = NULL;
	tt_trace_start(&t, args);
	tt_workload_go(w);
	tt_workload_wait_line(w, "done", done, sizeof(done), work_timeout_ms);
	tt_trace_end(&t, SIGINT, end_timeout_ms);
	if (t.rc != 0)
		fail_msg("spinscope exited with %d; stderr: %s", t.rc, t.err);
	doc = tt_parse_report(t.out);
	tt_trace_free(&t);
	return doc;
}

int tt_run(const char *const argv[], char **out, char **err, int timeout_ms)
{
	struct tt_wait wait;
	struct tl_proc p;

	*out = *err = NULL;
	spawn(&p, argv);
	wait_begin(&wait, p.pid, timeout_ms);
	if (!drain(p.out_fd, p.err_fd, out, err, &wait)) {
		kill(p.pid, SIGKILL);
		wait_status(p.pid);
		fail_msg("%s did not finish within %d ms of its CPU time; stderr: %s", argv[0],
			 wait.budget_ms, *err);
	}
	close(p.out_fd);
	close(p.err_fd);
	return wait_status(p.pid);
}

/* ---- the JSON report ---------------------------------------------------- */

json_object *tt_parse_report(const char *out)
{
	json_tokener *tok = json_tokener_new();
	size_t len = strlen(out), end;
	json_object *doc;

	assert_non_null(tok);
	doc = json_tokener_parse_ex(tok, out, (int)len);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success)
		fail_msg("stdout is not a JSON document (%s): %.2000s",
			 json_tokener_error_desc(json_tokener_get_error(tok)), out);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (out[end + strspn(out + end, " \t\r\n")])
		fail_msg("stdout holds more than one JSON document: %.2000s", out + end);
	if (!json_object_is_type(doc, json_type_object))
		fail_msg("the report is not a JSON object: %.2000s", out);
	return doc;
}

json_object *tt_get(json_object *o, const char *path)
{
	char buf[256], *save, *key;
	json_object *in = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
		if (!json_object_object_get_ex(in, key, &o))
			fail_msg("the report has no '%s' (looking for '%s') in %.1000s", key, path,
				 json_object_to_json_string(in));
		in = o;
	}
	return o;
}

uint64_t tt_u64(json_object *o, const char *path)
{
	json_object *v = tt_get(o, path);

	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		fail_msg("'%s' is %s, not an unsigned integer", path, json_object_to_json_string(v));
	return json_object_get_uint64(v);
}

static json_object *find_in(json_object *report, const char *array, const char *key,
			    bool (*match)(json_object *, const void *), const void *want)
{
	json_object *arr = tt_get(report, array);

	if (!json_object_is_type(arr, json_type_array))
		fail_msg("'%s' is not an array", array);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (match(tt_get(e, key), want))
			return e;
	}
	return NULL;
}

static bool tid_is(json_object *v, const void *want)
{
	return json_object_get_int64(v) == *(const long long *)want;
}

json_object *tt_thread(json_object *report, long long tid)
{
	return find_in(report, "threads", "tid", tid_is, &tid);
}

static unsigned long long uaddr_value(json_object *v)
{
	const char *s = json_object_get_string(v);
	char *end;
	unsigned long long u;

	if (!json_object_is_type(v, json_type_string) || strncmp(s, "0x", 2))
		fail_msg("uaddr %s is not a \"0x...\" string", json_object_to_json_string(v));
	u = strtoull(s, &end, 16);
	if (*end)
		fail_msg("uaddr '%s' is not hexadecimal", s);
	return u;
}

static bool uaddr_is(json_object *v, const void *want)
{
	return uaddr_value(v) == *(const unsigned long long *)want;
}

json_object *tt_futex(json_object *report, unsigned long long uaddr)
{
	return find_in(report, "futexes", "uaddr", uaddr_is, &uaddr);
}

unsigned long long tt_uaddr(json_object *futex)
{
	return uaddr_value(tt_get(futex, "uaddr"));
}

json_object *tt_finding(json_object *report, const char *id)
{
	json_object *advice = tt_get(report, "advice");

	for (size_t i = 0; i < json_object_array_length(advice); i++) {
		json_object *f = json_object_array_get_idx(advice, i);

		if (!strcmp(json_object_get_string(tt_get(f, "id")), id))
			return f;
	}
	return NULL;
}

const char *tt_evidence(json_object *finding, const char *label)
{
	json_object *ev = tt_get(finding, "evidence");

	for (size_t i = 0; i < json_object_array_length(ev); i++) {
		json_object *e = json_object_array_get_idx(ev, i);

		if (!strcmp(json_object_get_string(tt_get(e, "label")), label))
			return json_object_get_string(tt_get(e, "value"));
	}
	return NULL;
}

/* ---- stacks ------------------------------------------------------------- */

bool tt_frame_is(const char *frame, const char *fn, const char *module)
{
	size_t n = strlen(fn), m = strlen(module);
	const char *p = frame + n + 3;

	if (strncmp(frame, fn, n) || strncmp(frame + n, "+0x", 3) || !isxdigit((unsigned char)*p))
		return false;
	while (isxdigit((unsigned char)*p))
		p++;
	return !strncmp(p, " (", 2) && !strncmp(p + 2, module, m) && !strcmp(p + 2 + m, ")");
}

static bool elf_symbol(const char *path, const char *name, GElf_Sym *out)
{
	bool found = false;
	Elf_Scn *scn = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (gelf_getsym(data, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    (s = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(s, name)) {
				*out = sym;
				found = true;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

void tt_func_init(struct tt_func *f, const char *workload, const char *name,
		  unsigned long long addr)
{
	GElf_Sym sym = {0};
	char path[4096];

	snprintf(path, sizeof(path), "workloads/%s", workload);
	if (!elf_symbol(tl_path(path), name, &sym) || !sym.st_size)
		fail_msg("no function symbol %s in %s", name, tl_path(path));
	f->name = name;
	f->addr = addr;
	f->value = sym.st_value;
	f->size = sym.st_size;
}

/* One frame: "0x<address>", "<function>+0x<off>" or "<module>+0x<off>"
 * (module offsets are ELF addresses: in PIE text they equal file offsets). */
static bool frame_in(const char *frame, const char *workload, const struct tt_func *f)
{
	const char *plus = strrchr(frame, '+');
	unsigned long long v;
	char *end;

	if (!strncmp(frame, "0x", 2)) {
		v = strtoull(frame, &end, 16);
		return v >= f->addr && v < f->addr + f->size;
	}
	if (!plus || strncmp(plus, "+0x", 3))
		return strstr(frame, f->name) != NULL;
	if ((size_t)(plus - frame) >= strlen(f->name) &&
	    !strncmp(plus - strlen(f->name), f->name, strlen(f->name)))
		return true;
	{
		char module[4096];

		snprintf(module, sizeof(module), "%.*s", (int)(plus - frame), frame);
		if (strcmp(basename(module), workload))
			return false;
	}
	v = strtoull(plus + 1, &end, 16);
	return v >= f->value && v < f->value + f->size;
}

bool tt_stack_has(json_object *stack, const char *workload, const struct tt_func *funcs, int n)
{
	json_object *frames = tt_get(stack, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(frames, i));

		for (int k = 0; s && k < n; k++)
			if (frame_in(s, workload, &funcs[k]))
				return true;
	}
	return false;
}

/* ---- BPF objects left behind -------------------------------------------- */

static uint32_t newest_id(int (*next)(__u32, __u32 *))
{
	__u32 id = 0, n;

	while (!next(id, &n))
		id = n;
	return id;
}

void tt_bpf_mark(struct tt_bpf_mark *m)
{
	m->prog_id = newest_id(bpf_prog_get_next_id);
	m->link_id = newest_id(bpf_link_get_next_id);
}

/* Ids after `after` that exist now, at most max of them. */
static int ids_since(int (*next)(__u32, __u32 *), uint32_t after, uint32_t *ids, int max)
{
	__u32 id = after, n;
	int count = 0;

	while (count < max && !next(id, &n))
		ids[count++] = id = n;
	return count;
}

/* Adds the value of every "<key>:" line in the fdinfo files under dir. */
static void fdinfo_ids(const char *dir, const char *key, uint32_t *ids, int *count, int max)
{
	size_t klen = strlen(key);
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;		/* the process is gone */
	while ((e = readdir(d)) && *count < max) {
		char path[512], line[256];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && *count < max)
			if (!strncmp(line, key, klen) && line[klen] == ':')
				ids[(*count)++] = (uint32_t)strtoul(line + klen + 1, NULL, 10);
		fclose(f);
	}
	closedir(d);
}

/* Ids of `key` ("prog_id", "link_id") held open by any live process. */
static int held_ids(const char *key, uint32_t *ids, int max)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int count = 0;

	assert_non_null(proc);
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9') {
			char dir[300];

			snprintf(dir, sizeof(dir), "/proc/%s/fdinfo", e->d_name);
			fdinfo_ids(dir, key, ids, &count, max);
		}
	closedir(proc);
	return count;
}

static bool contains(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* New objects of one kind that no live process holds; names them in msg. */
static int orphans(int (*next)(__u32, __u32 *), uint32_t after, const char *key,
		   bool is_prog, char *msg, size_t size)
{
	static uint32_t fresh[1024], held[16384];
	int n_fresh = ids_since(next, after, fresh, 1024), n_held, count = 0;

	if (!n_fresh)
		return 0;
	n_held = held_ids(key, held, 16384);
	for (int i = 0; i < n_fresh; i++) {
		char name[32] = "?";
		size_t len = strlen(msg);

		if (contains(held, n_held, fresh[i]))
			continue;
		if (is_prog) {
			struct bpf_prog_info info = {};
			__u32 info_len = sizeof(info);
			int fd = bpf_prog_get_fd_by_id(fresh[i]);

			if (fd < 0)
				continue;	/* freed meanwhile */
			if (!bpf_obj_get_info_by_fd(fd, &info, &info_len))
				snprintf(name, sizeof(name), "%s", info.name);
			close(fd);
		} else {
			int fd = bpf_link_get_fd_by_id(fresh[i]);

			if (fd < 0)
				continue;
			close(fd);
		}
		count++;
		snprintf(msg + len, size - len, " %s %u (%s)", is_prog ? "prog" : "link",
			 fresh[i], name);
	}
	return count;
}

void tt_assert_nothing_left(const struct tt_bpf_mark *m)
{
	long long deadline = tt_now_ms() + TT_LEAK_POLL_MS;
	char msg[2048];

	for (;;) {
		msg[0] = 0;
		if (!orphans(bpf_prog_get_next_id, m->prog_id, "prog_id", true, msg, sizeof(msg)) &&
		    !orphans(bpf_link_get_next_id, m->link_id, "link_id", false, msg, sizeof(msg)))
			return;
		if (!ms_left(deadline))
			fail_msg("BPF objects left behind, held by no process:%s", msg);
		usleep(50000);
	}
}

int tt_prog_ids_of(pid_t pid, uint32_t *ids, int max)
{
	uint32_t all[1024];
	char dir[64];
	int n = 0, count = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
	fdinfo_ids(dir, "prog_id", all, &n, 1024);
	for (int i = 0; i < n && count < max; i++)
		if (!contains(ids, count, all[i]))
			ids[count++] = all[i];
	return count;
}

bool tt_prog_exists(uint32_t id)
{
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

const char *tt_auto_mechanism(json_object *report)
{
	/* fentry only when asked (user/trace/attach.c). */
	(void)report;
	return "syscall_tracepoints";
}

int tt_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

static char cal_dir[64];
static char cal_path[128];

const char *tt_calibration(const char *families, int timeout_ms)
{
	const char *args[] = { tl_path("spinscope"), "calibrate", "--quick", "--only", families,
			       "-o", cal_path, NULL };
	char *out, *err;
	int rc;

	if (cal_path[0] && access(cal_path, R_OK) == 0)
		return cal_path;
	snprintf(cal_dir, sizeof(cal_dir), "/tmp/ss-cal-XXXXXX");
	if (!mkdtemp(cal_dir))
		fail_msg("mkdtemp failed");
	snprintf(cal_path, sizeof(cal_path), "%s/calibration.json", cal_dir);
	rc = tt_run(args, &out, &err, timeout_ms);
	if (rc != 0)
		fail_msg("spinscope calibrate exited with %d: %s", rc, err);
	free(out);
	free(err);
	return cal_path;
}

int tt_calibration_remove(void **state)
{
	if (cal_path[0])
		unlink(cal_path);
	if (cal_dir[0] && rmdir(cal_dir))
		print_error("could not remove %s\n", cal_dir);
	cal_path[0] = cal_dir[0] = 0;
	return 0;
}

void tt_java_start(struct tl_proc *p, const char *const jargs[])
{
	const char *argv[16] = { "/usr/bin/java" };
	char line[256], cp[256];
	int n = 1;

	if (access(argv[0], X_OK))
		fail_msg("%s missing: `make deps` installs default-jdk-headless", argv[0]);
	snprintf(cp, sizeof(cp), "%s/workloads/java", getenv("OUTPUT") ? getenv("OUTPUT") : "build");
	while (*jargs && n < 14) {
		argv[n++] = *jargs;
		/* The class path goes right before the class. */
		if (!strcmp(*jargs, "-cp"))
			argv[n++] = cp;
		jargs++;
	}
	argv[n] = NULL;
	assert_int_equal(tl_spawn(p, (char *const *)argv), 0);
	tt_track(p->pid);
	if (!tl_read_line(p, line, sizeof(line), 60000) || strncmp(line, "ready", 5)) {
		tt_java_end(p);
		fail_msg("java %s printed no ready line", argv[n > 3 ? n - 3 : 1]);
	}
}

void tt_java_end(struct tl_proc *p)
{
	tt_untrack(p->pid);
	tl_kill(p, SIGKILL);
	tl_wait(p);
	close(p->out_fd);
	close(p->err_fd);
}

json_object *tt_run_report(const char *const argv[], int timeout_ms)
{
	char *out, *err;
	json_object *doc;
	int rc = tt_run(argv, &out, &err, timeout_ms);

	if (rc != 0)
		fail_msg("%s %s %s exited with %d: %s", argv[0], argv[1] ? argv[1] : "",
			 argv[1] && argv[2] ? argv[2] : "", rc, err);
	doc = tt_parse_report(out);
	free(out);
	free(err);
	return doc;
}

static char scratch_dir[64];

const char *tt_scratch_path(const char *name)
{
	static char buf[4][256];
	static int k;

	if (!scratch_dir[0]) {
		snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/ss-scratch-XXXXXX");
		if (!mkdtemp(scratch_dir))
			fail_msg("mkdtemp failed");
	}
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", scratch_dir, name);
	return buf[k];
}

int tt_scratch_remove(void **state)
{
	char *out, *err;
	int rc = 0;

	(void)state;
	if (scratch_dir[0]) {
		rc = tt_run(TT_ARGS("/bin/rm", "-rf", scratch_dir), &out, &err, 30000);
		free(out);
		free(err);
		scratch_dir[0] = 0;
	}
	return rc;
}
