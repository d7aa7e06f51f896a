// SPDX-License-Identifier: GPL-2.0
/* The one owner of a samples_result's memory (model/samples_result.h). */
#include <stdlib.h>
#include "samples_result.h"

void samples_result__free(struct samples_result *r)
{
	if (!r)
		return;
	free(r->stacks);
	free(r->threads);
	free(r->ip_pool);
	free(r->cpus_offline);
	free(r->regs);
	r->regs = NULL;
	r->nr_regs = 0;
	r->stacks = NULL;
	r->threads = NULL;
	r->ip_pool = NULL;
	r->cpus_offline = NULL;
	r->nr_cpus_offline = 0;
	r->nr_stacks = r->nr_threads = 0;
}
