// SPDX-License-Identifier: GPL-2.0
/*
 * tagtrace: observe x86 user pointer tagging (LAM, UAI) through the
 * kernel's tagged_addr tracepoints. Parses the command line, checks the
 * process and kernel can run it, loads the BPF side and hands over to the
 * command.
 */
#include <dirent.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "commands.h"

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_WARN || verbose)
		return vfprintf(stderr, fmt, args);
	return 0;
}

/* Is some process running as comm? */
static bool comm_running(const char *comm)
{
	char path[300], name[TT_COMM_LEN + 1];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/proc");
	FILE *f;

	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = 0;
			found = !strcmp(name, comm);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* The thread group of the task id, from /proc/ID/status; 0: no such task. */
static pid_t task_tgid(pid_t id)
{
	char path[40], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", id);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * A PID must exist. A thread's id (which /proc answers for too) stands for
 * its process, as BPF compares thread groups: said, and followed. A COMM
 * may name a program about to start, so only a note says none runs yet.
 */
static int check_target(struct tt_env *env)
{
	pid_t tgid;

	if (env->pid) {
		tgid = task_tgid(env->pid);
		if (!tgid) {
			fprintf(stderr, "tagtrace: no process with PID %d\n",
				env->pid);
			return -1;
		}
		if (tgid != env->pid) {
			fprintf(stderr, "tagtrace: %d is a thread of process %d: following the process\n",
				env->pid, tgid);
			env->pid = tgid;
		}
	}
	if (env->comm[0] && !comm_running(env->comm))
		fprintf(stderr, "tagtrace: no process named '%s' yet; watching for one\n",
			env->comm);
	return 0;
}

int main(int argc, char **argv)
{
	struct tt_session s;
	struct tt_stop stop;
	struct tt_env env;
	int ret;

	switch (tt_cli_parse(argc, argv, &env)) {
	case TT_CLI_DONE:
		return 0;
	case TT_CLI_ERROR:
		return 2;
	case TT_CLI_RUN:
		break;
	}
	/*
	 * Keep big buffers (the kernel's BTF, parsed at load and freed) in
	 * their own mappings, returned on free: glibc would otherwise raise
	 * its threshold after the first and keep the next ones in the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	verbose = env.verbose;
	libbpf_set_print(print_libbpf);
	if (check_target(&env))
		return 1;
	/* A reader gone (`| head -1`) is an EPIPE that ends the run (out.c). */
	signal(SIGPIPE, SIG_IGN);

	/* Before the load: a Ctrl-C while it runs ends the run after it. */
	ret = tt_stop_open(&stop);
	if (!ret)
		ret = tt_stop_catch_signals(&stop);
	if (ret) {
		fprintf(stderr, "tagtrace: cannot set up signals: %s\n",
			strerror(-ret));
		return 1;
	}
	if (tt_session_open(&s, &env)) {
		tt_session_close(&s);
		tt_stop_close(&stop);
		return 1;
	}
	tt_session_report(&s, &env);
	if (tt_session_check(&s)) {
		tt_session_close(&s);
		tt_stop_close(&stop);
		return 1;
	}
	switch (env.cmd) {
	case TT_CMD_TRACE:
		ret = tt_trace_run(&s, &env, &stop);
		break;
	case TT_CMD_TOP:
		ret = tt_top_run(&s, &env, &stop);
		break;
	case TT_CMD_TAGS:
		ret = tt_tags_run(&s, &env, &stop);
		break;
	default:
		ret = tt_hist_run(&s, &env, &stop);
		break;
	}
	tt_session_close(&s);
	tt_stop_close(&stop);
	return ret ? 1 : 0;
}
