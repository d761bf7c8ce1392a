// SPDX-License-Identifier: GPL-2.0
/*
 * until TIMEOUT MARKER CMD [ARG...]: start CMD with its stdout and stderr
 * on a pipe and print how long it took until MARKER appeared there:
 * "until_s=SECONDS". Then SIGINT CMD and wait for it. Exit 1 if MARKER
 * did not appear within TIMEOUT seconds.
 * MARKER may be several, "A|B|...": each one's time is printed as
 * "mark<i>_s=SECONDS" (i from 1), and until_s is when all have appeared.
 * With UNTIL_LOG=FILE in the environment, every line CMD writes until then
 * goes to FILE after the time it was read, "SECONDS LINE".
 */
#include <poll.h>
#include <stdbool.h>
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

#define MAX_MARKS	8

/* Write each complete line of buf[0..len) to log, after the time t. */
static void log_lines(FILE *log, double t, const char *buf, size_t len,
		      bool *at_line_start)
{
	size_t i;

	for (i = 0; log && i < len; i++) {
		if (*at_line_start)
			fprintf(log, "%.4f ", t);
		fputc(buf[i], log);
		*at_line_start = buf[i] == '\n';
	}
}

int main(int argc, char **argv)
{
	char buf[65536 + 1], *mark[MAX_MARKS], *m;
	const char *logname = getenv("UNTIL_LOG");
	size_t len = 0;
	double start, timeout;
	int fds[2], found = 0, nmarks = 0, i;
	bool seen[MAX_MARKS] = { false }, at_line_start = true;
	FILE *log = NULL;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: until TIMEOUT MARKER CMD [ARG...]\n");
		return 2;
	}
	timeout = atof(argv[1]);
	for (m = strtok(argv[2], "|"); m && nmarks < MAX_MARKS;
	     m = strtok(NULL, "|"))
		mark[nmarks++] = m;
	if (logname && !(log = fopen(logname, "w"))) {
		perror(logname);
		return 2;
	}
	if (!nmarks || pipe(fds))
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
		log_lines(log, now() - start, buf + len, n, &at_line_start);
		len += n;
		buf[len] = 0;
		found = 1;
		for (i = 0; i < nmarks; i++) {
			if (!seen[i] && strstr(buf, mark[i])) {
				seen[i] = true;
				if (nmarks > 1)
					printf("mark%d_s=%.3f\n", i + 1,
					       now() - start);
			}
			found &= seen[i];
		}
		if (found)
			printf("until_s=%.3f\n", now() - start);
		if (len > sizeof(buf) / 2) {	/* keep a tail for the search */
			memmove(buf, buf + len - 256, 256);
			len = 256;
		}
	}
	kill(pid, SIGINT);
	while (read(fds[0], buf, sizeof(buf) - 1) > 0)
		;
	waitpid(pid, NULL, 0);
	if (log)
		fclose(log);
	if (!found)
		fprintf(stderr, "until: not every marker seen in %s s\n",
			argv[1]);
	return !found;
}
