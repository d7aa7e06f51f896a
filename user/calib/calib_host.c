// SPDX-License-Identifier: GPL-2.0
/* Calibration results (calibrate's JSON) to the advisor's host struct, and
 * the quiet calibration run -p makes when none is stored. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "calib_host.h"
#include "calib_store.h"
#include "calib_json.h"
#include "calib/kern/calib_util.h"

/* obj.a.b... as an object, or NULL. */
static json_object *path(const json_object *obj, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	if (!obj || !json_object_object_get_ex(obj, a, &x))
		return NULL;
	if (!b)
		return x;
	return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

/* A family's object when it was measured (not skipped). */
static json_object *family(const json_object *results, const char *key)
{
	json_object *f = path(results, key, NULL);

	if (!f || json_object_get_boolean(path(f, "skipped", NULL)))
		return NULL;
	return f;
}

/* The median of a {median, ...} figure, or the number itself. */
static double figure(const json_object *obj, const char *key)
{
	json_object *v = path(obj, key, NULL);

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_object))
		return calib_json__double(v, "median", 0);
	return json_object_get_double(v);
}

static void fill_false_sharing(const json_object *f, struct adv_host_false_sharing *o)
{
	json_object *rows = path(f, "rows", NULL);
	int threads = (int)calib_json__double(f, "headline_threads", 2);

	/* A family that failed has an "error" and none of its figures. */
	o->present = path(f, "ratio_unpadded_padded", NULL) != NULL;
	if (!o->present)
		return;
	o->ratio_2t = calib_json__double(f, "ratio_unpadded_padded", 0);
	o->interference_bytes = (uint32_t)calib_json__double(f, "destructive_interference", 0);
	o->cache_line_bytes = (uint32_t)calib_json__double(f, "cache_line_sysfs", 0);
	/* Concurrent when the headline row's threads really overlapped. */
	for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		if ((int)calib_json__double(r, "threads", 0) == threads)
			o->concurrent = figure(r, "overlap") >= CALIB_OVERLAP_OK;
	}
}

static void fill_spin_hint(const json_object *f, const char *machine, struct adv_host_spin_hint *o)
{
	json_object *per = path(f, "ns_per_hint", NULL), *un = path(f, "unavailable", NULL);

	o->present = per != NULL;
	if (!o->present)
		return;
	snprintf(o->arch, sizeof(o->arch), "%s", machine);
	json_object_object_foreach(per, name, v) {
		struct adv_hint *h;

		if (o->nhints == ADV_MAX_HINTS)
			break;
		h = &o->hints[o->nhints++];
		snprintf(h->name, sizeof(h->name), "%s", name);
		h->ns = calib_json__double(v, "median", 0);
		h->available = true;
	}
	for (size_t i = 0; un && i < json_object_array_length(un) && o->nhints < ADV_MAX_HINTS; i++) {
		struct adv_hint *h = &o->hints[o->nhints++];

		snprintf(h->name, sizeof(h->name), "%s",
			 calib_json__string(json_object_array_get_idx(un, i), "hint", ""));
	}
}

static void fill_best(const json_object *level, struct adv_best *o)
{
	json_object *best = path(level, "best", NULL);

	snprintf(o->strategy, sizeof(o->strategy), "%s", calib_json__string(best, "strategy", ""));
	o->n = (uint32_t)calib_json__double(best, "spins", 0);
	o->throughput = calib_json__double(best, "acq_per_s", 0);
	o->mutex_throughput = calib_json__double(level, "mutex_acq_per_s", 0);
}

static void fill_host_costs(const json_object *f, struct adv_host_costs *o)
{
	json_object *s = path(f, "summary", NULL);

	o->present = s != NULL;
	o->futex_handoff_same_ns = calib_json__double(s, "futex_handoff_same_cpu_ns", 0);
	o->futex_handoff_cross_ns = calib_json__double(s, "futex_handoff_cross_cpu_ns", 0);
	o->yield_alone_ns = calib_json__double(s, "yield_alone_ns", 0);
	o->yield_peer_ns = calib_json__double(s, "yield_with_peer_ns", 0);
	o->cacheline_rtt_ns = calib_json__double(s, "c2c_median_ns", 0);
	/* A negative or absent figure (noise, or no BPF) is not a cost. */
	o->trace_event_ns = calib_json__double(s, "tracing_ns_per_event", 0);
	if (o->trace_event_ns < 0)
		o->trace_event_ns = 0;
}

static void fill_numa(const json_object *f, struct adv_host_numa *o)
{
	json_object *s = path(f, "summary", NULL);

	o->present = s != NULL;
	o->nodes = (uint32_t)calib_json__double(f, "node_count", 0);
	o->local_ns = calib_json__double(s, "local_latency_ns", 0);
	o->remote_ns = calib_json__double(s, "remote_latency_ns", 0);
	o->interleaved_ns = calib_json__double(s, "interleave_latency_ns", 0);
	o->local_gbs = calib_json__double(s, "local_bandwidth_gbs", 0);
	o->remote_gbs = calib_json__double(s, "remote_bandwidth_gbs", 0);
	o->interleaved_gbs = calib_json__double(s, "interleave_bandwidth_gbs", 0);
}

