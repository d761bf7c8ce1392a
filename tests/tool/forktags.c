// SPDX-License-Identifier: GPL-2.0
/*
 * forktags N [--untag]: N short-lived processes one after the other, for
 * tagtrace's per-process maps (tests/tool/procfull-guest.sh). Each child
 * enables tagging itself (one ctrl event, a process of its own to count)
 * and, with --untag, makes one uname() through a tagged pointer (one
 * untag: a tag value and a system call), then exits. Prints "made=N" and
 * exits 0 when every child did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "../lib/tagging.h"

static int child(int untag)
{
	struct utsname u;

	if (arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS))
		return 1;
	if (untag && uname(tag_ptr(&u, 5)))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int untag = argc > 2 && !strcmp(argv[2], "--untag");
	long i, n, made = 0;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: forktags N [--untag]\n");
		return 2;
	}
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forktags: fork");
			break;
		}
		if (!pid)
			_exit(child(untag));
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    !WEXITSTATUS(st))
			made++;
	}
	printf("made=%ld\n", made);
	return made == n ? 0 : 1;
}
