// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of light.bpf.c: open -> share trace.bpf.c's maps -> configure
 * -> load -> attach, each step checked; read and free go through the
 * tracer, whose maps these are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/errors.h"
#include "light.h"
#include "tracer.h"
#include "trace_object.h"

#define LIGHT_LINKS 2

struct light_tracer {
	struct light *skel;
	struct bpf_link *links[LIGHT_LINKS];
	int nlinks;
	int verbose;
};

/* Whether trace.bpf.c's program in section sec gives way to --light:
 * its syscall programs, and its scheduler programs on the two events
 * light.bpf.c's own programs take over (they do the same accounting,
 * bpf/sched_account.bpf.h, in the same run). */
static bool light_replaces(const char *sec)
{
	static const char *const sched[] = { "tp_btf/sched_switch", "raw_tp/sched_switch",
					     "tp_btf/sched_waking", "raw_tp/sched_waking" };

	if (!strncmp(sec, "tracepoint/syscalls/", 20))
		return true;
	for (size_t i = 0; i < sizeof(sched) / sizeof(sched[0]); i++)
		if (!strcmp(sec, sched[i]))
			return true;
	return false;
}

void light_disable_replaced_programs(struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
		if (light_replaces(bpf_program__section_name(prog)))
			bpf_program__set_autoload(prog, false);
}

int light_check_kernel(char *why, size_t whylen)
{
	/* raw_tp programs get the tracing helpers, bpf_task_pt_regs among them. */
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_pt_regs, NULL) > 0 &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_get_current_task_btf,
				    NULL) > 0)
		return 0;
	snprintf(why, whylen, "--light needs BPF's bpf_task_pt_regs (Linux 5.15 or later), which this kernel lacks: trace without --light");
	return SS_EXIT_KERNEL;
}

/* Every map of light.bpf.c but its own .rodata and .bss (start_ns, set at
 * attach) is trace.bpf.c's. */
static int share_maps(struct light_tracer *l, struct bpf_object *from, char *why, size_t whylen)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, l->skel->obj) {
		struct bpf_map *src = bpf_object__find_map_by_name(from, bpf_map__name(m));
		int err;

		if (!src)
			continue;	/* light's own .rodata, .bss */
		err = bpf_map__reuse_fd(m, bpf_map__fd(src));
		if (err) {
			snprintf(why, whylen, "cannot share BPF map %s with the --light programs: %s",
				 bpf_map__name(m), strerror(-err));
			return SS_EXIT_BPF;
		}
	}
	return 0;
}

struct light_tracer *light_tracer__open(struct bpf_object *maps_from, const struct light_opts *o, int verbose,
			  int *code, char *why, size_t whylen)
{
	struct light_tracer *l = calloc(1, sizeof(*l));
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .btf_custom_path = o->btf_custom_path);
	struct light *s;
	int err;

	*code = SS_EXIT_ERROR;
	if (!l) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	l->verbose = verbose;
	s = l->skel = light_object_open(&open_opts, o->kfuncs);
	if (!s) {
		*code = SS_EXIT_BPF;
		snprintf(why, whylen, "cannot open the --light BPF object: %s", strerror(errno));
		goto fail;
	}
	s->rodata->targ_tgid = o->pid;
	s->rodata->targ_tid = o->tid;
	s->rodata->targ_stack_interval_ns = o->stack_interval_ns;
	s->rodata->targ_switch_state = o->switch_state;
	bpf_program__set_autoload(o->sched_btf ? s->progs.light_switch_raw : s->progs.light_switch_btf, false);
	bpf_program__set_autoload(o->sched_btf ? s->progs.light_waking_raw : s->progs.light_waking_btf, false);
	*code = share_maps(l, maps_from, why, whylen);
	if (*code)
		goto fail;
	err = light__load(s);
	if (err) {
		*code = -err == EPERM ? SS_EXIT_PERM : SS_EXIT_BPF;
		snprintf(why, whylen, "cannot load the --light BPF programs: %s%s", strerror(-err),
			 verbose ? "" : " (run with -v for libbpf's log)");
		goto fail;
	}
	return l;
fail:
	light_tracer__free(l);
	return NULL;
}

int light_tracer__attach(struct light_tracer *l, __u64 start_ns, char *why, size_t whylen)
{
	struct bpf_program *prog;

	l->skel->bss->start_ns = start_ns;
	bpf_object__for_each_program(prog, l->skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		if (l->nlinks == LIGHT_LINKS) {
			snprintf(why, whylen, "internal error: more than %d --light programs", LIGHT_LINKS);
			return SS_EXIT_ERROR;
		}
		link = bpf_program__attach(prog);
		if (!link)
			return tracer_attach_error(bpf_program__name(prog),
						   bpf_program__section_name(prog), errno,
						   l->verbose, why, whylen);
		l->links[l->nlinks++] = link;
	}
	return 0;
}

struct bpf_object *light_tracer__object(struct light_tracer *l)
{
	return l->skel->obj;
}

void light_tracer__detach(struct light_tracer *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nlinks; i++)
		bpf_link__destroy(l->links[i]);
	l->nlinks = 0;
}

void light_tracer__free(struct light_tracer *l)
{
	if (!l)
		return;
	light_tracer__detach(l);
	light__destroy(l->skel);
	free(l);
}