static void fill_memory_order(const json_object *f, struct adv_host_memory_order *o)
{
	json_object *u = path(f, "uncontended", NULL);

	o->present = u != NULL;
	o->relaxed_store_ns = figure(u, "store_relaxed");
	o->release_store_ns = figure(u, "store_release");
	o->seq_cst_store_ns = figure(u, "store_seq_cst");
	o->store_fence_ns = figure(u, "store_fence");
	o->cas_seq_cst_ns = figure(u, "cas_seq_cst");
	o->cas_release_ns = figure(u, "cas_release");
}

void calib_host__fill(const json_object *results, const char *machine, struct adv_host *h)
{
	json_object *f;

	h->present = true;
	h->matches = true;
	if ((f = family(results, "false_sharing")))
		fill_false_sharing(f, &h->false_sharing);
	if ((f = family(results, "spin_hint")))
		fill_spin_hint(f, machine, &h->spin_hint);
	if ((f = family(results, "spin_threshold")) && path(f, "contention", NULL)) {
		h->spin_threshold.present = true;
		fill_best(path(f, "contention", "light"), &h->spin_threshold.light);
		fill_best(path(f, "contention", "heavy"), &h->spin_threshold.heavy);
	}
	if ((f = family(results, "host_costs")))
		fill_host_costs(f, &h->host_costs);
	if ((f = family(results, "numa")))
		fill_numa(f, &h->numa);
	if ((f = family(results, "memory_order")))
		fill_memory_order(f, &h->memory_order);
}

/* What each finding's advice rests on, by calibrate's family keys. */
static const struct {
	const char *finding;
	const char *families[2];
} needs[] = {
	{ "spin-yield", { "host_costs", "spin_threshold" } },
	{ "futex-contention", { "host_costs", NULL } },
	{ "oversubscription", { "host_costs", NULL } },
	{ "false-sharing", { "false_sharing", NULL } },
	{ "spin-hint", { "spin_hint", NULL } },
	{ "memory-order", { "memory_order", NULL } },
	{ "numa-placement", { "numa", NULL } },
};

static bool have(const struct adv_host *h, const char *fam)
{
	if (!h->present || !h->matches)
		return false;
	return !strcmp(fam, "host_costs") ? h->host_costs.present :
	       !strcmp(fam, "spin_threshold") ? h->spin_threshold.present :
	       !strcmp(fam, "false_sharing") ? h->false_sharing.present :
	       !strcmp(fam, "spin_hint") ? h->spin_hint.present :
	       !strcmp(fam, "memory_order") ? h->memory_order.present :
	       !strcmp(fam, "numa") ? h->numa.present : true;
}

const char *calib_host__needed(const struct adv_report *r, const struct adv_host *h, char *buf,
			       size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->n; i++) {
		/* NUMA on one node needs no measuring: it says so itself. */
		if (!strcmp(r->findings[i].id, "numa-placement") &&
		    r->findings[i].severity == ADV_INFO)
			continue;
		for (size_t k = 0; k < sizeof(needs) / sizeof(needs[0]); k++) {
			if (strcmp(needs[k].finding, r->findings[i].id))
				continue;
			for (int j = 0; j < 2 && needs[k].families[j]; j++) {
				const char *fam = needs[k].families[j];

				if (have(h, fam) || strstr(buf, fam))
					continue;
				n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "", fam);
			}
		}
	}
	return buf;
}

/* The stored calibration of this host, as the advisor's host struct. */
int calib_host__load(struct adv_host *host, const char *path, const char *machine)
{
	json_object *res = NULL;
	char why[ADV_REASON_LEN];
	int err = calib__load_matching(path, &res, why, sizeof(why));

	memset(host, 0, sizeof(*host));
	if (!err) {
		calib_host__fill(res, machine, host);
		json_object_put(res);
	} else if (err == -ESTALE) {
		/* why reads "calibration in PATH is for another host (DIFF): run
		 * ..."; the advisor quotes only DIFF (e.g. "different kernel: A
		 * here, B calibrated"), which fits its evidence line. */
		const char *a = strstr(why, "another host ("), *b = strstr(why, "): run");

		host->present = true;
		if (a && b && b > a + 14)
			snprintf(host->mismatch_reason, sizeof(host->mismatch_reason), "%.*s",
				 (int)(b - a - 14), a + 14);
		else
			snprintf(host->mismatch_reason, sizeof(host->mismatch_reason), "%s", why);
	}
	return err;
}

/* `spinscope calibrate --quick --only families`, quietly: its results land
 * in the store, where load_host() finds them. */
int calib_host__measure(const char *families, const char *path, const sigset_t *mask)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* Never outlive spinscope: a killed spinscope stops measuring. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Ctrl-C reaches it too: it saves what it measured and stops. */
		sigprocmask(SIG_SETMASK, mask, NULL);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		if (path)
			execl("/proc/self/exe", "spinscope", "calibrate", "--quick", "--only", families,
			      "-o", path, (char *)NULL);
		else
			execl("/proc/self/exe", "spinscope", "calibrate", "--quick", "--only", families,
			      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

