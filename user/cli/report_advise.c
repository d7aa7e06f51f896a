// SPDX-License-Identifier: GPL-2.0
/* Advice on a recording (see report_advise.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calib/calib_host.h"
#include "calib/calib_store.h"
#include "common/errors.h"
#include "report_advise.h"

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_is_type(o, json_type_object) &&
	       json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The recording's own calibration, as the live advice saw it. */
static void recorded_host(const struct ss_recording *rec, struct report_advice *ra)
{
	json_object *c = rec->calibration, *res = member(c, "results"), *why;

	memset(&ra->host, 0, sizeof(ra->host));
	if (res && json_object_is_type(res, json_type_object))
		calib_host__fill(res, rec->host.machine, &ra->host);
	ra->host.present = json_object_get_boolean(member(c, "present"));
	ra->host.matches = json_object_get_boolean(member(c, "matches"));
	why = member(c, "mismatch_reason");
	if (why && json_object_is_type(why, json_type_string))
		snprintf(ra->host.mismatch_reason, sizeof(ra->host.mismatch_reason), "%s",
			 json_object_get_string(why));
	ra->calibration = c ? json_object_get(c) : NULL;
}

/* --calibration FILE: another host's results, applied as if measured here. */
static int other_host(const struct ss_recording *rec, const char *path, struct report_advice *ra,
		      char *why, size_t whylen)
{
	json_object *doc = NULL, *res, *arch;
	int err = calib_store__load(path, &doc);

	if (err) {
		snprintf(why, whylen, "cannot use the calibration %s: %s", path,
			 err == -EINVAL ? "not a spinscope calibration file of this schema" : strerror(-err));
		return SS_EXIT_USAGE;
	}
	res = member(doc, "results");
	arch = member(member(doc, "host"), "arch");
	memset(&ra->host, 0, sizeof(ra->host));
	calib_host__fill(res, arch && json_object_is_type(arch, json_type_string) ?
			 json_object_get_string(arch) : rec->host.machine, &ra->host);
	ra->calibration = json_object_new_object();
	if (ra->calibration) {
		json_object_object_add(ra->calibration, "present", json_object_new_boolean(true));
		json_object_object_add(ra->calibration, "matches", json_object_new_boolean(true));
		json_object_object_add(ra->calibration, "from", json_object_new_string(path));
		json_object_object_add(ra->calibration, "results", json_object_get(res));
	}
	json_object_put(doc);
	return 0;
}

/* The advisor's input: the model, and what the recording kept besides. */
static int build_input(const struct ss_recording *rec, struct report_advice *ra)
{
	const struct ss_report *r = &rec->rep;
	struct advice_target tgt = {
		.pid = r->pid, .comm = r->comm, .duration_ns = r->duration_ns,
		.is_jvm = rec->is_jvm, .runtime = rec->runtime,
		.python_functions = rec->python_functions, .python_read = rec->python_read, .ncpus = rec->ncpus ? (int)rec->ncpus : rec->host.cpus,
		.light = r->light,
		.host_load = {
			.measured = r->host_load.measured, .cpus = (uint32_t)r->host_load.cpus,
			.busy_cpus = r->host_load.busy_cpus,
			.busy_other_cpus = r->host_load.busy_other_cpus,
		},
	};
	struct adv_profile *ap = &ra->in.profile;
	int err = advice__build_profile(&ra->in, &tgt, &rec->prof, &rec->stacks, NULL, NULL, NULL);

	if (err)
		return err;
	if (rec->have_sres) {
		ap->samples.available = rec->sres.available;
		snprintf(ap->samples.reason, sizeof(ap->samples.reason), "%s", rec->sres.reason);
		snprintf(ap->samples.event, sizeof(ap->samples.event), "%s",
			 rec->sres.event ? rec->sres.event : "");
		ap->samples.total = rec->sres.total;
	}
	ap->samples.top = rec->samples_top;
	ap->samples.ntop = rec->nsamples_top;
	ap->fences = rec->fences;
	ap->nfences = rec->nfences;
	ap->spin_loops = rec->spin_loops;
	ap->nspin_loops = rec->nspin_loops;
	/* in.futexes mirror the recording's, which it names by address */
	for (size_t i = 0; i < ap->nfutexes; i++)
		for (size_t k = 0; k < rec->nparked_samples; k++)
			if (rec->parked_samples[k].uaddr == ra->in.futexes[i].uaddr) {
				ra->in.futexes[i].waiter_samples = rec->parked_samples[k].waiter;
				ra->in.futexes[i].acquire_samples = rec->parked_samples[k].acquire;
			}
	ap->numa = rec->numa;
	ap->data = rec->data;
	return 0;
}

int report_advise(const struct ss_recording *rec, const char *calibration_path,
		  struct report_advice *ra, char *why, size_t whylen)
{
	int code = 0, err;

	memset(ra, 0, sizeof(*ra));
	if (calibration_path)
		code = other_host(rec, calibration_path, ra, why, whylen);
	else
		recorded_host(rec, ra);
	if (code || !rec->rep.duration_ns)
		return code;
	err = build_input(rec, ra);
	ra->advice = err ? NULL : calloc(1, sizeof(*ra->advice));
	if (!err && (!ra->advice || advisor__run(&ra->in.profile, &ra->host, ra->advice))) {
		free(ra->advice);
		ra->advice = NULL;
		err = -ENOMEM;
	}
	if (err)
		ss_warn("no advice: the advisor failed: %s", strerror(-err));
	return 0;
}

void report_advise__free(struct report_advice *ra)
{
	free(ra->advice);
	/* samples.top, fences and spin loops belong to the recording. */
	ra->in.samples = NULL;
	ra->in.fences = NULL;
	ra->in.spin_loops = NULL;
	advice__free_input(&ra->in);
	json_object_put(ra->calibration);
	memset(ra, 0, sizeof(*ra));
}
