// SPDX-License-Identifier: GPL-2.0
/* How the trace saw the target and what that leaves unseen (report.h). */
#include <stddef.h>
#include "report.h"

/* --light recognises calls only when the scheduler runs (light.bpf.c). */
const char *const ss_light_blind_spots[] = {
	"futex waits that return at once (value changed, EAGAIN) are not seen",
	"sched_yield calls that find nothing to switch to are not seen",
	"futex wakes that wake no thread are not seen; a call that wakes N threads counts as N wakes",
	"futex waits woken before they blocked (a wake racing the wait) are not seen, though the wakes that ended them mostly are: wakes can outnumber the blocked waits",
	"futex wait outcomes (woken, timed out, interrupted) are not seen",
	"futex calls other than wait and wake (futex_other) are not seen",
	"who holds a lock is not seen: no release sites or holders",
	NULL,
};

const char *report_mechanism(const struct ss_report *r)
{
	return r->light ? "light" : r->fentry ? "fentry" : "syscall_tracepoints";
}

/* The figures are docs/BENCHMARKS.md's (host cost of tracing). */
const char *report_mechanism_cost(const struct ss_report *r)
{
	if (r->light)
		return "scheduler tracepoints only: no syscall of this host is slowed";
	if (r->fentry)
		return "fentry/fexit on the futex and sched_yield syscall functions: only those calls pay (one pid check for other processes'); no other syscall is slowed";
	return "syscall tracepoints: every syscall on this host pays ~40 ns while attached";
}
