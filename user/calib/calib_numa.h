/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One case of the numa family, exposed so that the tests can run the real
 * placement, verification and timing path on a one-node host (where the
 * family itself skips) with small buffers.
 */
#ifndef SPINSCOPE_CALIB_NUMA_H
#define SPINSCOPE_CALIB_NUMA_H

#include <stdint.h>
#include <json-c/json.h>
#include "calib.h"
#include "calib/kern/calib_numa_topo.h"

/* Places a size-byte buffer as case c says, verifies the placement with
 * move_pages(), then times read bandwidth (and pointer-chase latency with
 * chase_steps loads, for local/remote/interleave) reps times into out.
 * A placement that fails or does not verify marks out skipped with the
 * reason and returns 0; returns -errno only for a failure of the run. */
int calib_numa__case(const struct calib_ctx *ctx, const struct numa_topo *t,
		     const struct numa_case *c, size_t size, int reps, uint64_t chase_steps,
		     json_object *out);

#endif
