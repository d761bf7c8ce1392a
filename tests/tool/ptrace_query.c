// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_query: a debugger asks for its tracee's untag mask.
 *
 *   ptrace_query N
 *
 * The child enables tagging, queries its own untag mask once with
 * arch_prctl(ARCH_GET_UNTAG_MASK) and stops; the parent, untagged, reads
 * the child's mask N times with ptrace(PTRACE_ARCH_PRCTL), which runs
 * do_arch_prctl_64() with the child as its task and the parent as current.
 * Prints "debugger_pid=", "tracee_pid=" and the mask the debugger read;
 * exits 0 when every call behaved.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>

#include "../lib/tagging.h"

#ifndef PTRACE_ARCH_PRCTL
#define PTRACE_ARCH_PRCTL	30
#endif

int main(int argc, char **argv)
{
	unsigned long mask = 0;
	int n = argc == 2 ? atoi(argv[1]) : -1, i, status;
	pid_t child;

	if (n < 0) {
		fprintf(stderr, "usage: ptrace_query N\n");
		return 2;
	}
	child = fork();
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) ||
		    arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS) ||
		    arch_prctl(ARCH_GET_UNTAG_MASK, (unsigned long)&mask))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFSTOPPED(status)) {
		fprintf(stderr, "ptrace_query: the child did not stop\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (ptrace(PTRACE_ARCH_PRCTL, child, &mask,
			   (void *)ARCH_GET_UNTAG_MASK)) {
			perror("ptrace_query: PTRACE_ARCH_PRCTL");
			return 1;
		}
	ptrace(PTRACE_CONT, child, NULL, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	printf("debugger_pid=%d\ntracee_pid=%d\nmask=%#lx\n", getpid(), child,
	       mask);
	return 0;
}
