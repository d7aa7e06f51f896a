/* SPDX-License-Identifier: GPL-2.0 */
/* Are we allowed to load and attach BPF tracing programs? */
#ifndef SPINSCOPE_PRIVS_H
#define SPINSCOPE_PRIVS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* Effective capability sets of this process, low and high words. */
int privs_effective(uint64_t *caps);

/* Given an effective capability set, returns 0 when tracing is allowed,
 * else SS_EXIT_PERM with a one-line reason naming what is missing. Pure. */
int privs_check_caps(uint64_t caps, char *why, size_t whylen);

#endif
