/* SPDX-License-Identifier: GPL-2.0 */
/*
 * futex(2) operations and their class (wait, wake, other), for the BPF
 * objects that classify futex calls from their op argument. Include after
 * trace.h (enum ss_futex_class).
 */
#ifndef SPINSCOPE_FUTEX_OP_BPF_H
#define SPINSCOPE_FUTEX_OP_BPF_H

/* include/uapi/linux/futex.h */
#define FUTEX_CMD_MASK 0x7f	/* ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME) */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI 12
#define FUTEX_LOCK_PI2 13
#define FUTEX_WAITERS 0x80000000	/* a PI word's bit: the kernel queued waiters */
#define FUTEX_TID_MASK 0x3fffffff	/* a PI word's owner */

static __always_inline __u32 futex_class(int op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_WAIT_REQUEUE_PI:
		return SS_FUTEX_CLASS_WAIT;
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_WAKE_OP:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_CMP_REQUEUE_PI:
	case FUTEX_UNLOCK_PI:
		return SS_FUTEX_CLASS_WAKE;
	default:
		return SS_FUTEX_CLASS_OTHER;
	}
}

#endif
