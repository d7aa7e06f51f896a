// SPDX-License-Identifier: GPL-2.0
/*
 * The advise stage of `spinscope -p`, one way: the model becomes the
 * advisor's input; what its findings will rest on that the stored
 * calibration lacks is decided from that input and the calibration
 * (calib_host__wanted, the rules' own first tests) and measured now; then
 * the advisor runs once, on the calibration as it is after that.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib_host.h"
#include "common/errors.h"
#include "common/procfs.h"
#include "advisor/runtime.h"
#include "report/advice.h"
#include "trace_advise.h"

/* Measures families on this host (stopping the target meanwhile when it is
 * our own demo) and reloads the calibration into h; h stays as it was when
 * the calibration did not complete. */
static void calibrate_host(const char *families, const struct ss_report *rep,
			   const struct ss_opts *o, const sigset_t *mask, struct adv_host *h)
{
	int err;

	ss_notice("the advice needs %s measured on this host: calibrating now (a few seconds; --no-calibrate skips this)",
		  families);
	if (o->stop_target_to_calibrate)
		kill(rep->pid, SIGSTOP);
	err = calib_host__measure(families, o->calibration_path, mask);
	if (o->stop_target_to_calibrate)
		kill(rep->pid, SIGCONT);
	if (err) {
		ss_warn("the calibration did not complete: advice rests on the trace alone");
		return;
	}
	calib_host__load(h, o->calibration_path, rep->host->machine);
}

int trace_advise(const struct ss_report *rep, const struct ss_opts *o, const sigset_t *mask,
		 struct advice_input *in, struct adv_report **out)
{
	struct advice_target tgt = {
		.pid = rep->pid, .comm = rep->comm, .duration_ns = rep->duration_ns,
		.is_jvm = proc_maps_has("/proc", rep->pid, "/libjvm.so") ||
			  (rep->runtime && !strcmp(rep->runtime, "jvm")),
		.runtime = adv_runtime_from_id(rep->runtime),
		.ncpus = proc_allowed_cpus(rep->pid),
		.light = rep->light,
		.python_functions = rep->python_functions, .python_read = rep->python_read,
		.host_load = {
			.measured = rep->host_load.measured, .cpus = (uint32_t)rep->host_load.cpus,
			.busy_cpus = rep->host_load.busy_cpus,
			.busy_other_cpus = rep->host_load.busy_other_cpus,
		},
	};
	struct adv_host host;
	char wanted[128];
	int err;

	*out = NULL;
	memset(in, 0, sizeof(*in));
	if (tgt.ncpus <= 0)	/* exited: the host's CPUs are what it had */
		tgt.ncpus = rep->host->cpus;
	if (!tgt.duration_ns)
		return 0;
	err = advice__build_profile(in, &tgt, rep->profile, rep->stacks, rep->samples, rep->name,
				    rep->name_arg);
	if (err)
		return err;
	calib_host__load(&host, o->calibration_path, rep->host->machine);
	/* Calibration families ("host_costs,spin_threshold") that the findings
	 * will rest on and the stored calibration lacks: measured first. */
	if (!o->no_calibrate && calib_host__wanted(&in->profile, &host, wanted, sizeof(wanted))[0])
		calibrate_host(wanted, rep, o, mask, &host);
	*out = calloc(1, sizeof(**out));
	err = *out ? advisor__run(&in->profile, &host, *out) : -ENOMEM;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}
