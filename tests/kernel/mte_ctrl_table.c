// SPDX-License-Identifier: GPL-2.0
/*
 * MTE's fields of PR_SET_TAGGED_ADDR_CTRL as a table of answers, to be
 * compared between kernels: the series must answer every case exactly as
 * upstream 6.12 does (tests/kernel/test-arm64.sh compares this program's
 * output on build/linux-arm64 with tests/kernel/arm64-mte-ctrl.upstream).
 *
 * The cases: every TCF combination (NONE, SYNC, ASYNC, SYNC|ASYNC) with
 * the tag inclusion masks 0, 1, 0x5a5a and 0xffff, with and without
 * PR_TAGGED_ADDR_ENABLE, and bits that are valid in neither kernel, set
 *  - through the three-argument prctl (the extra arguments 0), on a fresh
 *    child or on one that set other flags first;
 *  - by a debugger, through PTRACE_SETREGSET NT_ARM_TAGGED_ADDR_CTRL.
 * PR_PMLEN's field (bits 24-30) is left out on purpose: the series accepts
 * it (kernel/series/2-tagged-addr-uabi/0003), upstream 6.12 refuses it.
 *
 * One line a case, "CASE: ANSWERS": the call's return and errno, GET's
 * value, the value a tracer reads with PTRACE_GETREGSET, and what the
 * fields do: whether write(2) takes a tagged buffer, how many of 32 IRG
 * tags fall outside the include mask asked for, and which signal a load
 * through a mismatching tag raises. No addresses, pids or random values,
 * so two boots of one kernel print the same text.
 *
 * Re-record the upstream answers only when the base kernel changes
 * (LINUX_SOURCE_VERSION): `make record-mte-ctrl` builds upstream for
 * arm64 (make kernel-arm64-upstream), boots it and rewrites the file.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/prctl.h>

#ifndef NT_ARM_TAGGED_ADDR_CTRL
#define NT_ARM_TAGGED_ADDR_CTRL	0x409
#endif
#ifndef PROT_MTE
#define PROT_MTE		0x20
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define IRG_DRAWS	32
#define NO_PRE		(~0UL)	/* a case that starts from a fresh child */

/* What one case saw, in memory shared with the parent. */
struct answer {
	long pre_ret, ret, get, rs_ret;
	int pre_err, err, get_err, rs_err;
	unsigned long regset;	/* what the tracer read */
	int write_err;		/* write(2) of a tagged buffer: 0 or errno */
	int irg_out;		/* IRG tags outside the include mask */
	int map_err;		/* mmap(PROT_MTE): 0 or errno */
	int sig, code;		/* what the mismatching load raised */
	int late;		/* an asynchronous fault after the probe */
};

static struct answer *ans;
static sigjmp_buf probe_jmp;
static volatile sig_atomic_t probe_armed;

static const char *err_name(int err)
{
	const char *s = err ? strerrorname_np(err) : NULL;

	return s ? s : "0";
}

static void *with_tag(const void *p, unsigned long tag)
{
	return (void *)(((unsigned long)p & ~(0xffUL << 56)) | tag << 56);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!probe_armed) {
		/* Only an asynchronous report can come this late. */
		ans->late = si->si_code;
		return;
	}
	ans->sig = sig;
	ans->code = si->si_code;
	probe_armed = 0;
	siglongjmp(probe_jmp, 1);
}

/* What the control asked for in flags does, seen from the process. */
static void probe_effects(unsigned long flags)
{
	static char buf[16] = "tagged";
	unsigned long incl = (flags & PR_MTE_TAG_MASK) >> PR_MTE_TAG_SHIFT;
	struct sigaction sa = { .sa_sigaction = on_segv,
				.sa_flags = SA_SIGINFO };
	unsigned long t;
	char *p;
	int fd[2], i;

	/* PR_TAGGED_ADDR_ENABLE: the kernel untags a syscall's pointer. */
	if (pipe(fd) == 0) {
		errno = 0;
		if (write(fd[1], with_tag(buf, 0x2a), 6) != 6)
			ans->write_err = errno ? errno : EIO;
		close(fd[0]);
		close(fd[1]);
	}

	/* The tag mask: IRG picks only tags the mask includes (0 if none). */
	for (i = 0; i < IRG_DRAWS; i++) {
		asm volatile("irg %0, %1" : "=r" (t) : "r" (buf));
		if (!(incl >> ((t >> 56) & 0xf) & 1))
			ans->irg_out++;
	}

	/* TCF: how a load through a tag that does not match is reported. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_MTE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ans->map_err = errno;
		return;
	}
	asm volatile("stg %0, [%0]" : : "r" (with_tag(p, 3)) : "memory");
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(probe_jmp, 1)) {
		probe_armed = 1;
		(void)*(volatile char *)p;
		/* An asynchronous fault is reported at the next kernel entry. */
		getppid();
		probe_armed = 0;
	}
}

/* The child's half of a prctl case: its calls and probes, then a stop. */
static void prctl_child(unsigned long pre, unsigned long flags)
{
	if (pre != NO_PRE) {
		errno = 0;
		ans->pre_ret = prctl(PR_SET_TAGGED_ADDR_CTRL, pre, 0, 0, 0);
		ans->pre_err = errno;
	}
	errno = 0;
	ans->ret = prctl(PR_SET_TAGGED_ADDR_CTRL, flags, 0, 0, 0);
	ans->err = errno;
	errno = 0;
	ans->get = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);
	ans->get_err = errno;
	probe_effects(flags);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(2);
	raise(SIGSTOP);
}

