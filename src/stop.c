// SPDX-License-Identifier: GPL-2.0
/*
 * When a command stops. A signal handler only sets a flag, which the ring
 * buffer callback reads to cut a drain short, and writes an eventfd, which
 * every wait polls beside what it waits for: a signal arriving between the
 * flag's test and the poll still wakes it (the self-pipe trick), where a
 * flag-and-sleep loop would sleep a full period.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "clock.h"
#include "stop.h"

static struct tt_stop *signal_stop;

int tt_stop_open(struct tt_stop *st)
{
	memset(st, 0, sizeof(*st));
	st->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return st->efd < 0 ? -errno : 0;
}

void tt_stop_close(struct tt_stop *st)
{
	if (signal_stop == st) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal_stop = NULL;
	}
	if (st->efd >= 0)
		close(st->efd);
	st->efd = -1;
}

void tt_stop_request(struct tt_stop *st)
{
	__u64 one = 1;
	int saved = errno;

	st->requested = 1;
	/* Fails only when the counter is full: it is readable anyway. */
	(void)!write(st->efd, &one, sizeof(one));
	errno = saved;
}

static void on_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	(void)sig;
	/* A second signal takes the default action: Ctrl-C twice kills. */
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	tt_stop_request(signal_stop);
}

int tt_stop_catch_signals(struct tt_stop *st)
{
	/*
	 * SA_RESTART: a write to a slow pipe that a Ctrl-C interrupts before
	 * any byte moved would fail with EINTR, and stdio would drop its
	 * buffer mid-line. The waits still wake: poll() is never restarted,
	 * and the handler makes the eventfd readable. A reader that never
	 * drains the pipe is what the second Ctrl-C (the default) is for.
	 */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	signal_stop = st;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

void tt_stop_set_deadline(struct tt_stop *st, __u64 deadline_ns)
{
	st->deadline_ns = deadline_ns;
}

bool tt_stop_due(const struct tt_stop *st)
{
	return st->requested ||
	       (st->deadline_ns && tt_now_ns() >= st->deadline_ns);
}

int tt_stop_wait(struct tt_stop *st, int fd, __u64 until_ns)
{
	struct pollfd p[2] = {
		{ .fd = st->efd, .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	__u64 end = until_ns;

	if (st->deadline_ns && (!end || st->deadline_ns < end))
		end = st->deadline_ns;
	for (;;) {
		__u64 now = tt_now_ns();
		int ms = -1, n;

		if (st->requested || (end && now >= end))
			return 0;
		if (end)	/* rounded up: never wake before end */
			ms = (end - now + 999999) / 1000000;
		n = poll(p, fd >= 0 ? 2 : 1, ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && (p[1].revents & POLLIN) && !st->requested)
			return 1;
	}
}
