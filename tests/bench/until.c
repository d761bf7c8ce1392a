// SPDX-License-Identifier: GPL-2.0
/*
 * until TIMEOUT MARKER CMD [ARG...]: start CMD with its stdout and stderr
 * on a pipe and print how long it took until MARKER appeared there:
 * "until_s=SECONDS". Then SIGINT CMD and wait for it. Exit 1 if MARKER
 * did not appear within TIMEOUT seconds.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char buf[65536 + 1];
	size_t len = 0;
	double start, timeout;
	int fds[2], found = 0;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: until TIMEOUT MARKER CMD [ARG...]\n");
		return 2;
	}
	timeout = atof(argv[1]);
	if (pipe(fds))
		return 2;
	start = now();
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(fds[1]);
	while (!found && now() - start < timeout) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += n;
		buf[len] = 0;
		if (strstr(buf, argv[2])) {
			printf("until_s=%.3f\n", now() - start);
			found = 1;
		}
		if (len > sizeof(buf) / 2) {	/* keep a tail for the search */
			memmove(buf, buf + len - 256, 256);
			len = 256;
		}
	}
	kill(pid, SIGINT);
	while (read(fds[0], buf, sizeof(buf) - 1) > 0)
		;
	waitpid(pid, NULL, 0);
	if (!found)
		fprintf(stderr, "until: '%s' not seen in %s s\n", argv[2], argv[1]);
	return !found;
}
