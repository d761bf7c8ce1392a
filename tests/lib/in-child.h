/* SPDX-License-Identifier: GPL-2.0 */
/*
 * in_child(): run one step that may fault in a forked child, with a
 * SIGSEGV handler of the caller's that turns the fault into an exit
 * status, so that the parent sees each outcome as a number.
 */
#ifndef TAGTRACE_IN_CHILD_H
#define TAGTRACE_IN_CHILD_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Returns the child's exit status (what STEP returned, or what ON_SEGV
 * passed to _exit()), 100 + the signal that killed it, or -1 if it could
 * not be run.
 */
static inline int in_child(void (*on_segv)(int, siginfo_t *, void *),
			   int (*step)(void *), void *arg)
{
	struct sigaction sa;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		_exit(step(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 100 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

#endif