/* The child's half of a regset case: stop, then see what the tracer set. */
static void regset_child(unsigned long flags)
{
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(2);
	raise(SIGSTOP);
	errno = 0;
	ans->get = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);
	ans->get_err = errno;
	probe_effects(flags);
}

/*
 * Run one case in a fresh child. The parent is the child's tracer: with
 * set_by_tracer it writes flags through the regset, then it reads the
 * regset back. Returns "" or what went wrong with the child.
 */
static const char *run_case(unsigned long pre, unsigned long flags,
			    int set_by_tracer)
{
	struct iovec iov;
	unsigned long val;
	pid_t pid;
	int st;

	memset(ans, 0, sizeof(*ans));
	ans->rs_ret = -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (pid == 0) {
		if (set_by_tracer)
			regset_child(flags);
		else
			prctl_child(pre, flags);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		waitpid(pid, &st, 0);
		return "the child did not stop for its tracer";
	}
	if (set_by_tracer) {
		val = flags;
		iov = (struct iovec){ &val, sizeof(val) };
		errno = 0;
		ans->ret = ptrace(PTRACE_SETREGSET, pid,
				  NT_ARM_TAGGED_ADDR_CTRL, &iov);
		ans->err = errno;
	}
	val = 0;
	iov = (struct iovec){ &val, sizeof(val) };
	errno = 0;
	ans->rs_ret = ptrace(PTRACE_GETREGSET, pid, NT_ARM_TAGGED_ADDR_CTRL,
			     &iov);
	ans->rs_err = errno;
	ans->regset = val;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return "the child did not exit 0";
	return "";
}

/* "0x..." for a value, "-1 EINVAL" for a failed call. */
static const char *value(long ret, int err, unsigned long val, char *buf,
			 size_t len)
{
	if (ret < 0)
		snprintf(buf, len, "%ld %s", ret, err_name(err));
	else
		snprintf(buf, len, "0x%lx", val);
	return buf;
}

static void print_case(const char *what, unsigned long pre,
		       unsigned long flags, int set_by_tracer)
{
	const char *bad = run_case(pre, flags, set_by_tracer);
	char get[32], rs[32];

	printf("%s 0x%lx", what, flags);
	if (pre != NO_PRE)
		printf(" after 0x%lx", pre);
	if (*bad) {
		printf(": %s\n", bad);
		return;
	}
	printf(":");
	if (pre != NO_PRE)
		printf(" pre %ld %s,", ans->pre_ret, err_name(ans->pre_err));
	printf(" set %ld %s, get %s, regset %s, write %s, irg-outside %d/%d",
	       ans->ret, err_name(ans->err),
	       value(ans->get, ans->get_err, ans->get, get, sizeof(get)),
	       value(ans->rs_ret, ans->rs_err, ans->regset, rs, sizeof(rs)),
	       ans->write_err ? err_name(ans->write_err) : "ok",
	       ans->irg_out, IRG_DRAWS);
	if (ans->map_err)
		printf(", mte-mmap %s", err_name(ans->map_err));
	else if (ans->sig == SIGSEGV && ans->code == SEGV_MTESERR)
		printf(", mismatch SEGV_MTESERR");
	else if (ans->sig == SIGSEGV && ans->code == SEGV_MTEAERR)
		printf(", mismatch SEGV_MTEAERR");
	else if (ans->sig)
		printf(", mismatch sig %d code %d", ans->sig, ans->code);
	else
		printf(", mismatch none");
	if (ans->late)
		printf(", late code %d", ans->late);
	putchar('\n');
}

static const unsigned long tcfs[] = {
	PR_MTE_TCF_NONE, PR_MTE_TCF_SYNC, PR_MTE_TCF_ASYNC,
	PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC,
};

static const unsigned long masks[] = { 0, 1, 0x5a5a, 0xffff };

/*
 * Just above the tag mask, just below and above PR_PMLEN, the first of the
 * upper word and the top bit.
 */
static const int bad_bits[] = { 19, 23, 31, 32, 63 };

#define FULL	(PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC | PR_MTE_TAG_MASK)

/* Over a control set before: what a SET replaces, and a failed one keeps. */
static const struct { unsigned long pre, flags; } steps[] = {
	{ FULL, 0 },
	{ FULL, PR_TAGGED_ADDR_ENABLE },
	{ FULL, PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_ASYNC |
		0x5a5aUL << PR_MTE_TAG_SHIFT },
	{ FULL, PR_MTE_TCF_SYNC },
	{ FULL, FULL | 1UL << 19 },
	{ PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC |
	  1UL << PR_MTE_TAG_SHIFT, PR_MTE_TCF_ASYNC },
};

/* Every flags word of the grid, then the invalid ones. */
static void walk(const char *what, int set_by_tracer)
{
	unsigned int e, t, m, b;

	for (e = 0; e < 2; e++)
		for (t = 0; t < 4; t++)
			for (m = 0; m < 4; m++)
				print_case(what, NO_PRE,
					   (e ? PR_TAGGED_ADDR_ENABLE : 0) |
					   tcfs[t] |
					   masks[m] << PR_MTE_TAG_SHIFT,
					   set_by_tracer);
	for (b = 0; b < ARRAY_SIZE(bad_bits); b++) {
		print_case(what, NO_PRE, 1UL << bad_bits[b], set_by_tracer);
		print_case(what, NO_PRE, FULL | 1UL << bad_bits[b],
			   set_by_tracer);
	}
}

int main(void)
{
	unsigned int i;

	ans = mmap(NULL, sizeof(*ans), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ans == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	walk("prctl", 0);
	for (i = 0; i < ARRAY_SIZE(steps); i++)
		print_case("prctl", steps[i].pre, steps[i].flags, 0);
	walk("regset", 1);
	return 0;
}
