/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a command stops: a signal (SIGINT, SIGTERM), a deadline, or a
 * request. Every wait ends as soon as a stop is due, with no window in
 * which a signal can arrive unnoticed.
 */
#ifndef TT_STOP_H
#define TT_STOP_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>

struct tt_stop {
	volatile sig_atomic_t requested;
	int efd;		/* eventfd, readable once requested */
	__u64 deadline_ns;	/* CLOCK_MONOTONIC; 0: none */
};

int tt_stop_open(struct tt_stop *st);
void tt_stop_close(struct tt_stop *st);
/*
 * The first SIGINT or SIGTERM requests a stop and puts back the default
 * action of both, so a second one kills. One context per process.
 */
int tt_stop_catch_signals(struct tt_stop *st);
/* Async-signal-safe. */
void tt_stop_request(struct tt_stop *st);
void tt_stop_set_deadline(struct tt_stop *st, __u64 deadline_ns);
/* A stop was requested or the deadline has passed. */
bool tt_stop_due(const struct tt_stop *st);
/*
 * Waits until fd (if >= 0) is readable, until_ns (if not 0) has passed or
 * a stop is due. Returns 1 when fd is readable, 0 otherwise, or -errno.
 */
int tt_stop_wait(struct tt_stop *st, int fd, __u64 until_ns);

#endif /* TT_STOP_H */
