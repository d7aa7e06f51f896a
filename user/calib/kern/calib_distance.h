/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the distance between two CPUs during a measurement: a cache
 * line's round trip between them (calib_hc__c2c), so that each sample of
 * a cross-CPU figure knows which state of the host it met. On a VM the
 * hypervisor moves the vCPUs between cores that share a cache and cores
 * that do not within seconds (calib_stat.h, CALIB_DISTANCE_CHANGE), and
 * the figures of the two states differ threefold. Used by spin_threshold
 * (before every run) and false_sharing (before every repetition).
 *
 * Each reading is time-boxed from a pilot: about 2000 round trips (0.1-0.7
 * ms) between repetitions and 500 (30-200 us) before each run on a real
 * host, fewer where a trip is slow, and none before the runs where even 16
 * trips would not fit (an emulator, whose trips take tens of
 * microseconds: thousands of readings would stretch a family by minutes).
 *
 * Plain C, no json-c: the AArch64 driver builds it too.
 */
#ifndef SPINSCOPE_CALIB_DISTANCE_H
#define SPINSCOPE_CALIB_DISTANCE_H

#include <stdint.h>

#define CALIB_DISTANCE_MAX 64	/* readings kept between repetitions */

struct calib_distance {
	int a, b;			/* the two CPUs; a < 0: not read */
	uint64_t rep_trips, run_trips;	/* 0: no short reading */
	double ns[CALIB_DISTANCE_MAX];	/* the longer readings; 0: not measured */
	int n;
};

/* Between CPUs a and b (a < 0: none, as when only one CPU is allowed):
 * the pilot, which sizes the readings; d->a < 0 after it when the CPUs
 * cannot be read at all. */
void calib_distance__plan(struct calib_distance *d, int a, int b);
/* A longer reading, kept in d->ns (nothing once CALIB_DISTANCE_MAX are). */
void calib_distance__read(struct calib_distance *d);
/* A short reading, returned (0: none): before a run, to tag its sample. */
double calib_distance__once(const struct calib_distance *d);

#endif
