// SPDX-License-Identifier: GPL-2.0
/*
 * Do the attached sources fire? A program can attach and never run: a
 * fexit on a function the system call reaches through an inlined copy, a
 * tracepoint its kernel never calls. Where tagtrace can cause the event
 * itself, it does, once, after attaching: an arch_prctl query for ctrl,
 * a #GP for gp (a load through a pointer with a tag in bits 62:57 while
 * tagging is off, caught). BPF counts them apart while its thread bears
 * TT_CHECK_COMM, and reports neither.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "names.h"
#include "session.h"
#include "tagtrace.skel.h"

static sigjmp_buf gp_back;

static void on_gp(int sig)
{
	(void)sig;
	siglongjmp(gp_back, 1);
}

/* A #GP of our own: the kernel's SIGSEGV comes back here. */
static void take_gp(void)
{
	static long target;
	volatile long *tagged = (long *)((uintptr_t)&target | 1ULL << 57);
	struct sigaction sa = { .sa_handler = on_gp }, old;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old))
		return;
	if (!sigsetjmp(gp_back, 1))
		(void)*tagged;
	sigaction(SIGSEGV, &old, NULL);
}

static bool broken(const struct tt_session *s, __u32 kind, __u32 stat,
		   const char *what)
{
	if (!(s->wanted & (1U << kind)) || s->src[kind] == TT_SRC_NONE ||
	    tt_session_stat(s, stat))
		return false;
	fprintf(stderr, "tagtrace: the %s source (%s) is attached but did not report %s that tagtrace made itself: it is broken on this kernel\n",
		tt_event_name(kind), tt_source_name(s->src[kind]), what);
	return true;
}

int tt_session_check(struct tt_session *s)
{
	char comm[TT_COMM_LEN + 1] = "";
	unsigned long bits;
	bool bad;

	prctl(PR_GET_NAME, comm);
	prctl(PR_SET_NAME, TT_CHECK_COMM);
	s->skel->bss->check = true;
	if (s->wanted & (1U << TT_EV_CTRL))
		syscall(SYS_arch_prctl, ARCH_GET_MAX_TAG_BITS, &bits);
	if ((s->wanted & (1U << TT_EV_GP)) && s->src[TT_EV_GP] != TT_SRC_NONE)
		take_gp();
	s->skel->bss->check = false;
	prctl(PR_SET_NAME, comm);
	bad = broken(s, TT_EV_CTRL, TT_STAT_CHECK_CTRL, "the query");
	bad |= broken(s, TT_EV_GP, TT_STAT_CHECK_GP, "the #GP");
	return bad ? -EIO : 0;
}
