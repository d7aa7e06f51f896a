// SPDX-License-Identifier: GPL-2.0
/* How the trace saw the target and what that leaves unseen (report.h). */
#include <stddef.h>
#include "report.h"

/* --light recognises calls only when the scheduler runs (light.bpf.c). */
const char *const ss_light_blind_spots[] = {
	"futex waits that return at once (value changed, EAGAIN) are not seen",
	"sched_yield calls that find nothing to switch to are not seen",
	"futex wakes that wake no thread are not seen; a call that wakes N threads counts as N wakes",
	"futex waits woken before they blocked (a wake racing the wait) are not seen",
	"futex wait outcomes (woken, timed out, interrupted) are not seen",
	"futex calls other than wait and wake (futex_other) are not seen",
	"who holds a lock is not seen: no release sites or holders",
	NULL,
};

const char *report_mechanism(const struct ss_report *r)
{
	return r->light ? "light" : "syscall_tracepoints";
}
