// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the parts of tagtrace that need no kernel: the command
 * line, names, JSON writing, record formatting, kallsyms lookup, top's table,
 * hist's formatting and top's OpenMetrics file. TAP on stdout; run by `make
 * unit` under ASAN and UBSAN. Known bugs in src/ are tests inside tap_todo() blocks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include "tap.h"
#include "clock.h"
#include "caps.h"
#include "cli.h"
#include "histfmt.h"
#include "json.h"
#include "ksyms.h"
#include "line.h"
#include "names.h"
#include "openmetrics.h"
#include "out.h"
#include "probe.h"
#include "procset.h"
#include "record.h"
#include "stop.h"
#include "table.h"
#include "tagfmt.h"
#include "sysnames.h"
#include "usym.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void die(const char *what)
{
	perror(what);
	exit(99);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("strdup");
	return d;
}

/* ---- output captured in memory (open_memstream) ------------------------ */

struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		die("open_memstream");
	return m->f;
}

/* Closes the stream: its text, valid until mem_free(). */
static const char *mem_text(struct mem *m)
{
	if (fclose(m->f))
		die("fclose");
	m->f = NULL;
	return m->buf;
}

static void mem_free(struct mem *m)
{
	free(m->buf);
	m->buf = NULL;
}

/* ---- stdout and stderr captured (argp prints on them) ------------------ */

struct capture {
	FILE *out, *err;
	int saved_out, saved_err;
};

static void capture_begin(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	c->out = tmpfile();
	c->err = tmpfile();
	if (!c->out || !c->err)
		die("tmpfile");
	c->saved_out = dup(STDOUT_FILENO);
	c->saved_err = dup(STDERR_FILENO);
	if (c->saved_out < 0 || c->saved_err < 0 ||
	    dup2(fileno(c->out), STDOUT_FILENO) < 0 ||
	    dup2(fileno(c->err), STDERR_FILENO) < 0)
		die("dup2");
}

static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void capture_end(struct capture *c, char *out, char *err, size_t len)
{
	fflush(stdout);
	fflush(stderr);
	if (dup2(c->saved_out, STDOUT_FILENO) < 0 ||
	    dup2(c->saved_err, STDERR_FILENO) < 0)
		die("dup2");
	close(c->saved_out);
	close(c->saved_err);
	slurp(c->out, out, len);
	slurp(c->err, err, len);
}

/* ---- cli.c -------------------------------------------------------------- */

#define CLI_MAX_ARGS 32

static char cli_out[8192], cli_err[8192];	/* the last parse's output */
static char *cli_argv[CLI_MAX_ARGS + 1];	/* what it was given */
static char *cli_alloc[CLI_MAX_ARGS];		/* the same, unpermuted */
static int cli_argc;
static char cli_line[512];			/* the command line */

static void cli_free_args(void)
{
	while (cli_argc > 0)
		free(cli_alloc[--cli_argc]);
}

/*
 * tt_cli_parse() on writable copies of args (NULL-terminated), with its
 * output captured. The copies live until the next call, since env may
 * point into them (openmetrics).
 */
static enum tt_cli_result cli_run(struct tt_env *env, const char *const *args)
{
	enum tt_cli_result res;
	struct capture c;
	int i;

	cli_free_args();
	cli_line[0] = 0;
	for (i = 0; args[i]; i++) {
		if (i == CLI_MAX_ARGS)
			die("too many arguments");
		cli_alloc[i] = xstrdup(args[i]);
		cli_argv[i] = cli_alloc[i];
		if (i)
			strncat(cli_line, " ",
				sizeof(cli_line) - strlen(cli_line) - 1);
		strncat(cli_line, args[i],
			sizeof(cli_line) - strlen(cli_line) - 1);
	}
	cli_argc = i;
	cli_argv[i] = NULL;
	/* Garbage in env: the parse must set every field itself. */
	memset(env, 0xa5, sizeof(*env));
	capture_begin(&c);
	res = tt_cli_parse(cli_argc, cli_argv, env);
	capture_end(&c, cli_out, cli_err, sizeof(cli_out));
	return res;
}

#define CLI(env, ...) \
	cli_run((env), (const char *const []){ "tagtrace", __VA_ARGS__, NULL })

static const char *result_name(enum tt_cli_result r)
{
	switch (r) {
	case TT_CLI_RUN:
		return "TT_CLI_RUN";
	case TT_CLI_DONE:
		return "TT_CLI_DONE";
	case TT_CLI_ERROR:
		return "TT_CLI_ERROR";
	}
	return "?";
}

static void cli_diag(enum tt_cli_result res)
{
	tap_diag("result: %s", result_name(res));
	tap_diag("stdout: %s", cli_out);
	tap_diag("stderr: %s", cli_err);
}

/* A valid command line: TT_CLI_RUN and nothing printed. */
static bool cli_accepts(struct tt_env *env, const char *const *args)
{
	enum tt_cli_result res = cli_run(env, args);

	if (ok(res == TT_CLI_RUN && !cli_out[0] && !cli_err[0],
	       "'%s' runs silently", cli_line))
		return true;
	cli_diag(res);
	return false;
}

#define ACCEPT(env, ...) \
	cli_accepts((env), (const char *const []){ "tagtrace", __VA_ARGS__, \
						   NULL })

/* A bad command line: TT_CLI_ERROR and an error on stderr only. */
static void cli_rejects(const char *why, const char *const *args)
{
	struct tt_env env;
	enum tt_cli_result res = cli_run(&env, args);

	if (!ok(res == TT_CLI_ERROR && cli_err[0] && !cli_out[0],
		"%s: '%s' is an error on stderr", why, cli_line))
		cli_diag(res);
}

#define REJECT(why, ...) \
	cli_rejects((why), (const char *const []){ "tagtrace", __VA_ARGS__, \
						   NULL })

static void test_cli_defaults(void)
{
	static const struct {
		const char *name;
		enum tt_cmd cmd;
	} cmds[] = {
		{ "trace", TT_CMD_TRACE },
		{ "top", TT_CMD_TOP },
		{ "hist", TT_CMD_HIST },
	};
	struct tt_env env;
	size_t i;

	is_uint(TT_ALL_EVENTS, 0x1f, "all events: the 5 kinds' bits");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *n = cmds[i].name;

		if (!ACCEPT(&env, n))
			continue;
		is_int(env.cmd, cmds[i].cmd, "%s: cmd is its enum value", n);
		is_int(env.pid, 0, "%s: default pid 0 (all)", n);
		is_str(env.comm, "", "%s: default comm empty (all)", n);
		is_uint(env.events, TT_ALL_EVENTS, "%s: default events all", n);
		ok(env.duration == 0, "%s: default duration 0 (%g)", n,
		   env.duration);
		ok(env.interval == 1, "%s: default interval 1 s (%g)", n,
		   env.interval);
		is_int(env.count, 0, "%s: default count 0 (until signal)", n);
		ok(!env.json, "%s: json off by default", n);
		ok(!env.verbose, "%s: verbose off by default", n);
		ok(!env.usec, "%s: usec off by default", n);
		ok(!env.openmetrics, "%s: openmetrics NULL by default", n);
		is_uint(env.ringbuf_size, 1024 * 1024,
			"%s: default ring buffer 1M", n);
		is_int(env.attach, TT_ATTACH_AUTO, "%s: default attach auto",
		       n);
	}

	/* The parse starts from scratch, whatever env held. */
	ACCEPT(&env, "trace", "-p", "5", "-c", "x", "--json");
	if (ACCEPT(&env, "trace")) {
		ok(env.pid == 0 && !env.comm[0] && !env.json,
		   "a second parse does not keep the first one's options");
	}
	if (ACCEPT(&env, "trace", "-p", "1")) {
		ok(cli_argv[1] == cli_alloc[1],
		   "argv[1] is restored after the parse");
		is_str(cli_argv[1], "trace", "argv[1] still says trace");
	}
}

static void test_cli_trace(void)
{
	struct tt_env env;

	if (ACCEPT(&env, "trace", "-p", "181", "-c", "redis-server", "-e",
		   "ctrl,fault", "-d", "10", "--json", "-v",
		   "--ringbuf-size", "64K", "-A", "btf")) {
		is_int(env.cmd, TT_CMD_TRACE, "trace: cmd");
		is_int(env.pid, 181, "trace -p 181: pid");
		is_str(env.comm, "redis-server", "trace -c: comm");
		is_uint(env.events, 1U << TT_EV_CTRL | 1U << TT_EV_FAULT,
			"trace -e ctrl,fault: mask of those two");
		ok(env.duration == 10, "trace -d 10: duration 10 (%g)",
		   env.duration);
		ok(env.json, "trace --json: json");
		ok(env.verbose, "trace -v: verbose");
		is_uint(env.ringbuf_size, 65536, "trace --ringbuf-size 64K");
		is_int(env.attach, TT_ATTACH_BTF, "trace -A btf");
		ok(env.interval == 1 && env.count == 0 && !env.usec &&
		   !env.openmetrics,
		   "trace: report options keep their defaults");
	}
	if (ACCEPT(&env, "trace", "--pid=2147483647", "--comm",
		   "abcdefghijklmno", "--events", "gp", "--duration", "0.25",
		   "--verbose", "--attach=raw")) {
		is_int(env.pid, INT_MAX, "trace --pid=INT_MAX");
		is_str(env.comm, "abcdefghijklmno",
		       "trace --comm of 15 characters kept whole");
		is_uint(env.events, 1U << TT_EV_GP, "trace --events gp");
		ok(env.duration == 0.25, "trace --duration 0.25 (%g)",
		   env.duration);
		ok(env.verbose && !env.json, "trace --verbose without --json");
		is_int(env.attach, TT_ATTACH_RAW, "trace --attach=raw");
	}
	if (ACCEPT(&env, "trace", "-d", "1e6", "-A", "fallback")) {
		ok(env.duration == 1e6, "trace -d 1e6: the maximum accepted");
		is_int(env.attach, TT_ATTACH_FALLBACK, "trace -A fallback");
	}
	if (ACCEPT(&env, "trace", "-A", "auto"))
		is_int(env.attach, TT_ATTACH_AUTO, "trace -A auto");
	if (ACCEPT(&env, "trace", "-e", "switch,untag,switch"))
		is_uint(env.events, 1U << TT_EV_SWITCH | 1U << TT_EV_UNTAG,
			"trace -e with a duplicate: each event once");
	if (ACCEPT(&env, "trace", "-e", "ctrl,untag,switch,fault,gp"))
		is_uint(env.events, TT_ALL_EVENTS, "trace -e every name: all");
}

static void test_cli_ringbuf(void)
{
	static const struct {
		const char *arg;
		__u32 bytes;
	} good[] = {
		{ "4096", 4096 },
		{ "4K", 4096 },
		{ "4k", 4096 },
		{ "8K", 8192 },
		{ "65536", 65536 },
		{ "1M", 1 << 20 },
		{ "16m", 16 << 20 },
		{ "1024M", 1U << 30 },
		{ "1073741824", 1U << 30 },
	};
	static const char *const bad[] = {
		"0", "2048", "4095", "3000", "6K", "12288", "2048M",
		"2147483648", "1G", "4KB", "", "K", "-4096", "-4K", "abc",
	};
	struct tt_env env;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (ACCEPT(&env, "trace", "--ringbuf-size", good[i].arg))
			is_uint(env.ringbuf_size, good[i].bytes,
				"--ringbuf-size %s is %u bytes", good[i].arg,
				good[i].bytes);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		REJECT("bad ring buffer size", "trace", "--ringbuf-size",
		       bad[i]);

	/*
	 * 18014398509481988K is 2^64 + 4096 bytes, 17592186044420M is
	 * 2^64 + 4M: the shift wraps past 64 bits to a valid power of two.
	 */
	REJECT("ring buffer size that wraps to 4096 when shifted", "trace",
	       "--ringbuf-size", "18014398509481988K");
	REJECT("ring buffer size that wraps to 4M when shifted", "trace",
	       "--ringbuf-size", "17592186044420M");
	/* strtoull() skips the blank and negates: 2^64 - n. */
	REJECT("negative ring buffer size after a blank", "trace",
	       "--ringbuf-size", " -18446744073709547520");
}

static void test_cli_top_hist(void)
{
	struct tt_env env;

	if (ACCEPT(&env, "top", "-p", "7", "-c", "redis", "-i", "5", "-n",
		   "3", "--json", "--openmetrics", "/tmp/tt.prom", "-A",
		   "raw", "-v")) {
		is_int(env.cmd, TT_CMD_TOP, "top: cmd");
		is_int(env.pid, 7, "top -p 7");
		is_str(env.comm, "redis", "top -c redis");
		ok(env.interval == 5, "top -i 5 (%g)", env.interval);
		is_int(env.count, 3, "top -n 3");
		ok(env.json, "top --json");
		ok(env.verbose, "top -v");
		is_str(env.openmetrics, "/tmp/tt.prom",
		       "top --openmetrics FILE");
		is_int(env.attach, TT_ATTACH_RAW, "top -A raw");
		is_uint(env.events, TT_ALL_EVENTS, "top: events stay all");
		ok(env.duration == 0 && !env.usec &&
		   env.ringbuf_size == TT_DEFAULT_RINGBUF,
		   "top: trace and hist options keep their defaults");
	}
	if (ACCEPT(&env, "top", "--interval=0.5", "--count=2147483647"))
		ok(env.interval == 0.5 && env.count == INT_MAX,
		   "top --interval=0.5 --count=INT_MAX (%g, %ld)", env.interval,
		   env.count);
	if (ACCEPT(&env, "hist", "-i", "10", "-n", "1", "--us", "--json",
		   "-p", "9", "--comm=x", "--attach", "fallback")) {
		is_int(env.cmd, TT_CMD_HIST, "hist: cmd");
		ok(env.interval == 10, "hist -i 10 (%g)", env.interval);
		is_int(env.count, 1, "hist -n 1");
		ok(env.usec, "hist --us");
		ok(env.json, "hist --json");
		is_int(env.pid, 9, "hist -p 9");
		is_str(env.comm, "x", "hist --comm=x");
		is_int(env.attach, TT_ATTACH_FALLBACK,
		       "hist --attach fallback");
		ok(!env.openmetrics && !env.verbose,
		   "hist: other options keep their defaults");
	}
	if (ACCEPT(&env, "tags", "-p", "12", "-c", "hwasan_prog", "-i", "2",
		   "-n", "1", "--json")) {
		is_int(env.cmd, TT_CMD_TAGS, "tags: cmd");
		is_int(env.pid, 12, "tags -p 12");
		is_str(env.comm, "hwasan_prog", "tags -c hwasan_prog");
		ok(env.interval == 2 && env.count == 1, "tags -i 2 -n 1");
		ok(env.json, "tags --json");
		ok(!env.openmetrics && !env.tag_values && !env.usec,
		   "tags: other options keep their defaults");
	}
	if (ACCEPT(&env, "top", "--openmetrics", "f.prom", "--tag-values"))
		ok(env.tag_values && !strcmp(env.openmetrics, "f.prom"),
		   "top --openmetrics FILE --tag-values");
	if (ACCEPT(&env, "top", "--openmetrics", "f.prom"))
		ok(!env.histograms && !env.btf,
		   "top --openmetrics: no histograms unless asked, no --btf");
	if (ACCEPT(&env, "trace", "--btf", "/tmp/v.btf"))
		is_str(env.btf, "/tmp/v.btf", "trace --btf FILE");
	if (ACCEPT(&env, "hist", "--btf=v.btf"))
		is_str(env.btf, "v.btf", "hist --btf=FILE");
	if (ACCEPT(&env, "top", "--openmetrics", "f.prom", "--histograms"))
		ok(env.histograms && !env.tag_values,
		   "top --openmetrics FILE --histograms");
}

static void test_cli_errors(void)
{
	static const char *const cmds[] = { "trace", "top", "hist", "tags" };
	static const char *const bad_secs[] = {
		"0", "-1", "nan", "inf", "-inf", "1e7", "1000001", "1s", "",
		"abc",
	};
	static const char *const bad_pids[] = {
		"0", "-1", "abc", "99999999999", "2147483648", "12abc", "",
	};
	static const char *const bad_counts[] = {
		"0", "-1", "abc", "1.5", "99999999999", "",
	};
	struct tt_env env;
	size_t i, j;
	int res;

	res = cli_run(&env, (const char *const []){ "tagtrace", NULL });
	if (!ok(res == TT_CLI_ERROR && cli_err[0] && !cli_out[0],
		"missing command is an error on stderr"))
		cli_diag(res);
	REJECT("unknown command", "trace2");
	REJECT("unknown command", "stat");
	REJECT("unknown command", "");
	REJECT("option before the command", "-p", "1", "trace");

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		for (j = 0; j < ARRAY_SIZE(bad_pids); j++)
			REJECT("bad PID", cmds[i], "-p", bad_pids[j]);
		REJECT("COMM of 16 characters", cmds[i], "-c",
		       "abcdefghijklmnop");
		REJECT("COMM of 20 characters", cmds[i], "--comm",
		       "abcdefghijklmnopqrst");
		REJECT("empty COMM", cmds[i], "-c", "");
		REJECT("unknown attach mode", cmds[i], "-A", "kprobe");
		REJECT("unknown attach mode", cmds[i], "--attach", "");
		REJECT("stray positional argument", cmds[i], "extra");
		REJECT("stray positional argument", cmds[i], "-p", "5", "5");
		REJECT("unknown long option", cmds[i], "--bogus");
		REJECT("unknown short option", cmds[i], "-x");
		REJECT("option without its argument", cmds[i], "-p");
		REJECT("flag given an argument", cmds[i], "--json=yes");
	}

	REJECT("unknown event", "trace", "-e", "ctrl,bogus");
	REJECT("unknown event (case)", "trace", "-e", "CTRL");
	REJECT("unknown event (prefix)", "trace", "-e", "ctr");
	REJECT("empty event list", "trace", "-e", "");
	REJECT("empty event in list", "trace", "-e", "ctrl,");
	REJECT("empty event in list", "trace", "-e", ",gp");
	for (j = 0; j < ARRAY_SIZE(bad_secs); j++)
		REJECT("bad duration", "trace", "-d", bad_secs[j]);
	for (i = 1; i < ARRAY_SIZE(cmds); i++) {
		for (j = 0; j < ARRAY_SIZE(bad_secs); j++)
			REJECT("bad interval", cmds[i], "-i", bad_secs[j]);
		for (j = 0; j < ARRAY_SIZE(bad_counts); j++)
			REJECT("bad count", cmds[i], "-n", bad_counts[j]);
	}
	REJECT("empty openmetrics file", "top", "--openmetrics", "");

	/* Each command takes only its own options. */
	REJECT("top's option to trace", "trace", "-i", "1");
	REJECT("top's option to trace", "trace", "-n", "1");
	REJECT("top's option to trace", "trace", "--openmetrics", "f");
	REJECT("hist's option to trace", "trace", "--us");
	REJECT("trace's option to top", "top", "-e", "ctrl");
	REJECT("trace's option to top", "top", "-d", "1");
	REJECT("trace's option to top", "top", "--ringbuf-size", "4K");
	REJECT("hist's option to top", "top", "--us");
	REJECT("top's option to hist", "hist", "--openmetrics", "f");
	REJECT("trace's option to hist", "hist", "-e", "ctrl");
	REJECT("trace's option to hist", "hist", "-d", "1");
	REJECT("trace's option to hist", "hist", "--ringbuf-size", "4K");
	REJECT("--tag-values without --openmetrics", "top", "--tag-values");
	REJECT("--histograms without --openmetrics", "top", "--histograms");
	REJECT("empty --btf", "tags", "--btf", "");
	REJECT("--btf without FILE", "top", "--btf");
	REJECT("top's option to hist", "hist", "--histograms");
	REJECT("top's option to trace", "trace", "--histograms");
	REJECT("top's option to tags", "tags", "--openmetrics", "f");
	REJECT("top's option to tags", "tags", "--tag-values");
	REJECT("trace's option to tags", "tags", "-e", "untag");
	REJECT("hist's option to tags", "tags", "--us");
	REJECT("tags' option to trace", "trace", "-i", "1");
}

static void test_cli_help(void)
{
	static const char *const cmds[] = { "trace", "top", "hist" };
	static const char *const own[] = { "--ringbuf-size", "--openmetrics",
					   "--us" };
	struct tt_env env;
	bool hint_usage;
	size_t i;
	int res;

	res = CLI(&env, "--help");
	if (!ok(res == TT_CLI_DONE && !cli_err[0] &&
		strstr(cli_out, "Usage: tagtrace COMMAND"),
		"--help: usage on stdout, done"))
		cli_diag(res);
	res = CLI(&env, "-h");
	if (!ok(res == TT_CLI_DONE && !cli_err[0] &&
		strstr(cli_out, "Usage: tagtrace COMMAND"),
		"-h: usage on stdout, done"))
		cli_diag(res);
	res = CLI(&env, "--version");
	is_int(res, TT_CLI_DONE, "--version: done");
	is_str(cli_out, "tagtrace " TT_VERSION "\n", "--version prints it");
	res = CLI(&env, "-V");
	is_int(res, TT_CLI_DONE, "-V: done");
	is_str(cli_out, "tagtrace " TT_VERSION "\n", "-V prints the version");

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		char usage[64];

		snprintf(usage, sizeof(usage), "Usage: tagtrace %s", cmds[i]);
		res = CLI(&env, cmds[i], "--help");
		if (!ok(res == TT_CLI_DONE && strstr(cli_out, usage) &&
			strstr(cli_out, own[i]) && strstr(cli_out, "--pid") &&
			!cli_err[0],
			"%s --help: its own options on stdout, done", cmds[i]))
			cli_diag(res);
		res = CLI(&env, cmds[i], "--version");
		is_int(res, TT_CLI_DONE, "%s --version: done", cmds[i]);
		is_str(cli_out, "tagtrace " TT_VERSION "\n",
		       "%s --version prints the version", cmds[i]);
		res = CLI(&env, cmds[i], "--help", "-p", "0");
		is_int(res, TT_CLI_ERROR,
		       "%s --help with a bad option is still an error",
		       cmds[i]);
	}

	/*
	 * argp's error hint must only name options that work. (A --usage
	 * option would do, but getopt would then take "trace --us" for it.)
	 */
	CLI(&env, "trace", "-p", "0");
	hint_usage = strstr(cli_err, "--usage");
	res = CLI(&env, "trace", "--usage");
	if (!ok(!hint_usage || res == TT_CLI_DONE,
		"the error hint names no option that is rejected"))
		cli_diag(res);
}

/* ---- names.c ------------------------------------------------------------ */

static void test_names(void)
{
	static const char *const events[] = {
		"ctrl", "untag", "switch", "fault", "gp",
	};
	static const char *const modes[] = {
		"none", "lam_u57", "uai", "lam_u48",
	};
	static const char *const ifs[] = { "prctl", "arch_prctl", "exec" };
	static const char *const ops[] = { "enable", "disable", "query",
					   "reset" };
	static const char *const sources[] = {
		"unavailable", "tp_btf/tagged_addr", "raw_tp/tagged_addr",
		"fexit/do_arch_prctl_64", "kretprobe/do_arch_prctl_64",
		"fentry/switch_mm_irqs_off", "kprobe/switch_mm_irqs_off",
		"tp_btf/page_fault_user", "raw_tp/page_fault_user",
	};
	/* The kernel's TP_printk names for TAGGED_ADDR_REFUSED_* */
	static const char *const reasons[] = {
		"none", "no_backend", "sysctl", "no_lass_with_mitigations",
		"uai_with_mitigations", "uai_without_smap",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(events); i++)
		is_str(tt_event_name(i), events[i], "event name %u", i);
	is_str(tt_event_name(TT_EV_MAX), "unknown", "event TT_EV_MAX unknown");
	is_str(tt_event_name(UINT_MAX), "unknown", "event UINT_MAX unknown");
	for (i = 0; i < ARRAY_SIZE(modes); i++)
		is_str(tt_mode_name(i), modes[i], "mode name %u", i);
	is_str(tt_mode_name(TT_MODE_MAX), "unknown",
	       "mode TT_MODE_MAX unknown");
	is_str(tt_mode_name(-1), "unknown", "mode -1 unknown");
	is_str(tt_mode_name(INT_MIN), "unknown", "mode INT_MIN unknown");
	is_str(tt_mode_name(INT_MAX), "unknown", "mode INT_MAX unknown");
	for (i = 0; i < ARRAY_SIZE(ifs); i++)
		is_str(tt_if_name(i), ifs[i], "interface name %u", i);
	is_str(tt_if_name(TT_IF_MAX), "unknown", "interface TT_IF_MAX unknown");
	is_str(tt_if_name(-1), "unknown", "interface -1 unknown");
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		is_str(tt_op_name(i), ops[i], "op name %u", i);
	is_str(tt_op_name(TT_OP_MAX), "unknown", "op TT_OP_MAX unknown");
	is_str(tt_op_name(-1), "unknown", "op -1 unknown");
	is_int(ARRAY_SIZE(sources), TT_SRC_MAX, "a name for every source");
	for (i = 0; i < ARRAY_SIZE(sources); i++)
		is_str(tt_source_name(i), sources[i], "source name %u", i);
	is_str(tt_source_name(TT_SRC_MAX), "unknown",
	       "source TT_SRC_MAX unknown");
	is_str(tt_source_name(UINT_MAX), "unknown", "source UINT_MAX unknown");
	for (i = 0; i < ARRAY_SIZE(reasons); i++)
		is_str(tt_reason_name(i), reasons[i], "reason name %u", i);
	is_str(tt_reason_name(TT_REASON_UNKNOWN), "unknown",
	       "reason -1 (fallback) unknown");
	is_str(tt_reason_name(TT_REASON_MAX), "unknown",
	       "reason TT_REASON_MAX unknown");
	ok(!tt_reason_text(TT_REASON_NONE), "no refusal text for none");
	ok(!tt_reason_text(TT_REASON_UNKNOWN), "no refusal text for a fallback");
	ok(!tt_reason_text(TT_REASON_MAX), "no refusal text out of range");
	is_str(tt_reason_text(TT_REASON_NO_LASS), "no LASS with mitigations on",
	       "refusal text: LAM without LASS");
}

static void test_parse_events(void)
{
	static const struct {
		const char *list;
		__u32 mask;
	} good[] = {
		{ "ctrl", 1U << TT_EV_CTRL },
		{ "untag", 1U << TT_EV_UNTAG },
		{ "switch", 1U << TT_EV_SWITCH },
		{ "fault", 1U << TT_EV_FAULT },
		{ "gp", 1U << TT_EV_GP },
		{ "untag,gp", 1U << TT_EV_UNTAG | 1U << TT_EV_GP },
		{ "gp,ctrl,fault", 1U << TT_EV_GP | 1U << TT_EV_CTRL |
				   1U << TT_EV_FAULT },
		{ "ctrl,ctrl", 1U << TT_EV_CTRL },
		{ "fault,gp,fault,gp", 1U << TT_EV_FAULT | 1U << TT_EV_GP },
		{ "ctrl,untag,switch,fault,gp", TT_ALL_EVENTS },
	};
	static const struct {
		const char *list;
		const char *bad;
	} bad[] = {
		{ "bogus", "bogus" },
		{ "ctrl,bogus", "bogus" },
		{ "ctrl,bogus,gp", "bogus" },
		{ "ctrl,nope,zap", "nope" },
		{ "", "" },
		{ "ctrl,", "" },
		{ ",ctrl", "" },
		{ "ctrl,,gp", "" },
		{ "CTRL", "CTRL" },
		{ "ctr", "ctr" },
		{ "ctrlx", "ctrlx" },
		{ "gp ", "gp " },
		{ "all", "all" },
	};
	char word[32];
	__u32 mask;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		mask = 0xdeadbeef;
		ret = tt_parse_events(good[i].list, &mask, word, sizeof(word));
		is_int(ret, 0, "events '%s' parse", good[i].list);
		is_uint(mask, good[i].mask, "events '%s' mask", good[i].list);
	}
	for (i = 0; i < TT_EV_MAX; i++) {
		tt_parse_events(tt_event_name(i), &mask, word, sizeof(word));
		is_uint(mask, 1U << i, "event name %zu parses to its bit", i);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		strcpy(word, "unset");
		ret = tt_parse_events(bad[i].list, &mask, word, sizeof(word));
		is_int(ret, -1, "events '%s' rejected", bad[i].list);
		is_str(word, bad[i].bad, "events '%s' names the bad word",
		       bad[i].list);
	}
	/* The bad word is cut to the buffer, NUL-terminated. */
	memset(word, 'Z', sizeof(word));
	ret = tt_parse_events("ctrl,abcdefghij", &mask, word, 5);
	is_int(ret, -1, "long bad word rejected");
	is_str(word, "abcd", "long bad word cut to badlen - 1 characters");
	is_int(word[5], 'Z', "nothing written past badlen");
}

/* ---- json.c ------------------------------------------------------------- */

static void check_json_str(const char *s, size_t maxlen, const char *want,
			   const char *what)
{
	struct mem m;

	json_str(mem_open(&m), s, maxlen);
	is_str(mem_text(&m), want, "json_str: %s", what);
	mem_free(&m);
}

/*
 * A string far longer than a line: escaped in pieces, each escape and
 * UTF-8 sequence whole wherever a piece ends.
 */
static void test_json_long(void)
{
	static const char unit[] = "ab\"\x01\xc3\xa9\xe2\x82\xac\\\xff" "cdefg";
	static const char esc[] = "ab\\\"\\u0001\xc3\xa9\xe2\x82\xac\\\\\\ufffdcdefg";
	size_t n = 700, i;
	char *s = malloc(n * (sizeof(unit) - 1) + 1);
	char *want = malloc(n * (sizeof(esc) - 1) + 3);
	struct mem m;

	if (!s || !want)
		die("malloc");
	s[0] = 0;
	strcpy(want, "\"");
	for (i = 0; i < n; i++) {
		strcat(s, unit);
		strcat(want, esc);
	}
	strcat(want, "\"");
	json_str(mem_open(&m), s, strlen(s));
	ok(!strcmp(mem_text(&m), want),
	   "json_str: %zu bytes of mixed escapes and UTF-8, written in pieces, "
	   "as one", strlen(s));
	mem_free(&m);
	free(s);
	free(want);
}

static void test_json(void)
{
	static const char ctl[] = "\x01\x08\x0c\r\x1b\x1f";
	static const char no_nul[] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
				       'X', 'Y', 'Z', 0 };
	struct json j;
	struct mem m;

	check_json_str("plain text /:.", 100, "\"plain text /:.\"",
		       "printable ASCII unchanged");
	check_json_str("", 16, "\"\"", "empty string");
	check_json_str("say \"hi\"", 100, "\"say \\\"hi\\\"\"",
		       "quotes escaped");
	check_json_str("a\\b", 100, "\"a\\\\b\"", "backslash escaped");
	check_json_str("x\ny", 100, "\"x\\ny\"", "newline as \\n");
	check_json_str("x\ty", 100, "\"x\\ty\"", "tab as \\t");
	check_json_str(ctl, 100,
		       "\"\\u0001\\u0008\\u000c\\u000d\\u001b\\u001f\"",
		       "other control characters as \\u00XX");
	check_json_str("\x7f", 100, "\"\\u007f\"", "DEL as \\u007f");
	check_json_str(" ~", 100, "\" ~\"", "0x20 and 0x7e unchanged");
	check_json_str("caf\xc3\xa9", 100, "\"caf\xc3\xa9\"",
		       "UTF-8 bytes unchanged");
	check_json_str(no_nul, 8, "\"abcdefgh\"",
		       "maxlen bytes of an unterminated string");
	check_json_str(no_nul, 0, "\"\"", "maxlen 0: empty");
	check_json_str("ab\0cd", 5, "\"ab\"", "stops at a NUL before maxlen");
	check_json_str("a\"\\\n", 3, "\"a\\\"\\\\\"",
		       "maxlen counts input bytes, not escaped output");

	json_begin(&j, mem_open(&m));
	json_end(&j);
	is_str(mem_text(&m), "{}", "empty object");
	mem_free(&m);

	json_begin(&j, mem_open(&m));
	json_kuint(&j, "a", 0);
	json_kuint(&j, "b", UINT64_MAX);
	json_khex(&j, "c", 0);
	json_khex(&j, "d", UINT64_MAX);
	json_khex(&j, "e", 0xabcdef);
	json_kint(&j, "f", -5);
	json_kint(&j, "g", LLONG_MIN);
	json_kbool(&j, "h", true);
	json_kbool(&j, "i", false);
	json_kstr(&j, "j", "s\"");
	json_kdouble(&j, "k", 1.0 / 3);
	json_kdouble(&j, "l", 2.5);
	json_end(&j);
	is_str(mem_text(&m),
	       "{\"a\":0,\"b\":18446744073709551615,\"c\":\"0x0\","
	       "\"d\":\"0xffffffffffffffff\",\"e\":\"0xabcdef\",\"f\":-5,"
	       "\"g\":-9223372036854775808,\"h\":true,\"i\":false,"
	       "\"j\":\"s\\\"\",\"k\":0.333,\"l\":2.500}",
	       "kuint/khex/kint/kbool/kstr/kdouble: exact object");
	mem_free(&m);

	json_begin(&j, mem_open(&m));
	json_key(&j, "we\"ird");
	fputs("1", m.f);
	json_khex(&j, "x", 0x10);
	json_end(&j);
	is_str(mem_text(&m), "{\"we\\\"ird\":1,\"x\":\"0x10\"}",
	       "json_key escapes the key, comma only between members");
	mem_free(&m);
}

/* ---- ksyms.c ------------------------------------------------------------ */

/* Unsorted, with data, absolute, hidden (zero) and malformed lines. */
static const char kallsyms[] =
	"ffffffff81000300 T third\t[some_mod]\n"
	"ffffffff81000100 t first\n"
	"0000000000000000 T hidden\n"
	"ffffffff81000150 D data_between\n"
	"ffffffff81000180 b bss_between\n"
	"ffffffff81000200 T second\n"
	"not a symbol line\n"
	"\n"
	"ffffffff81000050 A abs_before\n"
	"ffffffff81000060 r rodata_before\n";

static struct ksyms *load_string(const char *text)
{
	struct ksyms *ks;
	FILE *f;

	f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		die("fmemopen");
	ks = ksyms_load(f);
	fclose(f);
	return ks;
}

static void check_ksym(const struct ksyms *ks, unsigned long long addr,
		       const char *want, const char *what)
{
	char buf[128];
	const char *s = ksyms_format(ks, addr, buf, sizeof(buf));

	ok(s == buf, "ksyms_format returns buf (%s)", what);
	is_str(buf, want, "ksyms_format 0x%llx: %s", addr, what);
}

static void test_ksyms(void)
{
	char small[6];
	struct ksyms *ks;
	FILE *f;
	int i;

	ks = load_string(kallsyms);
	ok(ks, "ksyms_load of unsorted kallsyms lines");
	if (ks) {
		check_ksym(ks, 0xffffffff81000100ULL, "first+0x0",
			   "exactly a symbol");
		check_ksym(ks, 0xffffffff81000101ULL, "first+0x1",
			   "just past a symbol");
		check_ksym(ks, 0xffffffff81000160ULL, "first+0x60",
			   "data symbols ignored");
		check_ksym(ks, 0xffffffff81000180ULL, "first+0x80",
			   "bss symbols ignored");
		check_ksym(ks, 0xffffffff810001ffULL, "first+0xff",
			   "just below the next symbol");
		check_ksym(ks, 0xffffffff81000200ULL, "second+0x0",
			   "the next symbol");
		check_ksym(ks, 0xffffffff81000310ULL, "third+0x10",
			   "a module symbol (its [mod] dropped)");
		check_ksym(ks, 0xffffffff810000ffULL, "0xffffffff810000ff",
			   "before the first symbol: bare address");
		check_ksym(ks, 0xffffffff81000050ULL, "0xffffffff81000050",
			   "absolute and rodata symbols ignored");
		check_ksym(ks, 0, "0x0", "zero-address symbols ignored");
		memset(small, 'Z', sizeof(small));
		ksyms_format(ks, 0xffffffff81000100ULL, small, sizeof(small));
		is_str(small, "first",
		       "ksyms_format cuts to len, NUL included");
	}
	check_ksym(NULL, 0xffffffff81000100ULL, "0xffffffff81000100",
		   "NULL ksyms: bare address");
	ksyms_free(ks);
	ksyms_free(NULL);	/* harmless, or ASAN ends the run here */

	/* Many symbols, in descending order: growth and sorting. */
	f = tmpfile();
	if (!f)
		die("tmpfile");
	for (i = 9999; i >= 0; i--)
		fprintf(f, "%llx T sym%d\n",
			0xffffffff82000000ULL + i * 0x10ULL, i);
	rewind(f);
	ks = ksyms_load(f);
	fclose(f);
	ok(ks, "ksyms_load of 10000 descending symbols");
	if (ks) {
		check_ksym(ks, 0xffffffff82000000ULL + 5000 * 0x10 + 3,
			   "sym5000+0x3", "middle of 10000 symbols");
		check_ksym(ks, 0xffffffff82000000ULL + 9999 * 0x10 + 0xf,
			   "sym9999+0xf", "last of 10000 symbols");
		check_ksym(ks, 0xffffffff82000000ULL, "sym0+0x0",
			   "first of 10000 symbols");
	}
	ksyms_free(ks);

	f = tmpfile();
	if (!f)
		die("tmpfile");
	errno = 0;
	ks = ksyms_load(f);
	fclose(f);
	ok(!ks && errno, "ksyms_load of an empty stream: NULL, errno %d",
	   errno);
	ksyms_free(ks);

	errno = 0;
	ks = load_string("0000000000000000 T a\n"
			 "0000000000000000 t b\n"
			 "0000000000000000 T c\n");
	ok(!ks && errno,
	   "ksyms_load with every address zero (kptr_restrict): NULL, errno %d",
	   errno);
	ksyms_free(ks);

	errno = 0;
	ks = load_string("ffffffff81000000 D data\nffffffff81000010 r ro\n");
	ok(!ks && errno, "ksyms_load with no code symbols: NULL, errno %d",
	   errno);
	ksyms_free(ks);
}

static bool has_string(const char *text, const char *name)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	bool found;

	if (!f)
		die("fmemopen");
	found = ksyms_has(f, name);
	fclose(f);
	return found;
}

/* Is a per-CPU variable there for a __ksym (CONFIG_KALLSYMS_ALL)? */
static void test_ksyms_has(void)
{
	static const char all[] =
		"0000000000000000 A fixed_percpu_data\n"
		"000000000001f000 d cpu_tlbstate_shared\n"
		"0000000000020000 D cpu_tlbstate\n"
		"ffffffff81000100 T switch_mm_irqs_off\n"
		"ffffffffc0000000 t helper\t[mod]\n";
	static const char code_only[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000100 T switch_mm_irqs_off\n"
		"ffffffff81000200 t cpu_tlbstate_init\n";

	ok(has_string(all, "cpu_tlbstate"),
	   "ksyms_has: a data symbol (KALLSYMS_ALL)");
	ok(has_string(all, "helper"), "ksyms_has: a module symbol");
	ok(has_string("0000000000000000 D cpu_tlbstate", "cpu_tlbstate"),
	   "ksyms_has: on the last line without a newline");
	ok(!has_string(code_only, "cpu_tlbstate"),
	   "ksyms_has: code only, a longer name is not the symbol");
	ok(!has_string(all, "cpu_tlb"), "ksyms_has: a prefix is not the symbol");
	ok(!has_string(all, "D"), "ksyms_has: the type column is not a name");
	ok(!has_string("", "cpu_tlbstate"), "ksyms_has: empty stream");
	{
		const char *const names[] = { "helper", "cpu_tlb",
					      "cpu_tlbstate", "absent" };
		bool found[4];
		FILE *f = fmemopen((void *)all, strlen(all), "r");

		if (!f)
			die("fmemopen");
		ksyms_find(f, names, found, 4);
		fclose(f);
		ok(found[0] && !found[1] && found[2] && !found[3],
		   "ksyms_find: several names in one pass, each whole");
	}
}

/* ---- record.c ----------------------------------------------------------- */

static struct tt_record rec(enum tt_event_kind kind, const char *comm)
{
	struct tt_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = 2500000000ULL;
	r.cpu = 2;
	r.pid = 100;
	r.tid = 101;
	r.kind = kind;
	memcpy(r.comm, comm, strnlen(comm, TT_COMM_LEN));
	return r;
}

static struct tt_record rec_ctrl(void)
{
	struct tt_record r = rec(TT_EV_CTRL, "app");

	r.ctrl.interface = TT_IF_ARCH_PRCTL;
	r.ctrl.op = TT_OP_ENABLE;
	r.ctrl.req_bits = 6;
	r.ctrl.granted_bits = 6;
	r.ctrl.offset = 57;
	r.ctrl.mode = TT_MODE_LAM_U57;
	r.ctrl.untag_mask = 0x81ffffffffffffffULL;
	r.ctrl.ret = 0;
	return r;
}

static struct tt_record rec_query(void)
{
	struct tt_record r = rec(TT_EV_CTRL, "app");

	r.ctrl.interface = TT_IF_PRCTL;
	r.ctrl.op = TT_OP_QUERY;
	r.ctrl.req_bits = -1;
	r.ctrl.granted_bits = 0;
	r.ctrl.offset = 0;
	r.ctrl.mode = TT_MODE_NONE;
	r.ctrl.untag_mask = UINT64_MAX;
	r.ctrl.ret = -22;
	r.ctrl.reason = TT_REASON_NO_LASS;
	return r;
}

static struct tt_record rec_untag(void)
{
	struct tt_record r = rec(TT_EV_UNTAG, "app");

	r.untag.tagged = 0x3e00000000401000ULL;
	r.untag.untagged = 0x401000;
	r.untag.caller = 0xffffffff81000180ULL;
	r.untag.mode = TT_MODE_LAM_U57;
	r.untag.syscall = 1;
	r.untag.tag = 31;
	return r;
}

static struct tt_record rec_switch(void)
{
	struct tt_record r = rec(TT_EV_SWITCH, "app");

	r.sw.prev_mm = 3;
	r.sw.next_mm = 7;
	r.sw.prev_pid = 100;
	r.sw.next_pid = 200;
	r.sw.prev_mode = TT_MODE_NONE;
	r.sw.next_mode = TT_MODE_UAI;
	r.sw.cr3_lam = 0;
	r.sw.efer_written = 1;
	return r;
}

static struct tt_record rec_fault(void)
{
	struct tt_record r = rec(TT_EV_FAULT, "app");

	r.fault.address = 0x3e00000000401000ULL;
	r.fault.untagged = 0x401000;
	r.fault.error_code = 0x6;
	r.fault.ip = 0x401234;
	r.fault.mode = TT_MODE_UAI;
	r.fault.tag = 31;
	r.fault.tagged = 0x3e00000000401000ULL;
	return r;
}

static struct tt_record rec_gp(void)
{
	struct tt_record r = rec(TT_EV_GP, "app");

	r.gp.ip = 0x401234;
	r.gp.address = 0x8000000000401000ULL;
	r.gp.mode = TT_MODE_NONE;
	r.gp.trap = 13;
	return r;
}

static void check_json(const struct tt_record *r, const struct tt_fmt *fmt,
		       const char *want, const char *what)
{
	struct mem m;

	tt_record_json(mem_open(&m), r, NULL, fmt);
	is_str(mem_text(&m), want, "tt_record_json: %s", what);
	mem_free(&m);
}

static void check_text(const struct tt_record *r, const struct tt_fmt *fmt,
		       const char *want, const char *what)
{
	struct mem m;

	tt_record_text(mem_open(&m), r, NULL, fmt);
	is_str(mem_text(&m), want, "tt_record_text: %s", what);
	mem_free(&m);
}

/* Which bits made a #GP's operand non-canonical, by mode and paging. */
static void test_gp_outside(void)
{
	static const struct {
		int mode, trap;
		bool la57;
		__u64 address, want;
		const char *what;
	} c[] = {
		{ TT_MODE_LAM_U57, 13, false, 0x0100000000401000ULL,
		  0x0100000000000000ULL, "LAM_U57: bit 56, next to the field" },
		{ TT_MODE_LAM_U57, 13, false, 0x7e00000000401000ULL, 0,
		  "LAM_U57: a tag in 62:57 only is canonical" },
		{ TT_MODE_LAM_U57, 13, false, 0xfe00000000401000ULL,
		  0x8000000000000000ULL, "LAM_U57: bit 63 is never a tag" },
		{ TT_MODE_LAM_U57, 13, false, 0x0080000000401000ULL,
		  0x0080000000000000ULL, "LAM_U57, 4-level: bit 55" },
		{ TT_MODE_LAM_U57, 13, true, 0x0080000000401000ULL, 0,
		  "LAM_U57, 5-level: bit 55 is an address bit" },
		{ TT_MODE_LAM_U57, 13, true, 0x0100000000401000ULL,
		  0x0100000000000000ULL, "LAM_U57, 5-level: bit 56" },
		{ TT_MODE_LAM_U48, 13, false, 0x7fff800000401000ULL,
		  0x0000800000000000ULL, "LAM_U48: 62:48 ignored, bit 47 not" },
		{ TT_MODE_LAM_U48, 13, true, 0x0000800000401000ULL,
		  0x0000800000000000ULL,
		  "LAM_U48, 5-level: bit 47 still outside (63 == 47)" },
		{ TT_MODE_UAI, 13, false, 0x3e00000000401000ULL, 0,
		  "UAI through DS: the field is ignored" },
		{ TT_MODE_UAI, 12, false, 0x3e00000000401000ULL,
		  0x3e00000000000000ULL, "UAI through SS: nothing is ignored" },
		{ TT_MODE_NONE, 13, false, 0x3e00000000401000ULL,
		  0x3e00000000000000ULL, "no tagging: the tag itself" },
	};
	struct tt_record r = rec_gp();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		r.gp.mode = c[i].mode;
		r.gp.trap = c[i].trap;
		r.gp.address = c[i].address;
		is_uint(tt_gp_outside(&r, c[i].la57), c[i].want,
		       "tt_gp_outside: %s", c[i].what);
	}
}

static void test_record_decode(void)
{
	struct tt_record r = rec_ctrl();
	unsigned char big[sizeof(r) + 8];

	ok(!tt_record_decode(NULL, sizeof(r), NULL), "decode rejects NULL");
	ok(!tt_record_decode(&r, 0, NULL), "decode rejects size 0");
	ok(!tt_record_decode(&r, offsetof(struct tt_record, ctrl), NULL),
	   "decode rejects a header without its event");
	ok(!tt_record_decode(&r, sizeof(r) - 1, NULL), "decode rejects size - 1");
	ok(tt_record_decode(&r, sizeof(r), NULL) == &r,
	   "decode accepts a whole valid record, in place");
	memset(big, 0, sizeof(big));
	memcpy(big, &r, sizeof(r));
	ok(tt_record_decode(big, sizeof(big), NULL) == (void *)big,
	   "decode accepts a record with padding after it");
	r.kind = TT_EV_GP;
	ok(tt_record_decode(&r, sizeof(r), NULL) == &r, "decode accepts kind gp");
	r.kind = TT_EV_MAX;
	ok(!tt_record_decode(&r, sizeof(r), NULL), "decode rejects kind TT_EV_MAX");
	r.kind = UINT32_MAX;
	ok(!tt_record_decode(&r, sizeof(r), NULL), "decode rejects kind UINT32_MAX");
}

/* ksyms_format() as a struct tt_fmt resolver: ctx is the struct ksyms. */
static const char *ksyms_resolve(void *ctx, __u64 addr, char *buf, size_t len)
{
	return ksyms_format(ctx, addr, buf, len);
}

/* As trace.c's resolver: its cached copy returned, buf left alone. */
static const char *cached_resolve(void *ctx, __u64 addr, char *buf,
				  size_t len)
{
	(void)ctx;
	(void)addr;
	memset(buf, 0x7f, len);	/* what an untouched stack might hold */
	return "vfs_write+0x44";
}


/*
 * User frames: a function of this very binary, found as the kernel finds
 * it (the mapping's start and page offset, from /proc/self/maps), named
 * from the file's symbol table.
 */
__attribute__((noinline, used)) int usym_target(int x)
{
	return x * 3 + 1;
}

struct usym_paths {
	const char *path;	/* the path for every key whose ino is ino */
	__u64 ino;
	int asked;
};

/* The files map's part: the path, as BPF records it, names leaf first. */
static void path_split(const char *path, struct tt_path *p)
{
	const char *end = path + strlen(path), *start;

	memset(p, 0, sizeof(*p));
	while (end > path && p->depth < TT_PATH_DEPTH) {
		start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (end > start)
			snprintf(p->name[p->depth++], TT_NAME_LEN, "%.*s",
				 (int)(end - start), start);
		end = start > path ? start - 1 : path;
	}
	p->complete = 1;
}

static bool usym_path_of(void *ctx, const struct tt_file_key *key,
			 struct tt_path *p)
{
	struct usym_paths *up = ctx;

	up->asked++;
	if (key->ino != up->ino)
		return false;
	path_split(up->path, p);
	return true;
}

/* The frame the kernel would give for addr in this process. */
static bool frame_of(__u64 addr, struct tt_frame *f, char *path, size_t len)
{
	unsigned long start, end, pgoff;
	char line[512], file[400];
	struct stat st;
	bool found = false;
	FILE *maps = fopen("/proc/self/maps", "r");

	memset(f, 0, sizeof(*f));
	f->ip = addr;
	while (maps && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %399s", &start, &end,
			   &pgoff, file) == 4 && addr >= start && addr < end) {
			found = true;
			break;
		}
	if (maps)
		fclose(maps);
	if (!found || stat(file, &st))
		return false;
	snprintf(path, len, "%s", file);
	f->file_off = addr - start + pgoff;
	f->file.ino = st.st_ino;
	f->file.dev = major(st.st_dev) << 20 | minor(st.st_dev);
	return true;
}

static bool fake_locate(void *ctx __attribute__((unused)),
			__u32 pid __attribute__((unused)),
			const struct tt_frame *f, struct tt_uloc *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (!f->file.ino)
		return false;
	loc->file = "/usr/bin/app";
	loc->name = "app";
	loc->build_id = f->file.ino == 1 ? "00ff" : "";
	loc->sym = f->file.ino == 1 ? "bad_deref" : NULL;
	loc->off = f->file.ino == 1 ? 0x1a : f->file_off;
	loc->file_off = f->file_off;
	loc->why = f->file.ino == 1 ? "" : "no symbols";
	return true;
}

static void test_usym(void)
{
	struct tt_frame f, other;
	struct tt_uloc loc;
	struct usym_paths up = { 0 };
	struct tt_usyms *u;
	struct tt_path p;
	char path[400], joined[64], tmp[] = "/tmp/tt-usym-XXXXXX";
	struct stat st;
	int fd, asked;

	ok(usym_target(1) == 4, "usym: the target runs");
	if (!ok(frame_of((__u64)(uintptr_t)usym_target + 3, &f, path,
			 sizeof(path)), "usym: this binary maps its text"))
		return;
	up.path = path;
	up.ino = f.file.ino;
	u = tt_usyms_new(usym_path_of, &up);
	if (!ok(tt_usyms_locate(u, 0, &f, &loc), "usym: a frame in a file"))
		return;
	if (!ok(loc.sym && !strcmp(loc.sym, "usym_target"),
		"usym: named from the symbol table"))
		tap_quote("got:", loc.sym ? loc.sym : loc.why);
	ok(loc.off == 3, "usym: offset into the function (%llu)",
	   (unsigned long long)loc.off);
	ok(loc.file && !strcmp(loc.file, path), "usym: the file's path");
	ok(loc.name && !strcmp(loc.name, "unit_tests"), "usym: its last name");
	ok(loc.build_id && strlen(loc.build_id) == 40,
	   "usym: the GNU build id, as hex (%s)", loc.build_id);
	asked = up.asked;
	f.ip++;
	f.file_off++;
	ok(tt_usyms_locate(u, 0, &f, &loc) && loc.off == 4 && up.asked == asked,
	   "usym: a file's path is asked for once");

	other = f;
	other.file.ino = 0;
	ok(!tt_usyms_locate(u, 0, &other, &loc), "usym: no file, no location");
	other = f;
	other.file.ino = f.file.ino + 1;
	ok(tt_usyms_locate(u, 0, &other, &loc) && !loc.sym && !loc.file &&
	   !strcmp(loc.why, "path not recorded"),
	   "usym: a file without a recorded path says so");
	tt_usyms_free(u);

	/* The path names another file now: not symbolized from it. */
	up.ino = f.file.ino + 1;
	u = tt_usyms_new(usym_path_of, &up);
	other.file.ino = f.file.ino + 1;
	ok(tt_usyms_locate(u, 0, &other, &loc) && !loc.sym &&
	   !strcmp(loc.why, "not this file"),
	   "usym: a path whose inode changed is not read");
	tt_usyms_free(u);

	fd = mkstemp(tmp);
	if (ok(fd >= 0 && write(fd, "text\n", 5) == 5 && !fstat(fd, &st),
	       "usym: a file that is no ELF")) {
		up.path = tmp;
		up.ino = st.st_ino;
		other.file.ino = st.st_ino;
		other.file.dev = major(st.st_dev) << 20 | minor(st.st_dev);
		other.file_off = 2;
		u = tt_usyms_new(usym_path_of, &up);
		ok(tt_usyms_locate(u, 0, &other, &loc) && !loc.sym &&
		   !strcmp(loc.why, "not an ELF file") && loc.off == 2,
		   "usym: not ELF: the offset in the file, and why");
		tt_usyms_free(u);
	}
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}

	/* A frame BPF could not place: from /proc/PID/maps, while it lives. */
	up.ino = 0;
	u = tt_usyms_new(usym_path_of, &up);
	other = (struct tt_frame){ .ip = (__u64)(uintptr_t)usym_target + 3 };
	ok(!tt_usyms_locate(u, 0, &other, &loc),
	   "usym: an unplaced frame, no process to ask: not located");
	ok(tt_usyms_locate(u, getpid(), &other, &loc) && loc.sym &&
	   !strcmp(loc.sym, "usym_target") && loc.off == 3 &&
	   !strcmp(loc.file, path),
	   "usym: an unplaced frame of a live process, from its maps");
	other.ip = 4096;
	ok(!tt_usyms_locate(u, getpid(), &other, &loc),
	   "usym: an address in none of its mappings: not located");
	other = (struct tt_frame){ .ip = 0x7f0000001000,
				   .file = { .pad = EBUSY } };
	ok(tt_usyms_locate(u, 0, &other, &loc) && !loc.file && !loc.sym &&
	   !strcmp(loc.why, "not placed: the VMA lookup was busy"),
	   "usym: a frame BPF could not look up says why");
	tt_uloc_text(&other, &loc, joined, sizeof(joined));
	is_str(joined, "0x7f0000001000 (not placed: the VMA lookup was busy)",
	       "tt_uloc_text: the IP and why it was not placed");
	tt_usyms_free(u);

	path_split("/usr/lib/x86_64-linux-gnu/libc.so.6", &p);
	ok(tt_path_join(&p, joined, sizeof(joined)) &&
	   !strcmp(joined, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
	   "tt_path_join: names leaf first, joined root first");
	ok(!tt_path_join(&p, joined, 10), "tt_path_join: too long: false");
	p.complete = 0;
	ok(!tt_path_join(&p, joined, sizeof(joined)),
	   "tt_path_join: a path BPF cut: false");
}

/* A located record: frames after it, as the ring buffer has them. */
static void test_record_frames(void)
{
	struct tt_fmt fmt = { .locate = fake_locate };
	struct {
		struct tt_record r;
		struct tt_frame f[3];
	} rec_f = { 0 };
	struct tt_where w;
	struct mem m;
	const char *t;

	rec_f.r = rec_gp();
	rec_f.f[0] = (struct tt_frame){ .ip = 0x401234, .file_off = 0x1234,
					.file = { .ino = 1, .dev = 8 } };
	rec_f.f[1] = (struct tt_frame){ .ip = 0x7f0000001000,
					.file_off = 0x2000,
					.file = { .ino = 2, .dev = 8 } };
	rec_f.f[2] = (struct tt_frame){ .ip = 0x1000 };
	ok(tt_record_decode(&rec_f, sizeof(rec_f.r) + sizeof(rec_f.f[0]), &w) &&
	   w.n == 1 && w.f == rec_f.f, "decode: a #GP's one frame");
	ok(tt_record_decode(&rec_f, sizeof(rec_f), &w) && w.n == 3,
	   "decode: a #GP's stack");
	ok(tt_record_decode(&rec_f, sizeof(rec_f.r), &w) && w.n == 0,
	   "decode: a record without frames");
	rec_f.r.kind = TT_EV_CTRL;
	ok(tt_record_decode(&rec_f, sizeof(rec_f), &w) && w.n == 0,
	   "decode: frames only for faults and #GPs");
	rec_f.r.kind = TT_EV_GP;

	tt_record_decode(&rec_f, sizeof(rec_f), &w);
	tt_record_text(mem_open(&m), &rec_f.r, &w, &fmt);
	t = mem_text(&m);
	if (!ok(strstr(t, " trap=gp outside=0x8000000000000000 at bad_deref+0x1a (app) <- 0x7f0000001000 (app+0x2000) <- 0x1000\n"),
		"tt_record_text: function, then callers, by file"))
		tap_quote("got:", t);
	mem_free(&m);
	tt_record_json(mem_open(&m), &rec_f.r, &w, &fmt);
	t = mem_text(&m);
	if (!ok(strstr(t, ",\"trap\":\"gp\",\"outside\":\"0x8000000000000000\",\"where\":{\"ip\":\"0x401234\",\"file\":\"/usr/bin/app\",\"build_id\":\"00ff\",\"file_offset\":\"0x1234\",\"sym\":\"bad_deref\",\"sym_offset\":26},\"stack\":[{\"ip\":\"0x401234\",") &&
		strstr(t, "{\"ip\":\"0x7f0000001000\",\"file\":\"/usr/bin/app\",\"file_offset\":\"0x2000\",\"no_sym\":\"no symbols\"},{\"ip\":\"0x1000\"}]}\n"),
		"tt_record_json: where, and the stack"))
		tap_quote("got:", t);
	mem_free(&m);
	w.n = 1;
	tt_record_json(mem_open(&m), &rec_f.r, &w, &fmt);
	t = mem_text(&m);
	ok(!strstr(t, "\"stack\"") && strstr(t, "\"where\":"),
	   "tt_record_json: one frame: where, no stack");
	mem_free(&m);
}

/* The resolver's answer is the name, whether or not it filled buf. */
static void test_record_cached_sym(void)
{
	struct tt_fmt cached = { .resolve = cached_resolve };
	struct tt_record r = rec_untag();
	struct mem m;
	const char *t;

	tt_record_json(mem_open(&m), &r, NULL, &cached);
	t = mem_text(&m);
	if (!ok(strstr(t, ",\"caller_sym\":\"vfs_write+0x44\","),
		"tt_record_json: caller_sym is the name the resolver returned"))
		tap_quote("got:", t);
	mem_free(&m);
	tt_record_text(mem_open(&m), &r, NULL, &cached);
	t = mem_text(&m);
	ok(strstr(t, " vfs_write+0x44 "),
	   "tt_record_text: the caller is the name the resolver returned");
	mem_free(&m);
}

static void test_record_json(struct ksyms *ks)
{
	struct tt_fmt plain = { .start_ns = 0 };
	struct tt_fmt sym = { .resolve = ksyms_resolve, .resolve_ctx = ks,
			      .start_ns = 0 };
	struct tt_record r;

	r = rec_ctrl();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"ctrl\","
		   "\"interface\":\"arch_prctl\",\"op\":\"enable\","
		   "\"req_bits\":6,\"granted_bits\":6,\"offset\":57,"
		   "\"mode\":\"lam_u57\",\"untag_mask\":\"0x81ffffffffffffff\","
		   "\"ret\":0,\"reason\":\"none\"}\n",
		   "ctrl enable");
	r = rec_query();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"ctrl\","
		   "\"interface\":\"prctl\",\"op\":\"query\","
		   "\"req_bits\":-1,\"granted_bits\":0,\"offset\":0,"
		   "\"mode\":\"none\",\"untag_mask\":\"0xffffffffffffffff\","
		   "\"ret\":-22,\"reason\":\"no_lass_with_mitigations\"}\n",
		   "ctrl query, negative req_bits and ret, refused");
	r.ctrl.reason = TT_REASON_UNKNOWN;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"ctrl\","
		   "\"interface\":\"prctl\",\"op\":\"query\","
		   "\"req_bits\":-1,\"granted_bits\":0,\"offset\":0,"
		   "\"mode\":\"none\",\"untag_mask\":\"0xffffffffffffffff\","
		   "\"ret\":-22}\n",
		   "ctrl from a fallback: no reason key");
	r.ctrl.interface = TT_IF_MAX;
	r.ctrl.op = -1;
	r.ctrl.mode = 9;
	r.ctrl.reason = TT_REASON_MAX;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"ctrl\","
		   "\"interface\":\"unknown\",\"op\":\"unknown\","
		   "\"req_bits\":-1,\"granted_bits\":0,\"offset\":0,"
		   "\"mode\":\"unknown\",\"untag_mask\":\"0xffffffffffffffff\","
		   "\"ret\":-22,\"reason\":\"unknown\"}\n",
		   "ctrl with out-of-range interface, op and mode");

	r = rec_untag();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"untag\","
		   "\"tagged\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"caller\":\"0xffffffff81000180\",\"mode\":\"lam_u57\","
		   "\"tag\":31,\"syscall_nr\":1,\"syscall\":\"write\"}\n",
		   "untag without ksyms: no caller_sym");
	if (ks)
		check_json(&r, &sym,
			   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,"
			   "\"tid\":101,\"comm\":\"app\",\"event\":\"untag\","
			   "\"tagged\":\"0x3e00000000401000\","
			   "\"untagged\":\"0x401000\","
			   "\"caller\":\"0xffffffff81000180\","
			   "\"caller_sym\":\"first+0x80\",\"mode\":\"lam_u57\","
			   "\"tag\":31,\"syscall_nr\":1,\"syscall\":\"write\"}\n",
			   "untag with ksyms: caller_sym");
	r.untag.syscall = TT_NO_SYSCALL;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"untag\","
		   "\"tagged\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"caller\":\"0xffffffff81000180\",\"mode\":\"lam_u57\","
		   "\"tag\":31,\"syscall_nr\":-1,\"syscall\":\"none\"}\n",
		   "untag outside a system call: syscall none");
	r.untag.syscall = 9999;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"untag\","
		   "\"tagged\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"caller\":\"0xffffffff81000180\",\"mode\":\"lam_u57\","
		   "\"tag\":31,\"syscall_nr\":9999,\"syscall\":\"syscall_9999\"}\n",
		   "untag in a system call the header does not name");

	r = rec_switch();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"switch\","
		   "\"prev_mm\":3,\"next_mm\":7,\"prev_pid\":100,"
		   "\"next_pid\":200,\"prev_mode\":\"none\","
		   "\"next_mode\":\"uai\",\"cr3_lam\":\"0x0\","
		   "\"efer_written\":true}\n",
		   "switch to uai, EFER written");
	r.sw.next_mode = TT_MODE_LAM_U57;
	r.sw.cr3_lam = 1ULL << 61;
	r.sw.efer_written = 0;
	r.sw.prev_mm = UINT64_MAX;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"switch\","
		   "\"prev_mm\":18446744073709551615,\"next_mm\":7,"
		   "\"prev_pid\":100,\"next_pid\":200,\"prev_mode\":\"none\","
		   "\"next_mode\":\"lam_u57\",\"cr3_lam\":\"0x2000000000000000\","
		   "\"efer_written\":false}\n",
		   "switch to lam_u57, CR3 LAM bits, EFER not written");

	r = rec_fault();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"fault\","
		   "\"address\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"error_code\":\"0x6\",\"ip\":\"0x401234\","
		   "\"mode\":\"uai\",\"tagged\":true,\"tag\":31,"
		   "\"tagged_ptr\":\"0x3e00000000401000\"}\n",
		   "fault with a tag");
	r.fault.tag = 0;
	r.fault.tagged = 0;
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"fault\","
		   "\"address\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"error_code\":\"0x6\",\"ip\":\"0x401234\","
		   "\"mode\":\"uai\",\"tagged\":false,\"tag\":0}\n",
		   "fault without a tag: no tagged_ptr");

	r = rec_gp();
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"gp\","
		   "\"ip\":\"0x401234\",\"address\":\"0x8000000000401000\","
		   "\"mode\":\"none\",\"trap\":\"gp\",\"outside\":\"0x8000000000000000\"}\n",
		   "gp");

	r = rec_gp();
	memset(r.comm, 0, sizeof(r.comm));
	strcpy(r.comm, "my \"app\"\\");
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"my \\\"app\\\"\\\\\",\"event\":\"gp\","
		   "\"ip\":\"0x401234\",\"address\":\"0x8000000000401000\","
		   "\"mode\":\"none\",\"trap\":\"gp\",\"outside\":\"0x8000000000000000\"}\n",
		   "comm with quotes and a backslash escaped");

	/* The bytes after comm are the union's: interface = 1 here. */
	r = rec_ctrl();
	memcpy(r.comm, "abcdefghijklmnop", TT_COMM_LEN);
	check_json(&r, &plain,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"abcdefghijklmnop\",\"event\":\"ctrl\","
		   "\"interface\":\"arch_prctl\",\"op\":\"enable\","
		   "\"req_bits\":6,\"granted_bits\":6,\"offset\":57,"
		   "\"mode\":\"lam_u57\",\"untag_mask\":\"0x81ffffffffffffff\","
		   "\"ret\":0,\"reason\":\"none\"}\n",
		   "comm of 16 bytes without NUL: 16 characters, no more");

	r = rec_gp();
	r.ts_ns = UINT64_MAX;
	r.cpu = UINT32_MAX;
	r.pid = UINT32_MAX;
	r.tid = 0;
	check_json(&r, &plain,
		   "{\"ts_ns\":18446744073709551615,\"cpu\":4294967295,"
		   "\"pid\":4294967295,\"tid\":0,"
		   "\"comm\":\"app\",\"event\":\"gp\","
		   "\"ip\":\"0x401234\",\"address\":\"0x8000000000401000\","
		   "\"mode\":\"none\",\"trap\":\"gp\",\"outside\":\"0x8000000000000000\"}\n",
		   "header fields at their maximum, unsigned");
}

/* Each number as printf gives it, at every length a step can end on. */
static void test_line_numbers(void)
{
	static const __u64 u[] = {
		0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, 999999,
		1000000, 4294967295ULL, 12345678901234567ULL,
		9999999999999999999ULL, 18446744073709551615ULL,
	};
	static const __s64 s[] = { 0, -1, -10, -99, -100, LLONG_MIN, LLONG_MAX };
	char want[64];
	struct tt_line l;
	bool good = true;
	size_t i;
	__u64 v;
	int b;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		tt_line_init(&l);
		tt_line_u64(&l, u[i]);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)u[i]);
		if (l.len != strlen(want) || memcmp(l.buf, want, l.len)) {
			tap_diag("u64 %s: got %.*s", want, (int)l.len, l.buf);
			good = false;
		}
	}
	ok(good, "tt_line_u64: as %%llu at every length");
	good = true;
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		tt_line_init(&l);
		tt_line_s64(&l, s[i]);
		snprintf(want, sizeof(want), "%lld", (long long)s[i]);
		if (l.len != strlen(want) || memcmp(l.buf, want, l.len)) {
			tap_diag("s64 %s: got %.*s", want, (int)l.len, l.buf);
			good = false;
		}
	}
	ok(good, "tt_line_s64: as %%lld, LLONG_MIN included");
	good = true;
	for (b = 0; b <= 64; b++) {
		for (v = b < 64 ? (1ULL << b) - 1 : ~0ULL; ; v++) {
			tt_line_init(&l);
			tt_line_hex(&l, v);
			snprintf(want, sizeof(want), "0x%llx",
				 (unsigned long long)v);
			if (l.len != strlen(want) || memcmp(l.buf, want, l.len)) {
				tap_diag("hex %s: got %.*s", want, (int)l.len, l.buf);
				good = false;
			}
			if (b == 64 || v == (b < 64 ? 1ULL << b : 0))
				break;
		}
	}
	ok(good, "tt_line_hex: as 0x%%llx at every length, 0 and ~0 included");
	/* At the end of a full line: what fits, and never past its end. */
	memset(&l, 0, sizeof(l));
	l.len = TT_LINE_MAX - 5;
	tt_line_hex(&l, 0x123456789aULL);
	ok(l.len == TT_LINE_MAX && !memcmp(l.buf + TT_LINE_MAX - 5, "0x123", 5),
	   "tt_line_hex: cut at a full line's end");
	l.len = TT_LINE_MAX - 3;
	tt_line_u64(&l, 123456789);
	ok(l.len == TT_LINE_MAX && !memcmp(l.buf + TT_LINE_MAX - 3, "123", 3),
	   "tt_line_u64: cut at a full line's end");
	l.len = TT_LINE_MAX - 2;
	tt_line_pad(&l, TT_LINE_MAX + 10);
	ok(l.len == TT_LINE_MAX, "tt_line_pad: stops at a full line's end");
	tt_line_init(&l);
	tt_line_seconds(&l, 5000000499ULL);
	tt_line_char(&l, ' ');
	tt_line_seconds(&l, 12000000500ULL);
	tt_line_char(&l, ' ');
	tt_line_seconds(&l, 999999500ULL);
	tt_line_char(&l, 0);
	is_str(l.buf, "5.000000 12.000001 1.000000",
	       "tt_line_seconds: 6 decimals, zeros kept, rounded to the us");
}

static void test_record_text(struct ksyms *ks)
{
	struct tt_fmt plain = { .start_ns = 1000000000ULL };
	struct tt_fmt sym = { .resolve = ksyms_resolve, .resolve_ctx = ks,
			      .start_ns = 1000000000ULL };
	struct tt_fmt late = { .start_ns = 3000000000ULL };
	struct tt_record r;
	struct mem m;
	char *row;

	tt_record_header(mem_open(&m));
	is_str(mem_text(&m),
	       "TIME(s)     CPU PID     TID     COMM            EVENT  DETAILS\n",
	       "tt_record_header");
	mem_free(&m);

	r = rec_ctrl();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             ctrl   "
		   "arch_prctl enable req=6 bits=6@57 mode=lam_u57 ret=0\n",
		   "ctrl enable, time relative to start");
	r = rec_query();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             ctrl   "
		   "prctl query bits=0@0 mode=none ret=-22"
		   " refused: no LASS with mitigations on\n",
		   "ctrl query: no req= when nothing was asked, refused");
	r.ctrl.reason = TT_REASON_UAI_MITIGATIONS;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             ctrl   "
		   "prctl query bits=0@0 mode=none ret=-22"
		   " refused: UAI with mitigations on\n",
		   "ctrl refused on UAI");
	r.ctrl.reason = TT_REASON_UNKNOWN;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             ctrl   "
		   "prctl query bits=0@0 mode=none ret=-22\n",
		   "ctrl from a fallback: nothing said about a refusal");

	r = rec_untag();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             untag  "
		   "0x3e00000000401000 -> 0x401000 0xffffffff81000180 lam_u57"
		   " tag=31 sys=write\n",
		   "untag without ksyms: bare caller address");
	if (ks)
		check_text(&r, &sym,
			   "1.500000    2   100     101     app             untag  "
			   "0x3e00000000401000 -> 0x401000 first+0x80 lam_u57"
			   " tag=31 sys=write\n",
			   "untag with ksyms: symbolized caller");
	check_text(&r, &late,
		   "0.000000    2   100     101     app             untag  "
		   "0x3e00000000401000 -> 0x401000 0xffffffff81000180 lam_u57"
		   " tag=31 sys=write\n",
		   "record older than start: time 0");

	r = rec_switch();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             switch "
		   "none -> uai pid 100 -> 200 efer\n",
		   "switch with EFER written");
	r.sw.next_mode = TT_MODE_LAM_U57;
	r.sw.cr3_lam = 1ULL << 61;
	r.sw.efer_written = 0;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             switch "
		   "none -> lam_u57 pid 100 -> 200 cr3_lam\n",
		   "switch with CR3 LAM bits");

	r = rec_fault();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             fault  "
		   "0x3e00000000401000 -> 0x401000 err=0x6 ip=0x401234 uai"
		   " tagged tag=31 ptr=0x3e00000000401000\n",
		   "fault with a tag");
	r.fault.tag = 0;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             fault  "
		   "0x3e00000000401000 -> 0x401000 err=0x6 ip=0x401234 uai"
		   " untagged\n",
		   "fault without a tag");
	r = rec_gp();
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             gp     "
		   "0x8000000000401000 ip=0x401234 none trap=gp outside=0x8000000000000000\n",
		   "gp");
	r.gp.trap = 12;
	r.gp.mode = TT_MODE_UAI;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             gp     "
		   "0x8000000000401000 ip=0x401234 uai trap=ss outside=0x8000000000000000\n",
		   "gp from a stack-segment access: trap=ss");
	r.gp.trap = 14;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             gp     "
		   "0x8000000000401000 ip=0x401234 uai trap=unknown outside=0x8000000000000000\n",
		   "gp with a trap number it does not know: unknown");
	r.gp.trap = -1;
	check_text(&r, &plain,
		   "1.500000    2   100     101     app             gp     "
		   "0x8000000000401000 ip=0x401234 uai trap=unknown outside=0x8000000000000000\n",
		   "gp with a negative trap number: unknown");
	r = rec_gp();
	memcpy(r.comm, "abcdefghijklmnop", TT_COMM_LEN);
	r.gp.ip = 0x7fffffffffffULL;	/* the union's first byte non-NUL */
	check_text(&r, &plain,
		   "1.500000    2   100     101     abcdefghijklmnop gp     "
		   "0x8000000000401000 ip=0x7fffffffffff none trap=gp outside=0x8000000000000000\n",
		   "comm of 16 bytes without NUL: 16 characters, no more");

	/* The columns line up with the header's. */
	tt_record_header(mem_open(&m));
	row = xstrdup(mem_text(&m));
	mem_free(&m);
	r = rec_ctrl();
	tt_record_text(mem_open(&m), &r, NULL, &plain);
	mem_text(&m);
	ok(strstr(m.buf, "ctrl") && strstr(m.buf, "app") &&
	   strstr(row, "EVENT") - row == strstr(m.buf, "ctrl") - m.buf &&
	   strstr(row, "COMM") - row == strstr(m.buf, "app") - m.buf,
	   "text rows line up with the header");
	mem_free(&m);
	free(row);
}

static void test_record(void)
{
	struct ksyms *ks = load_string(kallsyms);

	if (!ks)
		tap_diag("no ksyms: the symbolized record tests are skipped");
	test_record_decode();
	test_gp_outside();
	test_record_json(ks);
	test_line_numbers();
	test_record_text(ks);
	ksyms_free(ks);
}

/* ---- table.c ------------------------------------------------------------ */

static struct tt_proc proc(const char *comm, int mode, int bits, __u64 ctrl,
			   __u64 untag, __u64 sw, __u64 fault, __u64 gp)
{
	struct tt_proc p;

	memset(&p, 0, sizeof(p));
	memcpy(p.comm, comm, strnlen(comm, TT_COMM_LEN));
	p.mode = mode;
	p.tag_bits = bits;
	p.count[TT_EV_CTRL] = ctrl;
	p.count[TT_EV_UNTAG] = untag;
	p.count[TT_EV_SWITCH] = sw;
	p.count[TT_EV_FAULT] = fault;
	p.count[TT_EV_GP] = gp;
	return p;
}

static void add(struct tt_snapshot *s, __u32 pid, struct tt_proc p)
{
	struct tt_proc_key key = { .tgid = pid };

	if (tt_snapshot_add(s, &key, &p))
		die("tt_snapshot_add");
}

static void add_key(struct tt_snapshot *s, __u32 pid, __u64 start_ns,
		    struct tt_proc p, bool exited)
{
	struct tt_proc_key key = { .tgid = pid, .start_ns = start_ns };

	p.exited = exited;
	if (tt_snapshot_add(s, &key, &p))
		die("tt_snapshot_add");
}

static struct tt_row *find_row(struct tt_snapshot *s, __u32 pid)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->rows[i].pid == pid)
			return &s->rows[i];
	return NULL;
}

/* BPF's per-CPU copies of one row into the row top shows. */
static void test_proc_merge(void)
{
	struct tt_proc c[3], m;

	c[0] = proc("", 0, 0, 0, 4, 1, 0, 0);		/* zeroed by an insert */
	c[1] = proc("tagalloc", TT_MODE_LAM_U57, 6, 1, 10, 2, 3, 0);
	c[2] = proc("tagalloc", TT_MODE_LAM_U57, 6, 0, 7, 0, 2, 1);
	c[1].tagged_faults = 2;
	c[2].tagged_faults = 1;
	c[2].exited = 1;
	tt_proc_merge(c, 3, &m);
	ok(m.count[TT_EV_CTRL] == 1 && m.count[TT_EV_UNTAG] == 21 &&
	   m.count[TT_EV_SWITCH] == 3 && m.count[TT_EV_FAULT] == 5 &&
	   m.count[TT_EV_GP] == 1 && m.tagged_faults == 3,
	   "proc_merge: every CPU's counts summed");
	ok(m.exited, "proc_merge: exited if one CPU saw the exit");
	ok(!strcmp(m.comm, "tagalloc") && m.mode == TT_MODE_LAM_U57 &&
	   m.tag_bits == 6,
	   "proc_merge: state from the first copy that has it, not a zeroed one");
	tt_proc_merge(c, 1, &m);
	ok(m.count[TT_EV_UNTAG] == 4 && !m.comm[0] && !m.exited,
	   "proc_merge: one CPU: its copy alone");
}

/* The counts BPF's per-CPU slots hold for a process, added to its row. */
static void test_proc_slots(void)
{
	struct tt_proc_key key = { .tgid = 70, .start_ns = 9 };
	struct tt_proc_key zero = { 0 };
	static struct tt_slots sl[2];
	struct tt_slot *a = &sl[0].slot[70 % TT_SLOTS];
	struct tt_slot *b = &sl[1].slot[70 % TT_SLOTS];
	struct tt_proc p;

	memset(sl, 0, sizeof(sl));
	a->tgid = 70;
	a->start_ns = 9;
	a->count[TT_EV_UNTAG] = 100;
	a->tagged_faults = 1;
	a->count[TT_EV_FAULT] = 2;
	b->tgid = 70;
	b->start_ns = 9;
	b->count[TT_EV_UNTAG] = 5;
	p = proc("x", 0, 0, 1, 10, 0, 1, 0);
	p.tagged_faults = 1;
	tt_proc_add_slots(&p, &key, sl, 2);
	ok(p.count[TT_EV_UNTAG] == 115 && p.count[TT_EV_FAULT] == 3 &&
	   p.count[TT_EV_CTRL] == 1 && p.tagged_faults == 2,
	   "proc_slots: the row's copies plus each CPU's slot of the process");
	b->start_ns = 8;	/* the same PID, an earlier process */
	p = proc("x", 0, 0, 0, 10, 0, 0, 0);
	tt_proc_add_slots(&p, &key, sl, 2);
	is_uint(p.count[TT_EV_UNTAG], 110,
		"proc_slots: a slot of another process with the PID adds nothing");
	p = proc("x", 0, 0, 0, 0, 0, 0, 0);
	tt_proc_add_slots(&p, &zero, sl, 2);
	is_uint(tt_row_total(p.count), 0,
		"proc_slots: free slots (tgid 0) belong to no process");
	p = proc("x", 0, 0, 0, 0, 0, 0, 0);
	tt_proc_add_slots(&p, &key, sl, 1);
	is_uint(p.count[TT_EV_UNTAG], 100, "proc_slots: only the n CPUs given");
}

static void test_snapshot_add(void)
{
	struct tt_snapshot s = { 0 };
	const struct tt_row *r;
	struct tt_proc p;
	__u32 pid;

	p = proc("abcdefghijklmnopq", TT_MODE_UAI, 7, 1, 2, 3, 4, 5);
	add(&s, 42, p);
	is_uint(s.nr, 1, "snapshot_add: one row");
	r = &s.rows[0];
	is_uint(r->pid, 42, "snapshot_add: pid");
	is_str(r->comm, "abcdefghijklmno",
	       "snapshot_add: unterminated comm cut to 15, NUL-terminated");
	is_int(r->mode, TT_MODE_UAI, "snapshot_add: mode");
	is_int(r->tag_bits, 7, "snapshot_add: tag_bits");
	ok(r->count[0] == 1 && r->count[1] == 2 && r->count[2] == 3 &&
	   r->count[3] == 4 && r->count[4] == 5, "snapshot_add: counts");
	ok(!memcmp(r->delta, r->count, sizeof(r->delta)),
	   "snapshot_add: a new row's deltas are its counts");
	ok(r->idle == 0 && !r->gone, "snapshot_add: not idle, not gone");
	is_uint(tt_row_total(r->count), 15, "tt_row_total sums the kinds");

	for (pid = 1; pid <= 1000; pid++)
		add(&s, pid + 1000, proc("many", 0, 0, pid, 0, 0, 0, 0));
	is_uint(s.nr, 1001, "snapshot_add grows past its first capacity");
	r = find_row(&s, 1500);
	ok(r && r->count[TT_EV_CTRL] == 500,
	   "snapshot_add: rows intact after growth");
	tt_snapshot_clear(&s);
	is_uint(s.nr, 0, "snapshot_clear empties it");
	add(&s, 3, proc("again", 0, 0, 1, 0, 0, 0, 0));
	ok(s.nr == 1 && s.rows[0].pid == 3, "snapshot reusable after clear");
	tt_snapshot_free(&s);
	ok(!s.rows && !s.nr && !s.cap, "snapshot_free resets it");
}

static void test_snapshot_diff(void)
{
	struct tt_snapshot a = { 0 }, b = { 0 }, c = { 0 };
	const struct tt_row *r;

	/* prev, in descending pid order */
	add(&a, 30, proc("thirty", 1, 6, 1, 10, 0, 0, 0));
	add(&a, 10, proc("ten", 0, 0, 0, 5, 0, 0, 0));
	/* cur: 10 idle, 20 new, 30 active */
	add(&b, 30, proc("thirty", 1, 6, 1, 14, 0, 0, 0));
	add(&b, 20, proc("twenty", 0, 0, 1, 0, 0, 0, 0));
	add(&b, 10, proc("ten", 0, 0, 0, 5, 0, 0, 0));
	tt_snapshot_diff(&b, &a);
	ok(b.nr == 3 && b.rows[0].pid == 10 && b.rows[1].pid == 20 &&
	   b.rows[2].pid == 30, "diff sorts cur by pid");
	ok(a.nr == 2 && a.rows[0].pid == 10 && a.rows[1].pid == 30,
	   "diff sorts prev by pid");
	r = find_row(&b, 10);
	is_uint(tt_row_total(r->delta), 0, "diff: unchanged row has no delta");
	is_uint(r->idle, 1, "diff: unchanged row idle 1");
	r = find_row(&b, 20);
	ok(r->delta[TT_EV_CTRL] == 1 && tt_row_total(r->delta) == 1,
	   "diff: row absent from prev keeps its counts as deltas");
	is_uint(r->idle, 0, "diff: new row not idle");
	r = find_row(&b, 30);
	is_uint(r->delta[TT_EV_UNTAG], 4, "diff: untag delta 14 - 10");
	is_uint(r->delta[TT_EV_CTRL], 0, "diff: unchanged kind delta 0");
	is_uint(r->idle, 0, "diff: active row not idle");
	ok(r->count[TT_EV_UNTAG] == 14, "diff keeps the totals");

	/* next interval: 10 and 30 idle, 20 active */
	add(&c, 20, proc("twenty", 0, 0, 2, 0, 0, 0, 0));
	add(&c, 30, proc("thirty", 1, 6, 1, 14, 0, 0, 0));
	add(&c, 10, proc("ten", 0, 0, 0, 5, 0, 0, 0));
	tt_snapshot_diff(&c, &b);
	is_uint(find_row(&c, 10)->idle, 2, "diff: idle count increments");
	is_uint(find_row(&c, 30)->idle, 1, "diff: idle count starts at 1");
	is_uint(find_row(&c, 20)->idle, 0, "diff: active row stays at 0");
	is_uint(find_row(&c, 20)->delta[TT_EV_CTRL], 1,
		"diff: delta against the previous snapshot, not the first");

	/* and then 10 wakes up */
	tt_snapshot_clear(&b);
	add(&b, 10, proc("ten", 0, 0, 0, 5, 0, 0, 1));
	tt_snapshot_diff(&b, &c);
	is_uint(find_row(&b, 10)->idle, 0, "diff: activity resets idle");
	is_uint(find_row(&b, 10)->delta[TT_EV_GP], 1, "diff: gp delta 1");

	/* against an empty prev: everything new */
	tt_snapshot_clear(&a);
	tt_snapshot_clear(&b);
	add(&b, 10, proc("ten", 0, 0, 0, 5, 0, 0, 0));
	tt_snapshot_diff(&b, &a);
	ok(find_row(&b, 10)->idle == 0 &&
	   find_row(&b, 10)->delta[TT_EV_UNTAG] == 5,
	   "diff against an empty snapshot: deltas are counts");

	/*
	 * top prunes an exited pid from the map; a new process given the
	 * same pid starts from zero, below prev's counts.
	 */
	tt_snapshot_clear(&a);
	tt_snapshot_clear(&b);
	add(&a, 7, proc("old", 0, 0, 10, 0, 0, 0, 0));
	add(&b, 7, proc("new", 0, 0, 2, 0, 0, 0, 0));
	tt_snapshot_diff(&b, &a);
	is_uint(b.rows[0].delta[TT_EV_CTRL], 2,
		"diff: a reused pid (counts went down) counts as new");

	/*
	 * BPF keys a process by pid and start time: an exited process and a
	 * new one given its pid are two rows, each diffed against its own.
	 */
	tt_snapshot_clear(&a);
	tt_snapshot_clear(&b);
	add_key(&a, 7, 100, proc("old", 1, 6, 0, 50, 0, 0, 0), true);
	add_key(&b, 7, 900, proc("new", 0, 0, 0, 0, 3, 0, 0), false);
	add_key(&b, 7, 100, proc("old", 1, 6, 0, 50, 0, 0, 0), true);
	tt_snapshot_diff(&b, &a);
	ok(b.nr == 2 && b.rows[0].start_ns == 100 && b.rows[0].gone &&
	   b.rows[0].idle == 1 && tt_row_total(b.rows[0].delta) == 0 &&
	   b.rows[0].count[TT_EV_UNTAG] == 50,
	   "diff: the exited process keeps its counts, marked gone, idle");
	ok(b.rows[1].start_ns == 900 && !b.rows[1].gone &&
	   b.rows[1].count[TT_EV_UNTAG] == 0 && b.rows[1].mode == 0 &&
	   b.rows[1].delta[TT_EV_SWITCH] == 3 && !strcmp(b.rows[1].comm, "new"),
	   "diff: the pid's new process has its own name, mode and counts");

	tt_snapshot_free(&a);
	tt_snapshot_free(&b);
	tt_snapshot_free(&c);
}

static void test_snapshot_sort(void)
{
	struct tt_snapshot s = { 0 };
	char got[64] = "";
	size_t i;

	/* pid: total, delta set below */
	add(&s, 5, proc("e", 0, 0, 100, 0, 0, 0, 0));	/* d0 t100 */
	add(&s, 3, proc("c", 0, 0, 0, 10, 0, 0, 0));	/* d2 t10 */
	add(&s, 1, proc("a", 0, 0, 0, 0, 0, 0, 1));	/* d0 t1 */
	add(&s, 4, proc("d", 0, 0, 0, 0, 50, 0, 0));	/* d2 t50 */
	add(&s, 6, proc("f", 0, 0, 0, 0, 0, 60, 40));	/* d0 t100 */
	add(&s, 2, proc("b", 0, 0, 0, 0, 0, 0, 100));	/* d0 t100 */
	for (i = 0; i < s.nr; i++)
		memset(s.rows[i].delta, 0, sizeof(s.rows[i].delta));
	find_row(&s, 3)->delta[TT_EV_UNTAG] = 2;
	find_row(&s, 4)->delta[TT_EV_CTRL] = 1;
	find_row(&s, 4)->delta[TT_EV_GP] = 1;
	tt_snapshot_sort(&s);
	for (i = 0; i < s.nr; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
			 i ? "," : "", s.rows[i].pid);
	is_str(got, "4,3,2,5,6,1",
	       "sort: interval activity desc, then total desc, then pid asc");
	is_uint(s.nr, 6, "sort keeps every row");
	tt_snapshot_free(&s);
}

/* Every event from the tracepoints; upstream: untag and gp from none. */
static const enum tt_source src_all[TT_EV_MAX] = {
	TT_SRC_TP_BTF, TT_SRC_TP_BTF, TT_SRC_TP_BTF, TT_SRC_TP_BTF,
	TT_SRC_TP_BTF,
};
static const enum tt_source src_upstream[TT_EV_MAX] = {
	[TT_EV_CTRL] = TT_SRC_FEXIT, [TT_EV_UNTAG] = TT_SRC_NONE,
	[TT_EV_SWITCH] = TT_SRC_FENTRY, [TT_EV_FAULT] = TT_SRC_PF_BTF,
	[TT_EV_GP] = TT_SRC_NONE,
};
#define JSON_SRC_ALL \
	"\"sources\":{\"ctrl\":\"tp_btf/tagged_addr\"," \
	"\"untag\":\"tp_btf/tagged_addr\",\"switch\":\"tp_btf/tagged_addr\"," \
	"\"fault\":\"tp_btf/tagged_addr\",\"gp\":\"tp_btf/tagged_addr\"," \
	"\"fault_pointer\":\"event\"},"

static void test_table_json(void)
{
	struct tt_snapshot s = { 0 };
	struct mem m;

	add(&s, 42, proc("redis", TT_MODE_LAM_U57, 6, 1, 2, 3, 4, 5));
	add(&s, 7, proc("o\"ld", TT_MODE_NONE, 0, 0, 0, 9, 0, 0));
	memset(s.rows[0].delta, 0, sizeof(s.rows[0].delta));
	s.rows[0].delta[TT_EV_UNTAG] = 1;
	s.rows[0].delta[TT_EV_GP] = 2;
	s.rows[0].tagged_faults = 3;
	memset(s.rows[1].delta, 0, sizeof(s.rows[1].delta));
	s.rows[1].gone = true;

	tt_table_json(mem_open(&m), &s, src_all, 5000000000ULL, 1.5, 3);
	is_str(mem_text(&m),
	       "{\"ts_ns\":5000000000,\"interval_s\":1.500,\"uncounted\":3,"
	       JSON_SRC_ALL "\"processes\":["
	       "{\"pid\":42,\"start_ns\":0,\"comm\":\"redis\",\"mode\":\"lam_u57\","
	       "\"tag_bits\":6,"
	       "\"total\":{\"ctrl\":1,\"untag\":2,\"switch\":3,\"fault\":4,"
	       "\"gp\":5},"
	       "\"interval\":{\"ctrl\":0,\"untag\":1,\"switch\":0,\"fault\":0,"
	       "\"gp\":2},"
	       "\"tagged_faults\":3,\"exited\":false},"
	       "{\"pid\":7,\"start_ns\":0,\"comm\":\"o\\\"ld\",\"mode\":\"none\","
	       "\"tag_bits\":0,"
	       "\"total\":{\"ctrl\":0,\"untag\":0,\"switch\":9,\"fault\":0,"
	       "\"gp\":0},"
	       "\"interval\":{\"ctrl\":0,\"untag\":0,\"switch\":0,\"fault\":0,"
	       "\"gp\":0},"
	       "\"tagged_faults\":0,\"exited\":true}"
	       "]}\n",
	       "tt_table_json: two rows, exact");
	mem_free(&m);

	tt_snapshot_clear(&s);
	add(&s, 42, proc("redis", TT_MODE_LAM_U57, 6, 1, 0, 3, 4, 0));
	s.fault_tags_guessed = true;
	tt_table_json(mem_open(&m), &s, src_upstream, 1, 0.25, 0);
	is_str(mem_text(&m),
	       "{\"ts_ns\":1,\"interval_s\":0.250,\"uncounted\":0,"
	       "\"sources\":{\"ctrl\":\"fexit/do_arch_prctl_64\","
	       "\"untag\":\"unavailable\",\"switch\":\"fentry/switch_mm_irqs_off\","
	       "\"fault\":\"tp_btf/page_fault_user\",\"gp\":\"unavailable\","
	       "\"fault_pointer\":\"registers\"},"
	       "\"processes\":["
	       "{\"pid\":42,\"start_ns\":0,\"comm\":\"redis\",\"mode\":\"lam_u57\","
	       "\"tag_bits\":6,"
	       "\"total\":{\"ctrl\":1,\"switch\":3,\"fault\":4},"
	       "\"interval\":{\"ctrl\":1,\"switch\":3,\"fault\":4},"
	       "\"guessed_tagged_faults\":0,\"exited\":false}]}\n",
	       "tt_table_json: events without a source are left out, not 0; sources named");
	mem_free(&m);

	tt_snapshot_clear(&s);
	s.fault_tags_guessed = false;
	tt_table_json(mem_open(&m), &s, src_all, 1, 0.25, 0);
	is_str(mem_text(&m),
	       "{\"ts_ns\":1,\"interval_s\":0.250,\"uncounted\":0,"
	       JSON_SRC_ALL "\"processes\":[]}\n",
	       "tt_table_json: no rows");
	mem_free(&m);
	tt_snapshot_free(&s);
}

static void test_table_text(void)
{
	static const char header[] =
		"PID     COMM            MODE    BITS  CTRL    UNTAG  SWITCH"
		"   FAULT TAGFLT    GP\n";
	static const char row42[] =
		"42      redis           lam_u57    6     1        2       3"
		"       4      2     5\n";
	static const char row7[] =
		"7       old             none       0     0        0       9"
		"       0      0     0 (exited)\n";
	struct tt_snapshot s = { 0 };
	struct mem m;
	const char *t;

	add(&s, 42, proc("redis", TT_MODE_LAM_U57, 6, 1, 2, 3, 4, 5));
	add(&s, 7, proc("old", TT_MODE_NONE, 0, 0, 0, 9, 0, 0));
	s.rows[0].tagged_faults = 2;
	s.rows[1].gone = true;

	tt_table_text(mem_open(&m), &s, src_all, 20);
	ok(strlen(header) <= 81, "tt_table_text: the header fits 80 columns");
	t = mem_text(&m);
	ok(!strncmp(t, header, strlen(header)), "tt_table_text: header");
	ok(strstr(t, row42) != NULL, "tt_table_text: a live row, exact");
	ok(strstr(t, row7) != NULL,
	   "tt_table_text: a gone row ends in (exited)");
	ok(strstr(t, "(exited)") && strstr(t, "(exited)") == strstr(t, row7) +
	   strlen(row7) - strlen("(exited)\n"),
	   "tt_table_text: (exited) only on the gone row");
	if (!ok(strlen(t) == strlen(header) + strlen(row42) + strlen(row7),
		"tt_table_text: header and two rows, nothing else"))
		tap_quote("got:", t);
	mem_free(&m);

	tt_table_text(mem_open(&m), &s, src_all, 1);
	t = mem_text(&m);
	is_str(t + strlen(header), "42      redis           lam_u57    6"
	       "     1        2       3       4      2     5\n(1 more)\n",
	       "tt_table_text: max_rows cuts the table, says how many more");
	mem_free(&m);

	tt_table_text(mem_open(&m), &s, src_upstream, 1);
	t = mem_text(&m);
	is_str(t + strlen(header), "42      redis           lam_u57    6"
	       "     1        -       3       4      2     -\n(1 more)\n",
	       "tt_table_text: an event without a source shows -, not 0");
	mem_free(&m);
	tt_snapshot_free(&s);
}

static void test_table(void)
{
	test_proc_merge();
	test_proc_slots();
	test_snapshot_add();
	test_snapshot_diff();
	test_snapshot_sort();
	test_table_json();
	test_table_text();
}

/* ---- histfmt.c ---------------------------------------------------------- */

static void test_hist_bounds_title(void)
{
	static const struct {
		int i;
		__u64 low, high;
	} b[] = {
		{ 0, 0, 1 },
		{ 1, 2, 3 },
		{ 2, 4, 7 },
		{ 10, 1024, 2047 },
		{ TT_HIST_SLOTS - 1, 1ULL << 31, (1ULL << 32) - 1 },
	};
	struct tt_hist_key key = { 0 };
	char buf[64], small[8];
	__u64 low, high;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		low = high = 12345;
		tt_bucket_bounds(b[i].i, &low, &high);
		ok(low == b[i].low && high == b[i].high,
		   "bucket %d is [%llu, %llu] (got [%llu, %llu])", b[i].i,
		   (unsigned long long)b[i].low, (unsigned long long)b[i].high,
		   (unsigned long long)low, (unsigned long long)high);
	}

	key.prev_mode = TT_MODE_NONE;
	key.next_mode = TT_MODE_LAM_U57;
	ok(tt_hist_title(&key, buf, sizeof(buf)) == buf,
	   "tt_hist_title returns buf");
	is_str(buf, "none -> lam_u57", "title of a transition");
	key.prev_mode = TT_MODE_UAI;
	key.next_mode = TT_MODE_NONE;
	is_str(tt_hist_title(&key, buf, sizeof(buf)), "uai -> none",
	       "title of the reverse transition");
	key.prev_mode = TT_MODE_UAI;
	key.next_mode = TT_MODE_UAI;
	key.same_mm = 1;
	is_str(tt_hist_title(&key, buf, sizeof(buf)), "same mm (uai)",
	       "title of a same-mm switch");
	key.prev_mode = 9;
	key.same_mm = 0;
	is_str(tt_hist_title(&key, buf, sizeof(buf)), "unknown -> uai",
	       "title with an unknown mode");
	key.prev_mode = TT_MODE_LAM_U57;
	key.next_mode = TT_MODE_LAM_U48;
	is_str(tt_hist_title(&key, small, sizeof(small)), "lam_u57",
	       "title cut to the buffer");
}

static void test_hist_sub(void)
{
	struct tt_hist h = { 0 }, old = { 0 };
	int i, rest = 0;

	h.slots[0] = 5;
	h.slots[3] = 7;
	h.slots[31] = 2;
	h.sum = 100;
	old.slots[0] = 2;
	old.slots[3] = 7;
	old.sum = 40;
	tt_hist_sub(&h, &old);
	is_uint(h.slots[0], 3, "hist_sub: slot 0 5 - 2");
	is_uint(h.slots[3], 0, "hist_sub: slot 3 7 - 7");
	is_uint(h.slots[31], 2, "hist_sub: last slot 2 - 0");
	for (i = 0; i < TT_HIST_SLOTS; i++)
		if (i != 0 && i != 3 && i != 31 && h.slots[i])
			rest++;
	is_int(rest, 0, "hist_sub: other slots stay 0");
	is_uint(h.sum, 60, "hist_sub: sum 100 - 40");
	is_uint(old.slots[0], 2, "hist_sub leaves old alone");
}

static void test_hist_json(void)
{
	struct tt_hist_key key = { .prev_mode = TT_MODE_LAM_U57,
				   .next_mode = TT_MODE_UAI };
	struct tt_hist h = { 0 };
	struct mem m;

	h.slots[1] = 3;
	h.slots[4] = 1;
	h.sum = 30;
	tt_hist_json(mem_open(&m), &key, &h, "ns");
	is_str(mem_text(&m),
	       "{\"prev_mode\":\"lam_u57\",\"next_mode\":\"uai\","
	       "\"same_mm\":false,\"unit\":\"ns\",\"count\":4,\"sum\":30,"
	       "\"mean\":7.500,\"buckets\":["
	       "{\"low\":2,\"high\":3,\"count\":3},"
	       "{\"low\":16,\"high\":31,\"count\":1}]}",
	       "tt_hist_json: only the non-empty buckets, exact");
	mem_free(&m);

	memset(&h, 0, sizeof(h));
	h.slots[0] = 2;
	h.slots[TT_HIST_SLOTS - 1] = 1;
	h.sum = 3000000001ULL;
	key.prev_mode = TT_MODE_NONE;
	key.next_mode = TT_MODE_NONE;
	key.same_mm = 1;
	tt_hist_json(mem_open(&m), &key, &h, "us");
	is_str(mem_text(&m),
	       "{\"prev_mode\":\"none\",\"next_mode\":\"none\","
	       "\"same_mm\":true,\"unit\":\"us\",\"count\":3,"
	       "\"sum\":3000000001,\"mean\":1000000000.333,\"buckets\":["
	       "{\"low\":0,\"high\":1,\"count\":2},"
	       "{\"low\":2147483648,\"high\":4294967295,\"count\":1}]}",
	       "tt_hist_json: first and last buckets, same mm, us");
	mem_free(&m);

	/* Torn read: a slot counted, h->count not yet: count the slots. */
	memset(&h, 0, sizeof(h));
	h.slots[1] = 2;
	h.sum = 6;
	tt_hist_json(mem_open(&m), &key, &h, "ns");
	is_str(mem_text(&m),
	       "{\"prev_mode\":\"none\",\"next_mode\":\"none\","
	       "\"same_mm\":true,\"unit\":\"ns\",\"count\":2,\"sum\":6,"
	       "\"mean\":3.000,\"buckets\":[{\"low\":2,\"high\":3,\"count\":2}]}",
	       "tt_hist_json: count is the buckets' sum, whatever h->count says");
	mem_free(&m);

	memset(&h, 0, sizeof(h));
	tt_hist_json(mem_open(&m), &key, &h, "ns");
	is_str(mem_text(&m),
	       "{\"prev_mode\":\"none\",\"next_mode\":\"none\","
	       "\"same_mm\":true,\"unit\":\"ns\",\"count\":0,\"sum\":0,"
	       "\"mean\":0.000,\"buckets\":[]}",
	       "tt_hist_json: empty histogram, mean 0");
	mem_free(&m);
}

static void test_hist_text(void)
{
	struct tt_hist_key key = { .prev_mode = TT_MODE_LAM_U57,
				   .next_mode = TT_MODE_LAM_U57,
				   .same_mm = 1 };
	struct tt_hist h = { 0 };
	struct mem m;
	const char *t;

	h.slots[2] = 10;
	h.slots[3] = 5;
	h.slots[5] = 1;
	h.sum = 200;
	tt_hist_text(mem_open(&m), &key, &h, "us");
	t = mem_text(&m);
	is_str(t,
	       "switch_mm same mm (lam_u57): 16 switches, mean 12.5 us\n"
	       "                      us : count      distribution\n"
	       "                  4 -> 7 : 10         "
	       "|******************************|\n"
	       "                 8 -> 15 : 5          "
	       "|***************               |\n"
	       "                16 -> 31 : 0          "
	       "|                              |\n"
	       "                32 -> 63 : 1          "
	       "|***                           |\n",
	       "tt_hist_text: bars from the first to the last used bucket");
	ok(strstr(t, "|******************************|") &&
	   !strstr(t, "*******************************"),
	   "tt_hist_text: the max bucket gets the full 30-char bar, no more");
	ok(!strstr(t, "0 -> 1 ") && !strstr(t, "2 -> 3 "),
	   "tt_hist_text: leading empty buckets left out");
	mem_free(&m);

	memset(&h, 0, sizeof(h));
	h.slots[0] = 1;
	h.slots[1] = 3;
	h.sum = 7;
	key.prev_mode = TT_MODE_NONE;
	key.next_mode = TT_MODE_UAI;
	key.same_mm = 0;
	tt_hist_text(mem_open(&m), &key, &h, "ns");
	is_str(mem_text(&m),
	       "switch_mm none -> uai: 4 switches, mean 1.8 ns\n"
	       "                      ns : count      distribution\n"
	       "                  0 -> 1 : 1          "
	       "|**********                    |\n"
	       "                  2 -> 3 : 3          "
	       "|******************************|\n",
	       "tt_hist_text: bars rounded down, max bucket not the first");
	mem_free(&m);

	memset(&h, 0, sizeof(h));
	tt_hist_text(mem_open(&m), &key, &h, "ns");
	is_str(mem_text(&m), "switch_mm none -> uai: 0 switches, mean 0.0 ns\n",
	       "tt_hist_text: an empty histogram is its title line only");
	mem_free(&m);
}

static void hist_entry(struct tt_hist_set *set, int mode_from, int mode_to,
		       int slot, __u64 n, __u64 sum)
{
	struct tt_hist_entry *e = &set->e[set->nr++];

	memset(e, 0, sizeof(*e));
	e->key.prev_mode = mode_from;
	e->key.next_mode = mode_to;
	e->hist.slots[slot] = n;
	e->hist.sum = sum;
}

static void test_hist_report(void)
{
	static struct tt_hist_set prev, cur;
	struct tt_hist_report rep = { .unit = "ns", .ts_ns = 7000000000ULL,
				      .when = 3723, .interval_s = 1.5,
				      .uncounted = 2, .src = TT_SRC_FENTRY };
	struct mem m;

	setenv("TZ", "UTC", 1);
	tzset();
	hist_entry(&prev, TT_MODE_NONE, TT_MODE_LAM_U57, 3, 4, 40);
	hist_entry(&prev, TT_MODE_LAM_U57, TT_MODE_NONE, 2, 5, 25);
	cur = prev;
	cur.e[1].hist.slots[2] += 2;	/* lam_u57 -> none: 2 more */
	cur.e[1].hist.sum += 11;
	hist_entry(&cur, TT_MODE_UAI, TT_MODE_NONE, 0, 1, 1);	/* new */

	tt_hist_report(mem_open(&m), &rep, &cur, &prev);
	is_str(mem_text(&m),
	       "\n01:02:03  timed by fentry/fexit (times include the BPF trampoline)\n"
	       "switch_mm lam_u57 -> none: 2 switches, mean 5.5 ns\n"
	       "                      ns : count      distribution\n"
	       "                  4 -> 7 : 2          "
	       "|******************************|\n"
	       "switch_mm uai -> none: 1 switches, mean 1.0 ns\n"
	       "                      ns : count      distribution\n"
	       "                  0 -> 1 : 1          "
	       "|******************************|\n",
	       "tt_hist_report: the interval's switches only, a transition without any left out, a new one whole");
	mem_free(&m);

	rep.json = true;
	tt_hist_report(mem_open(&m), &rep, &cur, &prev);
	is_str(mem_text(&m),
	       "{\"ts_ns\":7000000000,\"interval_s\":1.500,\"uncounted\":2,"
	       "\"source\":\"fentry/switch_mm_irqs_off\","
	       "\"histograms\":[{\"prev_mode\":\"lam_u57\",\"next_mode\":\"none\","
	       "\"same_mm\":false,\"unit\":\"ns\",\"count\":2,\"sum\":11,"
	       "\"mean\":5.500,\"buckets\":[{\"low\":4,\"high\":7,\"count\":2}]},"
	       "{\"prev_mode\":\"uai\",\"next_mode\":\"none\",\"same_mm\":false,"
	       "\"unit\":\"ns\",\"count\":1,\"sum\":1,\"mean\":1.000,"
	       "\"buckets\":[{\"low\":0,\"high\":1,\"count\":1}]}]}\n",
	       "tt_hist_report --json: one line, the interval's histograms");
	mem_free(&m);

	tt_hist_report(mem_open(&m), &rep, &prev, &prev);
	is_str(mem_text(&m),
	       "{\"ts_ns\":7000000000,\"interval_s\":1.500,\"uncounted\":2,"
	       "\"source\":\"fentry/switch_mm_irqs_off\","
	       "\"histograms\":[]}\n",
	       "tt_hist_report --json: a quiet interval, no histograms");
	mem_free(&m);
	rep.json = false;
	tt_hist_report(mem_open(&m), &rep, &prev, &prev);
	is_str(mem_text(&m), "\n01:02:03  timed by fentry/fexit (times include the BPF trampoline)\nno context switches\n",
	       "tt_hist_report: a quiet interval says so");
	mem_free(&m);
	rep.src = TT_SRC_KPROBE;
	tt_hist_report(mem_open(&m), &rep, &prev, &prev);
	is_str(mem_text(&m), "\n01:02:03  timed by kprobe/kretprobe (times include the kretprobe trampoline)\nno context switches\n",
	       "tt_hist_report: names kprobes and what they add, in 80 columns");
	mem_free(&m);
	rep.json = true;
	tt_hist_report(mem_open(&m), &rep, &prev, &prev);
	ok(strstr(mem_text(&m), "\"source\":\"kprobe/switch_mm_irqs_off\""),
	   "tt_hist_report --json: names kprobes");
	mem_free(&m);
}

static void test_histfmt(void)
{
	test_hist_bounds_title();
	test_hist_sub();
	test_hist_json();
	test_hist_text();
	test_hist_report();
}

/* ---- clock.c, stop.c ------------------------------------------------------ */

/*
 * tt_stop_wait() reads the time with clock_gettime() (tt_now_ns()) and
 * sleeps in poll(). Both are defined here, ahead of the C library's, so
 * that each wait is checked by what ended it and not by how long it took
 * on the host. They pass through, recording every poll() call, unless
 * fake_clock is on: then CLOCK_MONOTONIC reads fake_now_ns, and a poll()
 * reports at once what is ready or, when nothing is, moves fake_now_ns on
 * by its whole timeout instead of sleeping. The waits that an event from
 * another thread or process must end run on the host clock, with no end
 * but a hang guard's, and are checked by what their last poll() returned.
 */
static bool fake_clock;
static __u64 fake_now_ns;

static struct {
	int calls;		/* poll() calls since poll_reset() */
	int first_ms;		/* the first one's timeout */
	int ret;		/* the last one's result: 0 is a timeout */
	int err;		/* its errno, when it returned -1 */
	short revents[2];	/* what it found ready */
	int notify_fd;		/* >= 0: a byte written there as the next call begins */
	int entered;		/* set (atomically) as a call begins */
} polls;

/* The wait of a test that waits for an event gives up after this. */
#define HANG_GUARD_NS	(30 * 1000000000ULL)

static void poll_reset(void)
{
	memset(&polls, 0, sizeof(polls));
	polls.notify_fd = -1;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (fake_clock && clk == CLOCK_MONOTONIC) {
		ts->tv_sec = fake_now_ns / 1000000000;
		ts->tv_nsec = fake_now_ns % 1000000000;
		return 0;
	}
	return syscall(SYS_clock_gettime, clk, ts);
}

int poll(struct pollfd *fds, nfds_t nfds, int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = ms % 1000 * 1000000L };
	struct timespec zero = {};
	nfds_t i;
	int ret, err;

	if (!polls.calls++)
		polls.first_ms = ms;
	if (polls.notify_fd >= 0)
		(void)!write(polls.notify_fd, "p", 1);
	polls.notify_fd = -1;
	__atomic_store_n(&polls.entered, 1, __ATOMIC_RELEASE);
	if (fake_clock) {
		ret = ppoll(fds, nfds, &zero, NULL);
		if ((ret == 0 && ms < 0) || polls.calls > 1000) {
			/* On the host clock this wait would spin or hang. */
			ok(0, "tt_stop_wait: with a fake clock, %d poll() calls, the last with a timeout of %d ms, %d ready: the wait spins or never ends",
			   polls.calls, ms, ret);
			tap_done();
			exit(1);
		}
		if (ret == 0)
			fake_now_ns += ms * 1000000ULL;
	} else {
		ret = ppoll(fds, nfds, ms < 0 ? NULL : &ts, NULL);
	}
	err = errno;
	polls.ret = ret;
	polls.err = ret < 0 ? err : 0;
	for (i = 0; i < 2; i++)
		polls.revents[i] = ret > 0 && i < nfds ? fds[i].revents : 0;
	errno = err;
	return ret;
}

/* The fake clock from now on, at 1000 s; poll() calls counted from 0. */
static __u64 fake_start(void)
{
	fake_clock = true;
	fake_now_ns = 1000 * 1000000000ULL;
	poll_reset();
	return fake_now_ns;
}

static void test_clock(void)
{
	char buf[16];
	__u64 a = tt_now_ns(), b = tt_now_ns();

	ok(a && b >= a, "tt_now_ns: monotonic (%llu then %llu)",
	   (unsigned long long)a, (unsigned long long)b);
	setenv("TZ", "UTC", 1);
	tzset();
	is_str(tt_clock_hms(86399, buf, sizeof(buf)), "23:59:59",
	       "tt_clock_hms: HH:MM:SS in TZ");
	setenv("TZ", "UTC-2", 1);
	tzset();
	is_str(tt_clock_hms(0, buf, sizeof(buf)), "02:00:00",
	       "tt_clock_hms: follows TZ");
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_stop_waits(void)
{
	struct tt_stop st;
	int fds[2], ret;
	__u64 t0;

	is_int(tt_stop_open(&st), 0, "tt_stop_open");
	ok(!tt_stop_due(&st), "tt_stop: nothing due at first");

	t0 = fake_start();
	ok(tt_now_ns() == t0, "tt_now_ns: reads the fake clock when it is on");
	ret = tt_stop_wait(&st, -1, t0 + 100000001);
	ok(ret == 0 && polls.calls == 1 && polls.first_ms == 101 &&
	   polls.ret == 0 && fake_now_ns == t0 + 101000000,
	   "tt_stop_wait: until 100 ms and 1 ns from now sleeps once, for 101 ms (never waking before it), and returns 0 (%d; %d polls, the first of %d ms; %llu ns passed)",
	   ret, polls.calls, polls.first_ms,
	   (unsigned long long)(fake_now_ns - t0));
	ok(!tt_stop_due(&st), "tt_stop: an until is not a stop");

	if (pipe(fds))
		die("pipe");
	(void)!write(fds[1], "x", 1);
	t0 = fake_start();
	ret = tt_stop_wait(&st, fds[0], t0 + 2000000000ULL);
	ok(ret == 1 && polls.calls == 1 && polls.ret == 1 &&
	   (polls.revents[1] & POLLIN) && fake_now_ns == t0,
	   "tt_stop_wait: a readable fd returns 1 at once: its first poll finds the fd, no time passes (%d; %d polls; %llu ns passed)",
	   ret, polls.calls, (unsigned long long)(fake_now_ns - t0));

	t0 = fake_start();
	tt_stop_set_deadline(&st, t0 + 150000000);
	ret = tt_stop_wait(&st, -1, t0 + 5000000000ULL);
	ok(ret == 0 && polls.calls == 1 && polls.first_ms == 150 &&
	   polls.ret == 0 && fake_now_ns == t0 + 150000000,
	   "tt_stop_wait: a deadline 150 ms away ends a wait until 5 s: one poll, of 150 ms (%d; %d polls, the first of %d ms)",
	   ret, polls.calls, polls.first_ms);
	ok(tt_stop_due(&st), "tt_stop: due past the deadline");
	t0 = fake_start();
	tt_stop_set_deadline(&st, t0 + 150000000);
	ret = tt_stop_wait(&st, -1, 0);
	ok(ret == 0 && polls.calls == 1 && polls.first_ms == 150 &&
	   fake_now_ns == t0 + 150000000,
	   "tt_stop_wait: a deadline ends a wait with no until (%d; %d polls, the first of %d ms)",
	   ret, polls.calls, polls.first_ms);
	tt_stop_set_deadline(&st, 0);
	ok(!tt_stop_due(&st), "tt_stop: no deadline, no request: not due");

	tt_stop_request(&st);
	ok(tt_stop_due(&st), "tt_stop_request: due");
	t0 = fake_start();
	ret = tt_stop_wait(&st, fds[0], t0 + 5000000000ULL);
	ok(ret == 0 && polls.calls == 0 && fake_now_ns == t0,
	   "tt_stop_wait: a stop wins over a readable fd, at once: 0 without a poll (%d; %d polls)",
	   ret, polls.calls);
	fake_clock = false;
	close(fds[0]);
	close(fds[1]);
	tt_stop_close(&st);
}

/* A task's state letter from a /proc stat file: 0 if there is none. */
static char task_state(const char *path)
{
	char buf[512], *p;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Until the task of a /proc stat file sleeps, as in its poll(), or is
 * gone: a wait that began its poll() is then asleep in it.
 */
static void until_asleep(const char *path)
{
	char st;

	while ((st = task_state(path)) && st != 'S' && st != 'Z')
		usleep(1000);
}

/* How a wait ended: the stop due, and its last poll()'s result. */
struct woken {
	int due;
	int ret;
	int err;
};

static const char *poll_end(int ret)
{
	return ret < 0 ? "interrupted" : ret > 0 ? "woken" : "timed out";
}

/*
 * In a child: catch signals and wait, with no end but the hang guard's.
 * Its poll() tells the parent, through a pipe, as it begins; once the
 * child sleeps, the parent sends SIGINT, which must end the wait: the stop
 * due, the last poll() interrupted by the signal or woken by the eventfd,
 * not timed out. Then a second SIGINT must kill the child.
 */
static void test_stop_signals(void)
{
	struct woken w = { .ret = 0 };
	int fds[2], ready[2], status;
	char c = 0, path[64];
	bool got;
	pid_t child;

	if (pipe(fds) || pipe(ready))
		die("pipe");
	child = fork();
	if (child == 0) {
		struct tt_stop st;

		close(fds[0]);
		close(ready[0]);
		alarm(60);	/* a child that would not die: SIGALRM */
		if (tt_stop_open(&st) || tt_stop_catch_signals(&st))
			_exit(3);
		poll_reset();
		polls.notify_fd = ready[1];
		tt_stop_wait(&st, -1, tt_now_ns() + HANG_GUARD_NS);
		w.due = tt_stop_due(&st);
		w.ret = polls.ret;
		w.err = polls.err;
		(void)!write(fds[1], &w, sizeof(w));
		/* The default action is back: this one kills. */
		kill(getpid(), SIGINT);
		pause();
		_exit(4);
	}
	close(fds[1]);
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
		until_asleep(path);
		kill(child, SIGINT);
	}
	close(ready[0]);
	got = read(fds[0], &w, sizeof(w)) == sizeof(w);
	close(fds[0]);
	waitpid(child, &status, 0);
	ok(got && w.due && w.ret != 0,
	   "tt_stop: SIGINT ends a wait asleep in poll() with no end but the hang guard's: the stop due, the poll not timed out (%s; due %d, the poll %s: %d, errno %d)",
	   got ? "reported" : "no report", w.due, poll_end(w.ret), w.ret,
	   w.err);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
	   "tt_stop: a second SIGINT kills (status %#x)", status);
}

/* The request, once the main thread's wait sleeps in its poll(). */
static void *request_when_waiting(void *arg)
{
	char path[64];
	int i;

	for (i = 0; i < 30000 &&
	     !__atomic_load_n(&polls.entered, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	until_asleep(path);
	tt_stop_request(arg);
	return NULL;
}

/* No signal interrupts the poll here: only the eventfd can wake it. */
static void test_stop_thread(void)
{
	struct tt_stop st;
	pthread_t th;
	int ret;

	tt_stop_open(&st);
	poll_reset();
	if (pthread_create(&th, NULL, request_when_waiting, &st))
		die("pthread_create");
	ret = tt_stop_wait(&st, -1, tt_now_ns() + HANG_GUARD_NS);
	pthread_join(th, NULL);
	ok(ret == 0 && tt_stop_due(&st) && polls.ret > 0 &&
	   (polls.revents[0] & POLLIN),
	   "tt_stop_wait: a request from another thread wakes a wait asleep in poll() with no end but the hang guard's: the eventfd ends it (%d; the poll %s: %d, revents %#x)",
	   ret, poll_end(polls.ret), polls.ret, polls.revents[0]);
	tt_stop_close(&st);
}

static void test_caps(void)
{
	__u64 bpf = 1ULL << 39, perfmon = 1ULL << 38, admin = 1ULL << 21;

	ok(tt_caps_enough(bpf | perfmon), "caps: CAP_BPF + CAP_PERFMON suffice");
	ok(tt_caps_enough(admin), "caps: CAP_SYS_ADMIN suffices");
	ok(!tt_caps_enough(bpf) && !tt_caps_enough(perfmon),
	   "caps: CAP_BPF or CAP_PERFMON alone does not");
	ok(!tt_caps_enough(0) && !tt_caps_enough(~(bpf | admin)),
	   "caps: none, or everything but CAP_BPF and CAP_SYS_ADMIN, does not");
	ok(tt_caps_enough(tt_caps_effective()) == (geteuid() == 0 || (tt_caps_effective() & admin)),
	   "caps: this process's set read (%#llx, euid %d)",
	   (unsigned long long)tt_caps_effective(), (int)geteuid());
}

static void test_stop(void)
{
	test_clock();
	test_stop_waits();
	test_stop_thread();
	test_stop_signals();
}

/* ---- json.c: UTF-8 -------------------------------------------------------- */

/* One \ufffd per byte that does not start a valid sequence. */
static void test_json_utf8(void)
{
	static const struct {
		const char *s;
		size_t maxlen;
		const char *want;
		const char *what;
	} cases[] = {
		/* valid: every length, at the edges of each range */
		{ "\xc2\x80", 100, "\"\xc2\x80\"", "2 bytes: U+0080" },
		{ "\xdf\xbf", 100, "\"\xdf\xbf\"", "2 bytes: U+07FF" },
		{ "\xe0\xa0\x80", 100, "\"\xe0\xa0\x80\"", "3 bytes: U+0800" },
		{ "\xe2\x82\xac", 100, "\"\xe2\x82\xac\"", "3 bytes: U+20AC" },
		{ "\xed\x9f\xbf", 100, "\"\xed\x9f\xbf\"",
		  "3 bytes: U+D7FF, below the surrogates" },
		{ "\xee\x80\x80", 100, "\"\xee\x80\x80\"",
		  "3 bytes: U+E000, above the surrogates" },
		{ "\xef\xbf\xbf", 100, "\"\xef\xbf\xbf\"", "3 bytes: U+FFFF" },
		{ "\xf0\x90\x80\x80", 100, "\"\xf0\x90\x80\x80\"",
		  "4 bytes: U+10000" },
		{ "\xf0\x9f\x98\x80", 100, "\"\xf0\x9f\x98\x80\"",
		  "4 bytes: U+1F600" },
		{ "\xf4\x8f\xbf\xbf", 100, "\"\xf4\x8f\xbf\xbf\"",
		  "4 bytes: U+10FFFF" },
		{ "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z\"", 100,
		  "\"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z\\\"\"",
		  "mixed lengths and ASCII escapes" },
		{ "abcd\xf0\x9f\x98\x80tail", 8, "\"abcd\xf0\x9f\x98\x80\"",
		  "a sequence ending exactly at maxlen" },
		/* invalid */
		{ "\x80", 100, "\"\\ufffd\"", "lone continuation byte 0x80" },
		{ "a\x80z", 100, "\"a\\ufffdz\"",
		  "lone 0x80 between ASCII" },
		{ "\xc3\xa9\xa9", 100, "\"\xc3\xa9\\ufffd\"",
		  "continuation byte after a complete sequence" },
		{ "\xff", 100, "\"\\ufffd\"", "0xff" },
		{ "\xfe", 100, "\"\\ufffd\"", "0xfe" },
		{ "\xf5\x80\x80\x80", 100, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "lead byte 0xf5 (past U+10FFFF)" },
		{ "\xe2\x82\xac", 2, "\"\\ufffd\\ufffd\"",
		  "3-byte sequence truncated at maxlen" },
		{ "ab\xf0\x9f\x98\x80", 5, "\"ab\\ufffd\\ufffd\\ufffd\"",
		  "4-byte sequence truncated at maxlen" },
		{ "\xe2\x82", 100, "\"\\ufffd\\ufffd\"",
		  "sequence truncated by the NUL" },
		{ "\xc3" "A", 100, "\"\\ufffdA\"",
		  "bad lead does not swallow the ASCII after it" },
		{ "\xe2\x82" "A", 100, "\"\\ufffd\\ufffdA\"",
		  "missing third byte: ASCII kept" },
		{ "\xf0\x9f\x98" "A", 100, "\"\\ufffd\\ufffd\\ufffdA\"",
		  "missing fourth byte: ASCII kept" },
		{ "\xc0\xaf", 100, "\"\\ufffd\\ufffd\"",
		  "overlong 2 bytes 0xc0 0xaf" },
		{ "\xc1\xbf", 100, "\"\\ufffd\\ufffd\"",
		  "overlong 2 bytes 0xc1 0xbf" },
		{ "\xe0\x80\xaf", 100, "\"\\ufffd\\ufffd\\ufffd\"",
		  "overlong 3 bytes 0xe0 0x80 0xaf" },
		{ "\xe0\x9f\xbf", 100, "\"\\ufffd\\ufffd\\ufffd\"",
		  "overlong 3 bytes 0xe0 0x9f 0xbf (U+07FF)" },
		{ "\xf0\x8f\xbf\xbf", 100,
		  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "overlong 4 bytes 0xf0 0x8f 0xbf 0xbf (U+FFFF)" },
		{ "\xed\xa0\x80", 100, "\"\\ufffd\\ufffd\\ufffd\"",
		  "surrogate 0xed 0xa0 0x80 (U+D800)" },
		{ "\xed\xbf\xbf", 100, "\"\\ufffd\\ufffd\\ufffd\"",
		  "surrogate 0xed 0xbf 0xbf (U+DFFF)" },
		{ "\xf4\x90\x80\x80", 100,
		  "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		  "0xf4 0x90 0x80 0x80 (U+110000)" },
		{ "\x7f", 100, "\"\\u007f\"", "0x7f as \\u007f" },
		{ "\x7f\xc3\xa9\x7f", 100, "\"\\u007f\xc3\xa9\\u007f\"",
		  "0x7f around a valid sequence" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_json_str(cases[i].s, cases[i].maxlen, cases[i].want,
			       cases[i].what);
}

/* ---- openmetrics.c ------------------------------------------------------ */

/* Is s, len bytes, valid UTF-8? (Our own check, not json.c's.) */
static bool valid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned int c = s[i], cp, n, k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			n = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 3, cp = c & 0x07;
		else
			return false;
		if (i + n >= len)
			return false;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

#define OM_LABELS_4242	"{pid=\"4242\",start_ns=\"0\"}"
#define OM_LABELS_7	"{pid=\"7\",start_ns=\"0\"}"
#define OM_BUCKET(le, n) \
	"tagtrace_switch_mm_seconds_bucket{prev_mode=\"none\"," \
	"next_mode=\"lam_u57\",same_mm=\"0\",le=\"" le "\"} " n "\n"
#define OM_HIST_LABELS \
	"{prev_mode=\"none\",next_mode=\"lam_u57\",same_mm=\"0\"}"

/* The counter families' metadata: the documented contract (tagtrace(8)). */
#define OM_CTRL_META \
	"# TYPE tagtrace_ctrl_calls counter\n" \
	"# HELP tagtrace_ctrl_calls Tagging prctl/arch_prctl calls and exec resets\n"
#define OM_UNTAG_META \
	"# TYPE tagtrace_untags counter\n" \
	"# HELP tagtrace_untags Tags the kernel stripped from user pointers\n"
#define OM_SWITCH_META \
	"# TYPE tagtrace_mode_switches counter\n" \
	"# HELP tagtrace_mode_switches CPU tagging mode changes switching away from the process\n"
#define OM_FAULT_META \
	"# TYPE tagtrace_tagged_faults counter\n" \
	"# HELP tagtrace_tagged_faults Page faults at tagged addresses or in tagged processes\n"
#define OM_FWT_META \
	"# TYPE tagtrace_faults_with_tag counter\n" \
	"# HELP tagtrace_faults_with_tag Page faults whose pointer carried a tag, read from the fault event\n"
#define OM_FWGT_META \
	"# TYPE tagtrace_faults_with_guessed_tag counter\n" \
	"# HELP tagtrace_faults_with_guessed_tag Page faults whose pointer carried a tag, as guessed from registers: the fault event has no pointer field\n"
#define OM_GP_META \
	"# TYPE tagtrace_tagged_gps counter\n" \
	"# HELP tagtrace_tagged_gps General protection faults from tagged pointers\n"
#define OM_INFO_META \
	"# TYPE tagtrace_process_info gauge\n" \
	"# HELP tagtrace_process_info A process's name and tagging mode, as of its last event\n"
#define OM_BITS_META \
	"# TYPE tagtrace_process_tag_bits gauge\n" \
	"# HELP tagtrace_process_tag_bits Tag bits the process has, as of its last event\n"
#define OM_UNCOUNTED_META \
	"# TYPE tagtrace_uncounted_events counter\n" \
	"# HELP tagtrace_uncounted_events Events not counted: a process or tag value map full or busy, a switch of a mode the histograms have no place for, or a run BPF skipped\n"
#define OM_HIST_META \
	"# TYPE tagtrace_switch_mm_seconds histogram\n" \
	"# UNIT tagtrace_switch_mm_seconds seconds\n" \
	"# HELP tagtrace_switch_mm_seconds Time spent in switch_mm_irqs_off by mode transition\n"

/* om_export()'s time of writing, as the file says it. */
#define OM_WRITTEN_NS	1733580000123456789ULL
/* A file's opening: its own status (written when, failed writes), sources. */
#define OM_SOURCES(ctrl, untag, sw, fault, fault_pointer, gp, time) \
	"# TYPE tagtrace_openmetrics_last_success_timestamp_seconds gauge\n" \
	"# UNIT tagtrace_openmetrics_last_success_timestamp_seconds seconds\n" \
	"# HELP tagtrace_openmetrics_last_success_timestamp_seconds When tagtrace wrote this file, Unix time; it stops advancing while writes fail\n" \
	"tagtrace_openmetrics_last_success_timestamp_seconds 1733580000.123\n" \
	"# TYPE tagtrace_openmetrics_write_failures counter\n" \
	"# HELP tagtrace_openmetrics_write_failures Writes of this file that failed since tagtrace started\n" \
	"tagtrace_openmetrics_write_failures_total 0\n" \
	"# TYPE tagtrace_source_info gauge\n" \
	"# HELP tagtrace_source_info Where each event comes from on this kernel; unavailable events have no counters; fault_pointer: fault tags read from the event, or guessed from registers\n" \
	"tagtrace_source_info{event=\"ctrl\",source=\"" ctrl "\"} 1\n" \
	"tagtrace_source_info{event=\"untag\",source=\"" untag "\"} 1\n" \
	"tagtrace_source_info{event=\"switch\",source=\"" sw "\"} 1\n" \
	"tagtrace_source_info{event=\"fault\",source=\"" fault "\"," \
	"fault_pointer=\"" fault_pointer "\"} 1\n" \
	"tagtrace_source_info{event=\"gp\",source=\"" gp "\"} 1\n" \
	"tagtrace_source_info{event=\"switch_time\",source=\"" time "\"} 1\n"
#define OM_TP "tp_btf/tagged_addr"
#define OM_SOURCES_ALL \
	OM_SOURCES(OM_TP, OM_TP, OM_TP, OM_TP, "event", OM_TP, \
		   "fentry/switch_mm_irqs_off")

static const char om_want[] =
	OM_SOURCES_ALL
	OM_CTRL_META
	"tagtrace_ctrl_calls_total" OM_LABELS_4242 " 1\n"
	"tagtrace_ctrl_calls_total" OM_LABELS_7 " 10\n"
	OM_UNTAG_META
	"tagtrace_untags_total" OM_LABELS_4242 " 2\n"
	"tagtrace_untags_total" OM_LABELS_7 " 0\n"
	OM_SWITCH_META
	"tagtrace_mode_switches_total" OM_LABELS_4242 " 3\n"
	"tagtrace_mode_switches_total" OM_LABELS_7 " 20\n"
	OM_FAULT_META
	"tagtrace_tagged_faults_total" OM_LABELS_4242 " 4\n"
	"tagtrace_tagged_faults_total" OM_LABELS_7 " 0\n"
	OM_FWT_META
	"tagtrace_faults_with_tag_total" OM_LABELS_4242 " 0\n"
	"tagtrace_faults_with_tag_total" OM_LABELS_7 " 0\n"
	OM_GP_META
	"tagtrace_tagged_gps_total" OM_LABELS_4242 " 5\n"
	"tagtrace_tagged_gps_total" OM_LABELS_7 " 0\n"
	OM_INFO_META
	"tagtrace_process_info{pid=\"4242\",start_ns=\"0\",comm=\"a\\\"b\\\\c\","
	"mode=\"lam_u57\"} 1\n"
	"tagtrace_process_info{pid=\"7\",start_ns=\"0\",comm=\"redis-server\","
	"mode=\"none\"} 1\n"
	OM_BITS_META
	"tagtrace_process_tag_bits" OM_LABELS_4242 " 6\n"
	"tagtrace_process_tag_bits" OM_LABELS_7 " 0\n"
	OM_UNCOUNTED_META
	"tagtrace_uncounted_events_total 3\n"
	OM_HIST_META
	/* le: the bucket's largest whole ns, in seconds; the last slot +Inf */
	OM_BUCKET("0.000000001", "1")
	OM_BUCKET("0.000000003", "1")
	OM_BUCKET("0.000000007", "1")
	OM_BUCKET("0.000000015", "3")
	OM_BUCKET("0.000000031", "3")
	OM_BUCKET("0.000000063", "3")
	OM_BUCKET("0.000000127", "3")
	OM_BUCKET("0.000000255", "3")
	OM_BUCKET("0.000000511", "3")
	OM_BUCKET("0.000001023", "3")
	OM_BUCKET("0.000002047", "7")
	OM_BUCKET("0.000004095", "7")
	OM_BUCKET("0.000008191", "7")
	OM_BUCKET("0.000016383", "7")
	OM_BUCKET("0.000032767", "7")
	OM_BUCKET("0.000065535", "7")
	OM_BUCKET("0.000131071", "7")
	OM_BUCKET("0.000262143", "7")
	OM_BUCKET("0.000524287", "7")
	OM_BUCKET("0.001048575", "7")
	OM_BUCKET("0.002097151", "7")
	OM_BUCKET("0.004194303", "7")
	OM_BUCKET("0.008388607", "7")
	OM_BUCKET("0.016777215", "7")
	OM_BUCKET("0.033554431", "7")
	OM_BUCKET("0.067108863", "7")
	OM_BUCKET("0.134217727", "7")
	OM_BUCKET("0.268435455", "7")
	OM_BUCKET("0.536870911", "7")
	OM_BUCKET("1.073741823", "7")
	OM_BUCKET("2.147483647", "7")
	OM_BUCKET("+Inf", "8")
	"tagtrace_switch_mm_seconds_count" OM_HIST_LABELS " 8\n"
	"tagtrace_switch_mm_seconds_sum" OM_HIST_LABELS " 2.147489000\n"
	"# EOF\n";

/* Two processes (one comm needing escapes) and one histogram. */
static void om_fixture(struct tt_snapshot *s, struct tt_hist_entry *h)
{
	add(s, 4242, proc("a\"b\\c", TT_MODE_LAM_U57, 6, 1, 2, 3, 4, 5));
	add(s, 7, proc("redis-server", TT_MODE_NONE, 0, 10, 0, 20, 0, 0));
	memset(h, 0, sizeof(*h));
	h->key.prev_mode = TT_MODE_NONE;
	h->key.next_mode = TT_MODE_LAM_U57;
	h->key.same_mm = 0;
	h->hist.slots[0] = 1;
	h->hist.slots[3] = 2;
	h->hist.slots[10] = 4;
	h->hist.slots[TT_HIST_SLOTS - 1] = 1;
	h->hist.sum = 2147489000ULL;
}

static struct tt_export om_export(const struct tt_snapshot *s,
				  const struct tt_hist_entry *h, int nr,
				  __u64 uncounted)
{
	struct tt_export x = { .procs = s, .hists = h, .nr_hists = nr,
			       .uncounted = uncounted,
			       .hist_asked = true,
			       .hist_src = TT_SRC_FENTRY,
			       .written_ns = OM_WRITTEN_NS };

	memcpy(x.src, src_all, sizeof(x.src));
	return x;
}

static char *om_text_x(const struct tt_export *x)
{
	struct mem m;
	char *t;

	tt_openmetrics(mem_open(&m), x);
	t = xstrdup(mem_text(&m));
	mem_free(&m);
	return t;
}

static char *om_text(const struct tt_snapshot *s,
		     const struct tt_hist_entry *h, int nr, __u64 uncounted)
{
	struct tt_export x = om_export(s, h, nr, uncounted);
	struct mem m;
	char *t;

	tt_openmetrics(mem_open(&m), &x);
	t = xstrdup(mem_text(&m));
	mem_free(&m);
	return t;
}

/* The "le" value of each _bucket line, in order; returns how many. */
static int om_bucket_les(const char *text, char les[][32], int max)
{
	const char *p = text;
	int n = 0;

	while (n < max && (p = strstr(p, "_bucket{"))) {
		const char *le = strstr(p, ",le=\""), *end;

		if (!le)
			break;
		le += strlen(",le=\"");
		end = strchr(le, '"');
		if (!end || end - le >= 32)
			break;
		memcpy(les[n], le, end - le);
		les[n][end - le] = 0;
		n++;
		p = end;
	}
	return n;
}

static void test_openmetrics_text(void)
{
	struct tt_snapshot s = { 0 };
	struct tt_hist_entry h;
	char les[TT_HIST_SLOTS + 2][32];
	char *t, *t2;
	int n, b, bad;

	om_fixture(&s, &h);
	t = om_text(&s, &h, 1, 3);
	is_str(t, om_want,
	       "tt_openmetrics: 2 processes and a histogram, exact");
	ok(valid_utf8((const unsigned char *)t, strlen(t)) &&
	   !valid_utf8((const unsigned char *)"\xc3", 1) &&
	   !valid_utf8((const unsigned char *)"\xed\xa0\x80", 3) &&
	   valid_utf8((const unsigned char *)"\xf4\x8f\xbf\xbf", 4),
	   "valid_utf8, the test's own checker, tells good from bad");
	ok(strlen(t) >= 6 && !strcmp(t + strlen(t) - 6, "# EOF\n"),
	   "tt_openmetrics: \"# EOF\\n\" last");

	/* Every finite le must cover the largest whole ns its bucket holds. */
	n = om_bucket_les(t, les, TT_HIST_SLOTS + 2);
	is_int(n, TT_HIST_SLOTS,
	       "tt_openmetrics: 31 finite buckets and +Inf, the last slot's");
	is_str(n == TT_HIST_SLOTS ? les[TT_HIST_SLOTS - 1] : NULL, "+Inf",
	       "tt_openmetrics: +Inf bucket last");
	/*
	 * le is inclusive: it must cover its bucket's largest whole ns and
	 * stay below the next bucket's smallest (2^(b+1) ns lands in b + 1).
	 */
	for (b = 0, bad = -1; b < TT_HIST_SLOTS - 1 && b < n; b++) {
		__u64 low, high;

		tt_bucket_bounds(b, &low, &high);
		if (strtod(les[b], NULL) < high / 1e9 ||
		    strtod(les[b], NULL) >= (high + 1) / 1e9) {
			bad = b;
			break;
		}
	}
	if (!ok(bad < 0,
		"tt_openmetrics: every finite le is its bucket's largest value, inclusive"))
		tap_diag("bucket %d: le=\"%s\", holds %.9f, next starts at %.9f",
			 bad, les[bad], ((1ULL << (bad + 1)) - 1) / 1e9,
			 (1ULL << (bad + 1)) / 1e9);
	free(t);

	/* A comm the kernel cut inside a UTF-8 sequence (15 bytes kept). */
	tt_snapshot_clear(&s);
	add(&s, 9, proc("abcdefghijklmn\xc3", TT_MODE_UAI, 7, 1, 0, 0, 0, 0));
	t = om_text(&s, NULL, 0, 0);
	if (!ok(valid_utf8((const unsigned char *)t, strlen(t)),
		"tt_openmetrics: a truncated UTF-8 comm still gives valid UTF-8")) {
		const char *l = strstr(t, "tagtrace_ctrl_calls_total");
		char line[128];

		snprintf(line, sizeof(line), "%.*s",
			 l ? (int)strcspn(l, "\n") : 0, l ? l : "");
		tap_quote("got:", line);
	}
	ok(strstr(t, "tagtrace_process_info{pid=\"9\",start_ns=\"0\","
		  "comm=\"abcdefghijklmn") != NULL,
	   "tt_openmetrics: the info gauge is there for that process");
	free(t);

	/* No processes, no histograms: metadata, the uncounted sample, EOF. */
	tt_snapshot_clear(&s);
	t = om_text(&s, NULL, 0, 0);
	is_str(t,
	       OM_SOURCES_ALL
	       OM_CTRL_META OM_UNTAG_META OM_SWITCH_META OM_FAULT_META
	       OM_FWT_META OM_GP_META OM_INFO_META OM_BITS_META
	       OM_UNCOUNTED_META
	       "tagtrace_uncounted_events_total 0\n"
	       OM_HIST_META "# EOF\n",
	       "tt_openmetrics: empty snapshot, every family's metadata only");
	free(t);

	/* A reused PID under the same name is a series of its own. */
	tt_snapshot_clear(&s);
	add_key(&s, 5, 100, proc("same", TT_MODE_LAM_U57, 6, 1, 0, 0, 0, 0), true);
	add_key(&s, 5, 200, proc("same", TT_MODE_NONE, 0, 2, 0, 0, 0, 0), false);
	t = om_text(&s, NULL, 0, 0);
	ok(strstr(t, "tagtrace_ctrl_calls_total{pid=\"5\",start_ns=\"100\"} 1\n") &&
	   strstr(t, "tagtrace_ctrl_calls_total{pid=\"5\",start_ns=\"200\"} 2\n") &&
	   strstr(t, "tagtrace_process_info{pid=\"5\",start_ns=\"100\","
		  "comm=\"same\",mode=\"lam_u57\"} 1\n") &&
	   strstr(t, "tagtrace_process_info{pid=\"5\",start_ns=\"200\","
		  "comm=\"same\",mode=\"none\"} 1\n"),
	   "tt_openmetrics: one PID reused under one name, two distinct series");
	free(t);

	/*
	 * Renamed at exec, its tagging reset: the counter and gauge samples
	 * keep their labels; only the info sample says what changed.
	 */
	tt_snapshot_clear(&s);
	add_key(&s, 6, 300, proc("before", TT_MODE_LAM_U57, 6, 1, 2, 0, 0, 0),
		false);
	t = om_text(&s, NULL, 0, 0);
	tt_snapshot_clear(&s);
	add_key(&s, 6, 300, proc("after", TT_MODE_NONE, 0, 2, 5, 0, 0, 0),
		false);
	t2 = om_text(&s, NULL, 0, 0);
	ok(strstr(t, "tagtrace_untags_total{pid=\"6\",start_ns=\"300\"} 2\n") &&
	   strstr(t2, "tagtrace_untags_total{pid=\"6\",start_ns=\"300\"} 5\n") &&
	   strstr(t, "tagtrace_process_tag_bits{pid=\"6\",start_ns=\"300\"} 6\n") &&
	   strstr(t2, "tagtrace_process_tag_bits{pid=\"6\",start_ns=\"300\"} 0\n"),
	   "tt_openmetrics: a process renamed at exec keeps its series");
	ok(strstr(t, "tagtrace_process_info{pid=\"6\",start_ns=\"300\","
		  "comm=\"before\",mode=\"lam_u57\"} 1\n") &&
	   strstr(t2, "tagtrace_process_info{pid=\"6\",start_ns=\"300\","
		  "comm=\"after\",mode=\"none\"} 1\n") &&
	   !strstr(t2, "before") && !strstr(t, "after"),
	   "tt_openmetrics: its name and mode are in tagtrace_process_info alone");
	free(t);
	free(t2);

	/* Newline in a label value escaped as \n; same_mm="1". */
	tt_snapshot_clear(&s);
	add(&s, 1, proc("x\ny", TT_MODE_NONE, 0, 0, 0, 0, 0, 0));
	memset(&h, 0, sizeof(h));
	h.key.prev_mode = TT_MODE_UAI;
	h.key.next_mode = TT_MODE_UAI;
	h.key.same_mm = 1;
	t = om_text(&s, &h, 1, 0);
	ok(strstr(t, "tagtrace_process_info{pid=\"1\",start_ns=\"0\","
		  "comm=\"x\\ny\",mode=\"none\"} 1\n") != NULL,
	   "tt_openmetrics: newline in comm escaped as \\n");
	ok(strstr(t, "tagtrace_switch_mm_seconds_bucket{prev_mode=\"uai\","
		  "next_mode=\"uai\",same_mm=\"1\",le=\"0.000000001\"} 0\n") != NULL,
	   "tt_openmetrics: same mm labelled same_mm=\"1\", empty buckets 0");
	ok(strstr(t, "tagtrace_switch_mm_seconds_sum{prev_mode=\"uai\","
		  "next_mode=\"uai\",same_mm=\"1\"} 0.000000000\n") != NULL,
	   "tt_openmetrics: empty histogram's _sum 0.000000000");
	free(t);
	tt_snapshot_free(&s);
}

/* The names in dir other than . and .., one a line, in readdir order. */
static int dir_names(const char *dir, char *buf, size_t len)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	buf[0] = 0;
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		n++;
		if (strlen(buf) + strlen(d->d_name) + 2 < len) {
			strcat(buf, d->d_name);
			strcat(buf, "\n");
		}
	}
	closedir(dp);
	return n;
}

static char *read_file(const char *path)
{
	struct mem m;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");
	char *t;

	if (!f)
		return NULL;
	mem_open(&m);
	while ((n = fread(chunk, 1, sizeof(chunk), f)))
		fwrite(chunk, 1, n, m.f);
	fclose(f);
	t = xstrdup(mem_text(&m));
	mem_free(&m);
	return t;
}

static void test_openmetrics_file(void)
{
	char dir[] = "/tmp/tagtrace-unit-XXXXXX";
	char path[PATH_MAX], missing[PATH_MAX], names[1024];
	struct tt_snapshot s = { 0 };
	struct tt_hist_entry h;
	struct tt_export x;
	struct stat st;
	mode_t old_umask;
	char *want, *got;
	int ret;

	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(path, sizeof(path), "%s/tagtrace.prom", dir);
	snprintf(missing, sizeof(missing), "%s/nodir/tagtrace.prom", dir);
	om_fixture(&s, &h);

	/* A umask that would hide it from a scraper running as another user. */
	old_umask = umask(077);
	x = om_export(&s, &h, 1, 3);
	ret = tt_openmetrics_file(path, &x);
	umask(old_umask);
	is_int(ret, 0, "tt_openmetrics_file: returns 0");
	want = om_text(&s, &h, 1, 3);
	got = read_file(path);
	is_str(got, want, "tt_openmetrics_file: the file is tt_openmetrics()'s text");
	free(got);
	free(want);
	ok(!stat(path, &st) && S_ISREG(st.st_mode),
	   "tt_openmetrics_file: a regular file");
	is_int(st.st_mode & 07777, 0644,
	       "tt_openmetrics_file: mode 0644 whatever the umask");
	is_int(dir_names(dir, names, sizeof(names)), 1,
	       "tt_openmetrics_file: no temporary file left behind");
	is_str(names, "tagtrace.prom\n",
	       "tt_openmetrics_file: only FILE in its directory");

	/* Rewritten whole: new content replaces the old, still one file. */
	tt_snapshot_clear(&s);
	x = om_export(&s, NULL, 0, 11);
	ret = tt_openmetrics_file(path, &x);
	is_int(ret, 0, "tt_openmetrics_file: rewrite returns 0");
	want = om_text(&s, NULL, 0, 11);
	got = read_file(path);
	is_str(got, want, "tt_openmetrics_file: rewrite replaces the content");
	free(got);
	free(want);
	is_int(dir_names(dir, names, sizeof(names)), 1,
	       "tt_openmetrics_file: after a rewrite, still one file");

	/* A missing directory: a negative errno and nothing created. */
	x = om_export(&s, NULL, 0, 0);
	ret = tt_openmetrics_file(missing, &x);
	is_int(ret, -ENOENT, "tt_openmetrics_file: missing directory gives -ENOENT");
	ok(access(missing, F_OK) && errno == ENOENT,
	   "tt_openmetrics_file: missing directory: no file");
	is_int(dir_names(dir, names, sizeof(names)), 1,
	       "tt_openmetrics_file: missing directory: nothing else created");

	if (unlink(path) || rmdir(dir))
		die("cleanup");
	tt_snapshot_free(&s);
}

/* The value of the first line starting with prefix, or -1. */
static double om_value(const char *text, const char *prefix)
{
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			return strtod(strchr(p + strlen(prefix), ' ') ?: "-1", NULL);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

/*
 * BPF adds to a slot, then the sum: a read between them sees the slots
 * ahead of the sum, and any count kept apart could lag them. The
 * exposition must stay valid: cumulative buckets ending in +Inf equal to
 * _count, the sum of the slots.
 */
static void test_openmetrics_torn(void)
{
	struct tt_snapshot s = { 0 };
	struct tt_hist_entry h;
	char *t;
	double inf, count, last;

	om_fixture(&s, &h);
	h.hist.slots[TT_HIST_SLOTS - 2] = 1;	/* counted in a slot only */
	h.hist.slots[TT_HIST_SLOTS - 1] = 2;
	/* 1 + 2 + 4 + 1 + 2 = 10 */
	t = om_text(&s, &h, 1, 0);
	last = om_value(t, "tagtrace_switch_mm_seconds_bucket{prev_mode=\"none\","
			"next_mode=\"lam_u57\",same_mm=\"0\",le=\"2.147483647\"}");
	inf = om_value(t, "tagtrace_switch_mm_seconds_bucket{prev_mode=\"none\","
		       "next_mode=\"lam_u57\",same_mm=\"0\",le=\"+Inf\"}");
	count = om_value(t, "tagtrace_switch_mm_seconds_count{");
	ok(last == 8 && inf == 10 && count == 10,
	   "tt_openmetrics: torn read (slots 10, count 8): last finite 8 <= +Inf 10 == _count 10 (got %g, %g, %g)",
	   last, inf, count);
	free(t);
	tt_snapshot_free(&s);
}

/* Upstream: no untag or gp source, no switch timing. */
static void test_openmetrics_unknown(void)
{
	struct tt_snapshot s = { 0 };
	struct tt_export x;
	char *t;

	add(&s, 7, proc("redis-server", TT_MODE_NONE, 0, 10, 0, 20, 0, 0));
	s.fault_tags_guessed = true;
	x = om_export(&s, NULL, 0, 0);
	memcpy(x.src, src_upstream, sizeof(x.src));
	x.hist_src = TT_SRC_NONE;
	t = om_text_x(&x);
	is_str(t,
	       OM_SOURCES("fexit/do_arch_prctl_64", "unavailable",
			  "fentry/switch_mm_irqs_off", "tp_btf/page_fault_user",
			  "registers", "unavailable", "unavailable")
	       OM_CTRL_META
	       "tagtrace_ctrl_calls_total" OM_LABELS_7 " 10\n"
	       OM_SWITCH_META
	       "tagtrace_mode_switches_total" OM_LABELS_7 " 20\n"
	       OM_FAULT_META
	       "tagtrace_tagged_faults_total" OM_LABELS_7 " 0\n"
	       OM_FWGT_META
	       "tagtrace_faults_with_guessed_tag_total" OM_LABELS_7 " 0\n"
	       OM_INFO_META
	       "tagtrace_process_info{pid=\"7\",start_ns=\"0\",comm=\"redis-server\","
	       "mode=\"none\"} 1\n"
	       OM_BITS_META
	       "tagtrace_process_tag_bits" OM_LABELS_7 " 0\n"
	       OM_UNCOUNTED_META
	       "tagtrace_uncounted_events_total 0\n"
	       "# EOF\n",
	       "tt_openmetrics: no family for an event without a source or for untimed switches; sources say why");
	free(t);

	/* Without --histograms: no switch_time source and no histograms. */
	x = om_export(&s, NULL, 0, 0);
	x.hist_asked = false;
	x.hist_src = TT_SRC_NONE;
	t = om_text_x(&x);
	ok(!strstr(t, "switch_time") && !strstr(t, "switch_mm_seconds") &&
	   strstr(t, "tagtrace_source_info{event=\"gp\",source=\"" OM_TP "\"} 1\n# TYPE tagtrace_ctrl_calls counter\n"),
	   "tt_openmetrics: histograms not asked for: neither family nor source");
	free(t);
	tt_snapshot_free(&s);
}

static void test_openmetrics(void)
{
	test_openmetrics_text();
	test_openmetrics_torn();
	test_openmetrics_unknown();
	test_openmetrics_file();
}

/* ---- names in a BTF, each as the kind it must be -------------------- */

/* Why no process can get tagging: the kernel's types, the CPU's flags. */
static void test_no_tagging(void)
{
	struct btf *btf = btf__new_empty();
	struct tt_probe p = { 0 };
	struct tt_fmt fmt = { 0 };
	struct tt_record r = rec_ctrl();
	bool lam, uai, la57;
	struct mem m;
	const char *t;
	FILE *f;
	int i, st, ctx;

	if (!btf)
		die("btf__new_empty");
	i = btf__add_int(btf, "unsigned long", 8, 0);
	st = btf__add_struct(btf, "mm_context_x", 16);
	btf__add_field(btf, "ctx_id", i, 0, 0);
	btf__add_field(btf, "untag_mask", i, 64, 0);
	ctx = btf__add_struct(btf, "", 8);
	btf__add_field(btf, "ctx_id", i, 0, 0);
	btf__add_typedef(btf, "mm_context_t", ctx);
	if (st < 0 || ctx < 0)
		die("btf__add_*");
	ok(!tt_btf_has_member(btf, "mm_context_t", "untag_mask"),
	   "tt_btf_has_member: another struct's member is not it");
	ok(tt_btf_has_member(btf, "mm_context_t", "ctx_id"),
	   "tt_btf_has_member: through the typedef to its struct");
	ok(tt_btf_has_member(btf, "mm_context_x", "untag_mask"),
	   "tt_btf_has_member: a struct by its own name");
	ok(!tt_btf_has_member(btf, "no_such_type", "ctx_id"),
	   "tt_btf_has_member: no such type");
	btf__free(btf);

	f = fmemopen((char *)"processor\t: 0\nflags\t\t: fpu lam_x la57 uai\nflags\t\t: lam\n",
		     64, "r");
	tt_cpu_flags(f, &lam, &uai, &la57);
	fclose(f);
	ok(!lam && uai && la57,
	   "tt_cpu_flags: whole words of the first flags line");
	f = fmemopen((char *)"flags\t\t: fpu lam\n", 17, "r");
	tt_cpu_flags(f, &lam, &uai, &la57);
	fclose(f);
	ok(lam && !uai && !la57, "tt_cpu_flags: lam, the line's last word");

	p.cpu_lam = true;
	ok(tt_probe_no_tagging(&p) == TT_NO_TAGGING_KERNEL,
	   "no tagging: a kernel without untag_mask, whatever the CPU has");
	p.address_masking = true;
	ok(tt_probe_no_tagging(&p) == TT_TAGGING_POSSIBLE,
	   "no tagging: LAM and ADDRESS_MASKING: possible");
	p.cpu_lam = false;
	ok(tt_probe_no_tagging(&p) == TT_NO_TAGGING_CPU,
	   "no tagging: neither lam nor uai listed");

	/* A fallback's refused enable (no reason field) gets the reason. */
	r.ctrl.reason = TT_REASON_UNKNOWN;
	r.ctrl.ret = -22;
	r.ctrl.granted_bits = 0;
	fmt.no_tagging = TT_NO_TAGGING_KERNEL;
	tt_record_text(mem_open(&m), &r, NULL, &fmt);
	t = mem_text(&m);
	if (!ok(strstr(t, " ret=-22 refused: the kernel was built without CONFIG_ADDRESS_MASKING"),
		"tt_record_text: a refused enable says why no process can tag"))
		tap_quote("got:", t);
	mem_free(&m);
	tt_record_json(mem_open(&m), &r, NULL, &fmt);
	t = mem_text(&m);
	if (!ok(strstr(t, ",\"ret\":-22,\"reason\":\"kernel_without_address_masking\"}"),
		"tt_record_json: its reason"))
		tap_quote("got:", t);
	mem_free(&m);
	r.ctrl.ret = 0;
	tt_record_text(mem_open(&m), &r, NULL, &fmt);
	ok(!strstr(mem_text(&m), "refused"), "tt_record_text: a granted one: no reason");
	mem_free(&m);
	r.ctrl.ret = -22;
	r.ctrl.op = TT_OP_QUERY;
	tt_record_json(mem_open(&m), &r, NULL, &fmt);
	ok(!strstr(mem_text(&m), "reason"), "tt_record_json: a failed query: no reason");
	mem_free(&m);
}

static void test_btf_find(void)
{
	/*
	 * The strings are all there, but only some as the right kind: a
	 * struct member cpu_tlbstate, a FUNC switch_mm_irqs_off_x, a FUNC
	 * named like the tracepoint's typedef.
	 */
	const struct tt_btf_name names[] = {
		{ "btf_trace_tagged_addr_untag", BTF_KIND_TYPEDEF },
		{ "btf_trace_tagged_addr_gp", BTF_KIND_TYPEDEF },
		{ "do_arch_prctl_64", BTF_KIND_FUNC },
		{ "switch_mm_irqs_off", BTF_KIND_FUNC },
		{ "cpu_tlbstate", BTF_KIND_VAR },
		{ "cpu_tlbstate", BTF_KIND_VAR },
	};
	struct btf *btf = btf__new_empty();
	bool found[6];
	int i, st, fn, proto;

	if (!btf)
		die("btf__new_empty");
	i = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	btf__add_typedef(btf, "btf_trace_tagged_addr_untag", i);
	proto = btf__add_func_proto(btf, i);
	btf__add_func(btf, "btf_trace_tagged_addr_gp", BTF_FUNC_GLOBAL, proto);
	fn = btf__add_func(btf, "do_arch_prctl_64", BTF_FUNC_GLOBAL, proto);
	btf__add_func(btf, "switch_mm_irqs_off_x", BTF_FUNC_GLOBAL, proto);
	st = btf__add_struct(btf, "holder", 4);
	btf__add_field(btf, "cpu_tlbstate", i, 0, 0);
	if (fn < 0 || st < 0)
		die("btf__add_*");
	tt_btf_find(btf, names, found, 5);
	ok(found[0], "tt_btf_find: a tracepoint's typedef");
	ok(!found[1], "tt_btf_find: a FUNC is not a typedef of the same name");
	ok(found[2], "tt_btf_find: a FUNC");
	ok(!found[3], "tt_btf_find: the start of a longer name is not the FUNC");
	ok(!found[4], "tt_btf_find: a member is not a VAR of the same name");
	btf__add_var(btf, "cpu_tlbstate", BTF_VAR_GLOBAL_ALLOCATED, i);
	tt_btf_find(btf, names + 4, found + 5, 1);
	ok(found[5], "tt_btf_find: a VAR");
	tt_btf_find(NULL, names, found, 1);
	ok(!found[0], "tt_btf_find: no BTF, nothing found");
	btf__free(btf);
}

/* A tracepoint's typedef as the kernel's BTF has it, with @n int arguments. */
static void add_tp(struct btf *btf, const char *name, int n, int type)
{
	int data = btf__add_ptr(btf, 0), proto = btf__add_func_proto(btf, type), ptr;

	/* The parameters follow their prototype: nothing added in between. */
	btf__add_func_param(btf, "__data", data);
	while (n--)
		btf__add_func_param(btf, "arg", type);
	ptr = btf__add_ptr(btf, proto);
	if (proto < 0 || ptr < 0 || btf__add_typedef(btf, name, ptr) < 0)
		die("btf__add_* (tracepoint)");
}

static void test_btf_tp_args(void)
{
	struct btf *btf = btf__new_empty();
	int i;

	if (!btf)
		die("btf__new_empty");
	i = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	/* The series meant for mainline, and with the LASS policy's reason. */
	add_tp(btf, "btf_trace_tagged_addr_ctrl", 8, i);
	add_tp(btf, "btf_trace_tagged_addr_fault", 6, i);
	btf__add_typedef(btf, "btf_trace_tagged_addr_gp", i);
	is_int(tt_btf_tp_args(btf, "tagged_addr_ctrl"), 8,
	       "tt_btf_tp_args: ctrl without reason has 8 arguments");
	is_int(tt_btf_tp_args(btf, "tagged_addr_fault"), 6,
	       "tt_btf_tp_args: fault with pointer has 6");
	is_int(tt_btf_tp_args(btf, "tagged_addr_gp"), -1,
	       "tt_btf_tp_args: a typedef that is no pointer to a prototype: -1");
	is_int(tt_btf_tp_args(btf, "tagged_addr_untag"), -1,
	       "tt_btf_tp_args: no typedef: -1");
	btf__free(btf);
	btf = btf__new_empty();
	if (!btf)
		die("btf__new_empty");
	add_tp(btf, "btf_trace_tagged_addr_ctrl", 9, btf__add_int(btf, "int", 4, 0));
	is_int(tt_btf_tp_args(btf, "tagged_addr_ctrl"), 9,
	       "tt_btf_tp_args: ctrl with reason has 9");
	btf__free(btf);
}

/* ---- tags: tag values, system calls, their report ------------------- */

static void test_sysnames(void)
{
	char buf[32];

	is_str(tt_syscall_name(0, buf, sizeof(buf)), "read",
	       "syscall 0 is read (from asm/unistd_64.h)");
	is_str(tt_syscall_name(1, buf, sizeof(buf)), "write", "syscall 1 is write");
	is_str(tt_syscall_name(63, buf, sizeof(buf)), "uname",
	       "syscall 63 is uname");
	is_str(tt_syscall_name(TT_NO_SYSCALL, buf, sizeof(buf)), "none",
	       "no system call: none");
	is_str(tt_syscall_name(-5, buf, sizeof(buf)), "syscall_-5",
	       "a negative number other than -1 is named by its number");
	is_str(tt_syscall_name(100000, buf, sizeof(buf)), "syscall_100000",
	       "a number past the table is named by its number");
}

/* A process into a tag report, as tags adds a new row of its snapshot. */
static void tag_add(struct tt_tagreport *r, const struct tt_proc_key *k,
		    const struct tt_proc *p, const struct tt_tags *t)
{
	struct tt_snapshot s = { 0 };

	if (tt_snapshot_add(&s, k, p) || tt_tagreport_add(r, &s.rows[0], t))
		die("tag_add");
	tt_snapshot_free(&s);
}

/* A process with untags of tags 1 and 63, faults untagged and of tag 1. */
static void tag_fixture(struct tt_tagreport *r)
{
	struct tt_proc_key k1 = { .tgid = 10, .start_ns = 5 };
	struct tt_proc_key k2 = { .tgid = 11, .start_ns = 6 };
	struct tt_sys_key s1 = { .proc = k1, .nr = 1 };
	struct tt_sys_key s2 = { .proc = k1, .nr = 63 };
	struct tt_sys_key s3 = { .proc = k1, .nr = TT_NO_SYSCALL };
	struct tt_sys_key s4 = { .proc = { .tgid = 99 }, .nr = 1 };
	struct tt_proc p = proc("hw", TT_MODE_LAM_U57, 6, 1, 5, 0, 4, 0);
	struct tt_proc q = proc("idle", TT_MODE_UAI, 6, 1, 0, 0, 0, 0);
	struct tt_tags t = { 0 };

	p.tagged_faults = 1;
	t.untag[1] = 3;
	t.untag[63] = 2;
	t.fault[0] = 3;
	t.fault[1] = 1;
	tag_add(r, &k2, &q, NULL);
	tag_add(r, &k1, &p, &t);
	tt_tagreport_add_sys(r, &s2, 1);
	tt_tagreport_add_sys(r, &s1, 3);
	tt_tagreport_add_sys(r, &s3, 1);
	tt_tagreport_add_sys(r, &s4, 7);	/* no such process: ignored */
	tt_tagreport_sort(r);
}

/*
 * A process's places of misuse: 12 gps and 30 faults in files, then two
 * places outside files, third times and once.
 */
static void loc_fixture(struct tt_tagreport *r, __u64 third)
{
	struct tt_proc_key k1 = { .tgid = 10, .start_ns = 5 };
	struct tt_loc_key l = { .proc = k1, .kind = TT_EV_GP };

	tag_fixture(r);
	l.file = (struct tt_file_key){ .ino = 1, .dev = 8 };
	l.off = 0x1234;
	tt_tagreport_add_loc(r, &l, 12);
	l.kind = TT_EV_FAULT;
	l.file.ino = 2;
	l.off = 0x2000;
	tt_tagreport_add_loc(r, &l, 30);
	l.file.ino = 0;
	l.off = 0x7f0000001000;
	tt_tagreport_add_loc(r, &l, third);
	l.off = 0x7f0000002000;
	tt_tagreport_add_loc(r, &l, 1);
}

/* tags: each process's misuse by place, busiest first, named. */
static void test_tags_locs(void)
{
	struct tt_tagreport r = { .locate = fake_locate };
	struct tt_loc_key nobody = { .proc = { .tgid = 99 },
				     .kind = TT_EV_FAULT };
	static const enum tt_source src[TT_EV_MAX] = {
		TT_SRC_TP_BTF, TT_SRC_TP_BTF, TT_SRC_TP_BTF, TT_SRC_TP_BTF,
		TT_SRC_TP_BTF,
	};
	struct mem m;
	const char *t;

	loc_fixture(&r, 1);
	tt_tagreport_add_loc(&r, &nobody, 5);	/* no such process: ignored */
	tt_tagreport_sort(&r);
	tt_tags_text(mem_open(&m), &r, src, 20);
	t = mem_text(&m);
	if (!ok(strstr(t, "\n  where: 30 fault at app+0x2000\n"
			  "         12 gp at bad_deref+0x1a (app)\n"
			  "         1 fault at 0x7f0000001000\n"
			  "         (1 more places)\n"),
		"tt_tags_text: places busiest first, three, then how many more"))
		tap_quote("got:", t);
	mem_free(&m);
	tt_tags_json(mem_open(&m), &r, src, 7, 1, 0);
	t = mem_text(&m);
	if (!ok(strstr(t, ",\"locations\":[{\"event\":\"fault\",\"count\":30,"
			  "\"file\":\"/usr/bin/app\",\"file_offset\":\"0x2000\","
			  "\"no_sym\":\"no symbols\"},"
			  "{\"event\":\"gp\",\"count\":12,\"file\":\"/usr/bin/app\","
			  "\"build_id\":\"00ff\",\"file_offset\":\"0x1234\","
			  "\"sym\":\"bad_deref\",\"sym_offset\":26},"
			  "{\"event\":\"fault\",\"count\":1,\"ip\":\"0x7f0000001000\"},"
			  "{\"event\":\"fault\",\"count\":1,\"ip\":\"0x7f0000002000\"}]}") &&
		strstr(t, "\"comm\":\"idle\"") &&
		!strstr(strstr(t, "\"comm\":\"idle\""), "locations"),
		"tt_tags_json: every place of a process, none for one without"))
		tap_quote("got:", t);
	mem_free(&m);
	tt_tagreport_free(&r);
}

static void test_tagfmt(void)
{
	struct tt_tagreport r = { 0 };
	struct mem m;
	const char *t;

	tag_fixture(&r);
	is_int(r.nr, 2, "tagreport: two processes");
	is_int(r.rows[0].pid, 10, "tagreport: busiest first");
	is_int(r.rows[0].nr_sys, 3, "tagreport: a system call of an unknown process ignored");
	ok(r.rows[0].sys[0].nr == 1 && r.rows[0].sys[1].nr == TT_NO_SYSCALL &&
	   r.rows[0].sys[2].nr == 63,
	   "tagreport: system calls busiest first, then by number");
	is_int(tt_tags_distinct(&r.rows[0]), 2,
	       "distinct tags: 1 and 63, tag 0 is not one");
	is_uint(tt_tags_total(r.rows[0].tags.untag), 5, "untag total");

	tt_tags_json(mem_open(&m), &r, src_all, 7, 1, 2);
	t = mem_text(&m);
	is_str(t,
	       "{\"ts_ns\":7,\"interval_s\":1.000,\"uncounted\":2,"
	       "\"sources\":{\"ctrl\":\"tp_btf/tagged_addr\","
	       "\"untag\":\"tp_btf/tagged_addr\",\"fault\":\"tp_btf/tagged_addr\","
	       "\"gp\":\"tp_btf/tagged_addr\",\"fault_pointer\":\"event\"},"
	       "\"processes\":["
	       "{\"pid\":10,\"start_ns\":5,\"comm\":\"hw\",\"mode\":\"lam_u57\","
	       "\"tag_bits\":6,\"exited\":false,\"untags\":5,\"faults\":4,"
	       "\"tagged_faults\":1,\"distinct_tags\":2,"
	       "\"untag_tags\":[0,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,2],"
	       "\"fault_tags\":[3,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0],"
	       "\"syscalls\":[{\"nr\":1,\"name\":\"write\",\"untags\":3},"
	       "{\"nr\":-1,\"name\":\"none\",\"untags\":1},"
	       "{\"nr\":63,\"name\":\"uname\",\"untags\":1}]},"
	       "{\"pid\":11,\"start_ns\":6,\"comm\":\"idle\",\"mode\":\"uai\","
	       "\"tag_bits\":6,\"exited\":false,\"untags\":0,\"faults\":0,"
	       "\"tagged_faults\":0,\"distinct_tags\":0,"
	       "\"untag_tags\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0],"
	       "\"fault_tags\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	       "0,0,0,0,0,0,0],\"syscalls\":[]}]}\n",
	       "tt_tags_json: exact");
	mem_free(&m);

	tt_tags_text(mem_open(&m), &r, src_all, 20);
	t = mem_text(&m);
	is_str(t,
	       "PID 10 hw  lam_u57 6 bits\n"
	       "  5 untags, 4 faults (1 with a tag); 2 distinct tags\n"
	       "  TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT\n"
	       "    0      0     3     1      3     1    63      2     0\n"
	       "  untags by system call: write 3, none 1, uname 1\n"
	       "PID 11 idle  uai 6 bits\n"
	       "  0 untags, 0 faults (0 with a tag); 0 distinct tags\n",
	       "tt_tags_text: exact");
	mem_free(&m);

	tt_tags_text(mem_open(&m), &r, src_all, 1);
	t = mem_text(&m);
	ok(strstr(t, "(1 more)\n") && !strstr(t, "idle"),
	   "tt_tags_text: max_rows cuts the report, says how many more");
	mem_free(&m);

	/* Upstream: no untag events, so untags are unknown, not 0. */
	tt_tags_text(mem_open(&m), &r, src_upstream, 1);
	t = mem_text(&m);
	is_str(t,
	       "PID 10 hw  lam_u57 6 bits\n"
	       "  - untags, 4 faults (1 with a tag); 2 distinct tags\n"
	       "  TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT\n"
	       "    0      -     3     1      -     1    63      -     0\n"
	       "(1 more)\n",
	       "tt_tags_text: untags without a source are -, no system calls");
	mem_free(&m);
	tt_tags_json(mem_open(&m), &r, src_upstream, 7, 1, 0);
	t = mem_text(&m);
	ok(strstr(t, "\"untag\":\"unavailable\"") &&
	   !strstr(t, "\"untags\"") && !strstr(t, "\"untag_tags\"") &&
	   !strstr(t, "\"syscalls\"") && strstr(t, "\"faults\":4,") &&
	   strstr(t, "\"fault_tags\":[3,1,"),
	   "tt_tags_json: untags without a source are left out, as in top");
	mem_free(&m);
	tt_tagreport_free(&r);
}

/* System calls find their process among many, PIDs reused, any order. */
static void test_tagreport_many(void)
{
	struct tt_tagreport r = {};
	struct tt_proc p = {};
	struct tt_proc_key k = {};
	struct tt_sys_key sk = {};
	size_t i, bad = 0;

	for (i = 2000; i > 0; i--) {
		k.tgid = i % 700;
		k.start_ns = i;
		tag_add(&r, &k, &p, NULL);
	}
	for (i = 1; i <= 2000; i++) {
		sk.proc.tgid = i % 700;
		sk.proc.start_ns = i;
		sk.nr = i % 7;
		tt_tagreport_add_sys(&r, &sk, i);
	}
	sk.proc.tgid = 5;
	sk.proc.start_ns = 6;	/* PID 5's start times are 5, 705, 1405 */
	tt_tagreport_add_sys(&r, &sk, 1);
	k.tgid = 9999;		/* added after system calls were */
	k.start_ns = 1;
	tag_add(&r, &k, &p, NULL);
	sk.proc = k;
	tt_tagreport_add_sys(&r, &sk, 42);
	tt_tagreport_sort(&r);
	for (i = 0; i < r.nr; i++) {
		const struct tt_tagrow *row = &r.rows[i];
		__u64 want = row->pid == 9999 ? 42 : row->start_ns;

		bad += row->nr_sys != 1 || row->sys[0].count != want ||
		       (row->pid != 9999 &&
			row->sys[0].nr != (int)(row->start_ns % 7));
	}
	is_uint(r.nr, 2001, "tagreport: 2001 processes");
	is_uint(bad, 0, "tagreport: each process's system calls its own, "
		"PIDs reused, rows added in any order");
	tt_tagreport_free(&r);
}

/*
 * A long run: the busiest process of the interval comes first, not the
 * one with most events since the start, which may have long been idle.
 */
static void test_tagreport_interval(void)
{
	struct tt_snapshot prev = { 0 }, cur = { 0 };
	struct tt_tagreport r = { 0 };
	struct tt_tags t = { 0 };
	size_t i;

	add_key(&prev, 10, 1, proc("old", TT_MODE_LAM_U57, 6, 1, 5000, 0, 900, 0), false);
	add_key(&prev, 11, 2, proc("steady", TT_MODE_LAM_U57, 6, 1, 100, 0, 10, 0), false);
	add_key(&cur, 10, 1, proc("old", TT_MODE_LAM_U57, 6, 1, 5000, 0, 900, 0), false);
	add_key(&cur, 11, 2, proc("steady", TT_MODE_LAM_U57, 6, 1, 130, 0, 10, 0), false);
	add_key(&cur, 12, 3, proc("new", TT_MODE_LAM_U57, 6, 1, 40, 0, 2, 0), false);
	tt_snapshot_diff(&cur, &prev);
	for (i = 0; i < cur.nr; i++)
		if (tt_tagreport_add(&r, &cur.rows[i], &t))
			die("tt_tagreport_add");
	tt_tagreport_sort(&r);
	ok(r.nr == 3 && r.rows[0].pid == 12 && r.rows[1].pid == 11 &&
	   r.rows[2].pid == 10,
	   "tagreport: busiest in the interval first (42, 30, then 0 events)");
	ok(r.nr == 3 && r.rows[0].active == 42 && r.rows[1].active == 30 &&
	   r.rows[2].active == 0 && r.rows[2].untags == 5000,
	   "tagreport: interval activity from the snapshot's deltas, totals kept");
	tt_tagreport_free(&r);
	tt_snapshot_free(&prev);
	tt_snapshot_free(&cur);
}

static void test_openmetrics_tag_values(void)
{
	struct tt_tagreport r = { 0 };
	struct tt_snapshot s = { 0 };
	struct tt_export x;
	char *t;

	tag_fixture(&r);
	x = om_export(&s, NULL, 0, 0);
	x.hist_src = TT_SRC_NONE;
	t = om_text_x(&x);
	ok(!strstr(t, "tagtrace_tag_values"),
	   "tt_openmetrics: no tag values unless asked");
	free(t);
	x.tags = &r;
	t = om_text_x(&x);
	ok(strstr(t, "# TYPE tagtrace_tag_values counter\n") &&
	   strstr(t, "tagtrace_tag_values_total{pid=\"10\",start_ns=\"5\",event=\"untag\",tag=\"1\"} 3\n"
		  "tagtrace_tag_values_total{pid=\"10\",start_ns=\"5\",event=\"untag\",tag=\"63\"} 2\n"
		  "tagtrace_tag_values_total{pid=\"10\",start_ns=\"5\",event=\"fault\",tag=\"0\"} 3\n"
		  "tagtrace_tag_values_total{pid=\"10\",start_ns=\"5\",event=\"fault\",tag=\"1\"} 1\n# TYPE"),
	   "tt_openmetrics: tag values asked for, only those seen");
	if (!ok(!strstr(t, "pid=\"11\""),
		"tt_openmetrics: a process without tags has no tag series"))
		tap_quote("got:", t);
	free(t);
	tt_tagreport_free(&r);
}

/* --tag-values: each process's 3 busiest places of misuse, named. */
static void test_openmetrics_places(void)
{
	struct tt_tagreport r = { .locate = fake_locate };
	struct tt_snapshot s = { 0 };
	struct tt_export x;
	char *t;

	loc_fixture(&r, 2);
	tt_tagreport_sort(&r);
	x = om_export(&s, NULL, 0, 0);
	x.hist_src = TT_SRC_NONE;
	x.tags = &r;
	t = om_text_x(&x);
	if (!ok(strstr(t, "# TYPE tagtrace_misuse_places counter\n"
			  "# HELP tagtrace_misuse_places Tagged faults and #GPs of a process at its 3 busiest places (function+offset and file)\n"
			  "tagtrace_misuse_places_total{pid=\"10\",start_ns=\"5\",event=\"fault\",place=\"app+0x2000\"} 30\n"
			  "tagtrace_misuse_places_total{pid=\"10\",start_ns=\"5\",event=\"gp\",place=\"bad_deref+0x1a (app)\"} 12\n"
			  "tagtrace_misuse_places_total{pid=\"10\",start_ns=\"5\",event=\"fault\",place=\"0x7f0000001000\"} 2\n# TYPE") &&
		!strstr(t, "guessed_misuse"),
		"tt_openmetrics: the 3 busiest places of a process, named"))
		tap_quote("got:", t);
	free(t);
	r.fault_tags_guessed = true;
	t = om_text_x(&x);
	if (!ok(strstr(t, "tagtrace_misuse_places_total{pid=\"10\",start_ns=\"5\",event=\"gp\",place=\"bad_deref+0x1a (app)\"} 12\n# TYPE tagtrace_guessed_misuse_places counter\n") &&
		strstr(t, "tagtrace_guessed_misuse_places_total{pid=\"10\",start_ns=\"5\",event=\"fault\",place=\"app+0x2000\"} 30\n") &&
		strstr(t, "place=\"0x7f0000002000\"} 1\n"),
		"tt_openmetrics: faults with guessed tags in a family of their own"))
		tap_quote("got:", t);
	free(t);
	tt_tagreport_free(&r);
}

/*
 * LAM_U48: 15-bit tag values past the dense array come from the
 * wide_tags map, a value's untag and fault entries merged; text, JSON and
 * OpenMetrics show them, and the export stays bounded.
 */
static void test_tags_wide(void)
{
	struct tt_proc_key k = { .tgid = 20, .start_ns = 7 };
	struct tt_wide_key w = { .proc = k };
	struct tt_proc p = proc("jit", TT_MODE_LAM_U48, 15, 1, 6, 0, 2, 0);
	struct tt_tagreport r = { 0 };
	struct tt_snapshot s = { 0 };
	struct tt_tags t = { 0 };
	struct tt_export x;
	struct mem m;
	char *o;
	const char *txt;
	size_t n;
	__u32 v;

	t.untag[5] = 1;
	t.fault[0] = 1;
	tag_add(&r, &k, &p, &t);
	w.kind = TT_EV_UNTAG;
	w.tag = 32767;
	tt_tagreport_add_wide(&r, &w, 2);
	w.tag = 1000;
	tt_tagreport_add_wide(&r, &w, 3);
	w.kind = TT_EV_FAULT;
	tt_tagreport_add_wide(&r, &w, 1);	/* tag 1000 again */
	w.kind = TT_EV_CTRL;			/* not a tag count: ignored */
	tt_tagreport_add_wide(&r, &w, 9);
	w.proc.tgid = 99;			/* no such process: ignored */
	tt_tagreport_add_wide(&r, &w, 9);
	r.overflow = 4;
	tt_tagreport_sort(&r);
	ok(r.rows[0].nr_wide == 2 && r.rows[0].wide[0].tag == 1000 &&
	   r.rows[0].wide[0].untag == 3 && r.rows[0].wide[0].fault == 1 &&
	   r.rows[0].wide[1].tag == 32767 && r.rows[0].wide[1].untag == 2,
	   "tagreport: wide tag values by value, untags and faults merged");
	is_int(tt_tags_distinct(&r.rows[0]), 3,
	       "distinct tags: 5, 1000 and 32767");

	tt_tags_text(mem_open(&m), &r, src_all, 20);
	txt = mem_text(&m);
	is_str(txt,
	       "(4 tag values past 63 not counted: the wide tag map is full)\n"
	       "PID 20 jit  lam_u48 15 bits\n"
	       "  6 untags, 2 faults (0 with a tag); 3 distinct tags\n"
	       "  TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT\n"
	       "    0      0     1     5      1     0  1000      3     1 32767      2     0\n",
	       "tt_tags_text: LAM_U48, 15 bits, wide values after the array, overflow said");
	mem_free(&m);

	tt_tags_json(mem_open(&m), &r, src_all, 7, 1, 0);
	txt = mem_text(&m);
	ok(strstr(txt, "\"tag_overflow\":4,") &&
	   strstr(txt, "\"mode\":\"lam_u48\",\"tag_bits\":15,") &&
	   strstr(txt, "\"wide_tags\":[{\"tag\":1000,\"untags\":3,\"faults\":1},"
		  "{\"tag\":32767,\"untags\":2,\"faults\":0}]"),
	   "tt_tags_json: wide_tags by value, tag_overflow");
	mem_free(&m);

	x = om_export(&s, NULL, 0, 0);
	x.hist_src = TT_SRC_NONE;
	x.tags = &r;
	o = om_text_x(&x);
	ok(strstr(o, "event=\"untag\",tag=\"5\"} 1\n"
		  "tagtrace_tag_values_total{pid=\"20\",start_ns=\"7\",event=\"untag\",tag=\"512-1023\"} 3\n"
		  "tagtrace_tag_values_total{pid=\"20\",start_ns=\"7\",event=\"untag\",tag=\"32256-32767\"} 2\n") &&
	   strstr(o, "event=\"fault\",tag=\"512-1023\"} 1\n"),
	   "tt_openmetrics: wide tag values in ranges of 512");
	free(o);
	tt_tagreport_free(&r);

	/* Every one of the 32768 values: the export stays at 64 + 64 ranges. */
	tag_add(&r, &k, &p, &t);
	w.proc = k;
	w.kind = TT_EV_UNTAG;
	for (v = TT_TAG_VALUES; v < TT_TAG_VALUES_MAX; v++) {
		w.tag = v;
		tt_tagreport_add_wide(&r, &w, 1);
	}
	tt_tagreport_sort(&r);
	o = om_text_x(&x);
	for (n = 0, txt = o; (txt = strstr(txt, "tagtrace_tag_values_total{")); txt++)
		n++;
	ok(n == 2 + 64 && strstr(o, "tag=\"64-511\"} 448\n") &&
	   strstr(o, "tag=\"32256-32767\"} 512\n"),
	   "tt_openmetrics: 32704 wide values give 64 range series, not one each");
	free(o);
	tt_tagreport_free(&r);
}

/* ---- terminal safety: a comm of control bytes in every text report ------ */

/* An OSC setting the window title, BEL, a CSI colour, a C1 CSI byte. */
static const char evil_comm[TT_COMM_LEN] = "\033]2;own\a\033[31m\233x";
static const char evil_text[] = "?]2;own??[31m?x";

static bool has_control(const char *t)
{
	for (; *t; t++)
		if (*t != '\n' && ((unsigned char)*t < 0x20 ||
				   (unsigned char)*t >= 0x7f))
			return true;
	return false;
}

static void test_terminal_safety(void)
{
	struct tt_record r = rec(TT_EV_GP, evil_comm);
	struct tt_snapshot s = { 0 };
	struct tt_tagreport tr = { 0 };
	struct tt_proc p = proc(evil_comm, TT_MODE_UAI, 6, 1, 0, 0, 0, 0);
	struct tt_proc_key k = { .tgid = 5 };
	struct tt_fmt fmt = { 0 };
	char buf[TT_COMM_LEN], full[TT_COMM_LEN + 1];
	struct mem m;
	const char *t;

	is_str(tt_comm_text(evil_comm, buf), evil_text,
	       "tt_comm_text: each byte outside printable ASCII is ?");
	is_str(tt_comm_text("plain name-1.2_", buf), "plain name-1.2_",
	       "tt_comm_text: printable ASCII kept, 15 bytes");
	memset(full, 'a', TT_COMM_LEN);
	full[TT_COMM_LEN] = 0;
	is_int(strlen(tt_comm_text(full, buf)), TT_COMM_LEN - 1,
	       "tt_comm_text: at most 15 bytes and a NUL");

	tt_record_text(mem_open(&m), &r, NULL, &fmt);
	t = mem_text(&m);
	ok(strstr(t, evil_text) && !has_control(t),
	   "tt_record_text: no control byte of comm reaches the terminal");
	mem_free(&m);

	add(&s, 5, p);
	tt_table_text(mem_open(&m), &s, src_all, 20);
	t = mem_text(&m);
	ok(strstr(t, evil_text) && !has_control(t),
	   "tt_table_text: no control byte of comm reaches the terminal");
	mem_free(&m);
	tt_snapshot_free(&s);

	tag_add(&tr, &k, &p, NULL);
	tt_tags_text(mem_open(&m), &tr, src_all, 20);
	t = mem_text(&m);
	ok(strstr(t, evil_text) && !has_control(t),
	   "tt_tags_text: no control byte of comm reaches the terminal");
	mem_free(&m);
	tt_tagreport_free(&tr);

	tt_record_json(mem_open(&m), &r, NULL, &fmt);
	t = mem_text(&m);
	ok(!has_control(t) && strstr(t, "\"comm\":\"\\u001b]2;own\\u0007\\u001b[31m\\ufffdx\""),
	   "tt_record_json: comm's control bytes escaped, as JSON says");
	mem_free(&m);
}

/* What BPF did not count, by cause, in a report's header. */
static void test_uncounted_text(void)
{
	static const struct {
		__u64 full, busy, missed;
		const char *want;
	} cases[] = {
		{ 0, 0, 0, "" },
		{ 3, 0, 0, "  3 events uncounted (3 process map full)" },
		{ 0, 2, 0, "  2 events uncounted (2 map busy)" },
		{ 0, 0, 4, "  4 events uncounted (4 runs missed)" },
		{ 1, 2, 3, "  6 events uncounted (1 process map full, 2 map busy, 3 runs missed)" },
	};
	struct mem m;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		tt_uncounted_text(mem_open(&m), "process map full",
				  cases[i].full, cases[i].busy,
				  cases[i].missed);
		is_str(mem_text(&m), cases[i].want,
		       "tt_uncounted_text: full %llu, busy %llu, missed %llu",
		       (unsigned long long)cases[i].full,
		       (unsigned long long)cases[i].busy,
		       (unsigned long long)cases[i].missed);
		mem_free(&m);
	}
}

/* ---- out.c -------------------------------------------------------------- */

/* tt_out_flush() on f, its stderr captured into err. */
static int out_flush_captured(FILE *f, int write_err, char *err, size_t len)
{
	static char out[256];
	struct capture c;
	int ret;

	capture_begin(&c);
	ret = tt_out_flush(f, write_err);
	capture_end(&c, out, err, len);
	return ret;
}

static void test_out(void)
{
	static char big[64 * 1024], err[512];
	void (*old)(int);
	int saved;
	struct mem m;
	FILE *f;
	int p[2];

	memset(big, 'x', sizeof(big));
	mem_open(&m);
	fputs("a report\n", m.f);
	is_int(out_flush_captured(m.f, 0, err, sizeof(err)), 0,
	       "tt_out_flush: a written report is 0");
	is_str(err, "", "tt_out_flush: and says nothing");
	mem_text(&m);
	mem_free(&m);

	/* A full disk, as /dev/full is: the report is lost, so exit 1. */
	f = fopen("/dev/full", "w");
	if (!f)
		die("/dev/full");
	fputs("a report\n", f);
	is_int(out_flush_captured(f, 0, err, sizeof(err)), -ENOSPC,
	       "tt_out_flush: a full disk is -ENOSPC");
	is_str(err, "tagtrace: cannot write the output: No space left on device\n",
	       "tt_out_flush: said in one line");
	fclose(f);

	/* A write past the buffer failed already; the flush has nothing left. */
	f = fopen("/dev/full", "w");
	if (!f)
		die("/dev/full");
	fwrite(big, 1, sizeof(big), f);
	saved = errno;
	is_int(out_flush_captured(f, saved, err, sizeof(err)), -ENOSPC,
	       "tt_out_flush: a write that failed before the flush is seen");
	fclose(f);

	/*
	 * The flag set by a write whose errno the caller did not keep, and
	 * errno since set by something else (here EPIPE, which would read as
	 * a closed pipe): the cause is unknown, an error all the same.
	 */
	f = fopen("/dev/null", "r");
	if (!f)
		die("/dev/null");
	fputc('x', f);
	saved = errno;
	errno = EPIPE;
	is_int(out_flush_captured(f, 0, err, sizeof(err)), -EIO,
	       "tt_out_flush: an older errno is not taken for the cause (EIO)");
	is_str(err, "tagtrace: cannot write the output: Input/output error\n",
	       "tt_out_flush: the unknown cause said as EIO");
	errno = EPIPE;
	is_int(out_flush_captured(f, saved, err, sizeof(err)), -EBADF,
	       "tt_out_flush: the write's own errno, kept by the caller, is the cause");
	fclose(f);

	/* The reader went away (`| head -1`): a normal end, said nowhere. */
	old = signal(SIGPIPE, SIG_IGN);
	if (pipe(p))
		die("pipe");
	close(p[0]);
	f = fdopen(p[1], "w");
	if (!f)
		die("fdopen");
	fputs("a report\n", f);
	is_int(out_flush_captured(f, 0, err, sizeof(err)), TT_OUT_CLOSED,
	       "tt_out_flush: EPIPE is TT_OUT_CLOSED");
	is_str(err, "", "tt_out_flush: a closed pipe is not an error");
	fwrite(big, 1, sizeof(big), f);
	saved = errno;
	is_int(out_flush_captured(f, saved, err, sizeof(err)), TT_OUT_CLOSED,
	       "tt_out_flush: EPIPE from a write before the flush too");
	fclose(f);
	signal(SIGPIPE, old);
}

/*
 * Fault tags guessed from registers (fault_pointer=registers) never pass
 * for counts: top's JSON names them guessed_ and says where they come
 * from, its text marks them "~" under a line that says what it means.
 */
static void test_guessed_top(void)
{
	static const char row[] =
		"42      redis           lam_u57    6     1        2       3"
		"       8     ~5     0\n";
	struct tt_snapshot s = { 0 };
	struct mem m;
	const char *t;

	add(&s, 42, proc("redis", TT_MODE_LAM_U57, 6, 1, 2, 3, 8, 0));
	s.rows[0].tagged_faults = 5;
	s.fault_tags_guessed = true;
	tt_table_json(mem_open(&m), &s, src_all, 1, 1, 0);
	t = mem_text(&m);
	if (!ok(strstr(t, "\"gp\":\"tp_btf/tagged_addr\","
			  "\"fault_pointer\":\"registers\"},") &&
		strstr(t, "\"guessed_tagged_faults\":5,") &&
		!strstr(t, "\"tagged_faults\""),
		"tt_table_json: guessed fault tags: fault_pointer registers, "
		"guessed_tagged_faults, no tagged_faults"))
		tap_quote("got:", t);
	mem_free(&m);

	tt_table_text(mem_open(&m), &s, src_all, 20);
	t = mem_text(&m);
	ok(!strncmp(t, "~: fault tags guessed from registers, not read from "
		    "the fault event\nPID ", 72) && strstr(t, row) &&
	   strlen(row) <= 81,
	   "tt_table_text: guessed TAGFLT marked ~, the mark said first");
	mem_free(&m);

	/* No fault source: nothing to mark, unknown stays "-". */
	tt_table_text(mem_open(&m), &s, (const enum tt_source[TT_EV_MAX]){
			      TT_SRC_TP_BTF }, 20);
	t = mem_text(&m);
	ok(!strncmp(t, "PID ", 4) && !strchr(t, '~') &&
	   strstr(t, "       -      -     -\n"),
	   "tt_table_text: no fault source: no ~, faults unknown");
	mem_free(&m);
	tt_snapshot_free(&s);
}

/* tags: every figure counting guessed fault tags is named and marked so. */
static void test_guessed_tags(void)
{
	struct tt_proc_key k = { .tgid = 10, .start_ns = 5 };
	struct tt_wide_key w = { .proc = k, .kind = TT_EV_FAULT, .tag = 100 };
	struct tt_tagreport r = { 0 };
	struct mem m;
	const char *t;

	tag_fixture(&r);
	tt_tagreport_add_wide(&r, &w, 2);
	tt_tagreport_sort(&r);
	r.fault_tags_guessed = true;
	tt_tags_json(mem_open(&m), &r, src_upstream, 7, 1, 0);
	t = mem_text(&m);
	if (!ok(strstr(t, "\"fault\":\"tp_btf/page_fault_user\","
			  "\"gp\":\"unavailable\","
			  "\"fault_pointer\":\"registers\"},") &&
		strstr(t, "\"faults\":4,\"guessed_tagged_faults\":1,"
			  "\"guessed_distinct_tags\":3,"
			  "\"guessed_fault_tags\":[3,1,0,") &&
		strstr(t, "\"wide_tags\":[{\"tag\":100,\"guessed_faults\":2}]") &&
		!strstr(t, "\"tagged_faults\"") &&
		!strstr(t, "\"distinct_tags\"") &&
		!strstr(t, "\"fault_tags\"") && !strstr(t, "\"faults\":2"),
		"tt_tags_json: guessed fault tags: fault_pointer registers, "
		"guessed_tagged_faults, guessed_distinct_tags, "
		"guessed_fault_tags, wide guessed_faults, no exact names"))
		tap_quote("got:", t);
	mem_free(&m);

	tt_tags_text(mem_open(&m), &r, src_all, 1);
	is_str(mem_text(&m),
	       "~: fault tags guessed from registers, not read from the fault event\n"
	       "PID 10 hw  lam_u57 6 bits\n"
	       "  5 untags, 4 faults (~1 with a tag); ~3 distinct tags\n"
	       "  TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT   TAG  UNTAG FAULT\n"
	       "    0      0    ~3     1      3    ~1    63      2    ~0   100      0    ~2\n"
	       "  untags by system call: write 3, none 1, uname 1\n"
	       "(1 more)\n",
	       "tt_tags_text: guessed fault counts marked ~, the mark said first");
	mem_free(&m);
	tt_tagreport_free(&r);
}

/* trace: a fault record's tag is named guessed_ where it is a guess. */
static void test_guessed_record(void)
{
	struct tt_fmt guess = { .start_ns = 1000000000ULL,
				.fault_tags_guessed = true };
	struct tt_record r = rec_fault();

	check_json(&r, &guess,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"fault\","
		   "\"address\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"error_code\":\"0x6\",\"ip\":\"0x401234\","
		   "\"mode\":\"uai\",\"guessed_tagged\":true,\"guessed_tag\":31,"
		   "\"guessed_tagged_ptr\":\"0x3e00000000401000\"}\n",
		   "a fault's tag guessed from registers, named guessed_");
	check_text(&r, &guess,
		   "1.500000    2   100     101     app             fault  "
		   "0x3e00000000401000 -> 0x401000 err=0x6 ip=0x401234 uai"
		   " guessed tagged tag=31 ptr=0x3e00000000401000\n",
		   "a fault's tag guessed from registers, said guessed");
	r.fault.tag = 0;
	r.fault.tagged = 0;
	check_json(&r, &guess,
		   "{\"ts_ns\":2500000000,\"cpu\":2,\"pid\":100,\"tid\":101,"
		   "\"comm\":\"app\",\"event\":\"fault\","
		   "\"address\":\"0x3e00000000401000\",\"untagged\":\"0x401000\","
		   "\"error_code\":\"0x6\",\"ip\":\"0x401234\","
		   "\"mode\":\"uai\",\"guessed_tagged\":false,\"guessed_tag\":0}\n",
		   "a fault guessed untagged, named guessed_");
	check_text(&r, &guess,
		   "1.500000    2   100     101     app             fault  "
		   "0x3e00000000401000 -> 0x401000 err=0x6 ip=0x401234 uai"
		   " guessed untagged\n",
		   "a fault guessed untagged, said guessed");
}

/*
 * OpenMetrics: guessed fault tags in families of their own, never in the
 * exact ones, and tagtrace_source_info says which the file has.
 */
static void test_guessed_openmetrics(void)
{
	struct tt_tagreport r = { 0 };
	struct tt_snapshot s = { 0 };
	struct tt_export x;
	char *t;

	tag_fixture(&r);
	add_key(&s, 10, 5, proc("hw", TT_MODE_LAM_U57, 6, 1, 5, 0, 4, 0), false);
	s.rows[0].tagged_faults = 1;
	s.fault_tags_guessed = true;
	x = om_export(&s, NULL, 0, 0);
	x.hist_src = TT_SRC_NONE;
	x.tags = &r;
	t = om_text_x(&x);
	ok(strstr(t, "tagtrace_source_info{event=\"fault\",source=\"" OM_TP
		  "\",fault_pointer=\"registers\"} 1\n"),
	   "tt_openmetrics: guessed: tagtrace_source_info's fault_pointer registers");
	ok(strstr(t, OM_FWGT_META "tagtrace_faults_with_guessed_tag_total"
		  "{pid=\"10\",start_ns=\"5\"} 1\n") &&
	   !strstr(t, "tagtrace_faults_with_tag"),
	   "tt_openmetrics: guessed: tagtrace_faults_with_guessed_tag_total, "
	   "no tagtrace_faults_with_tag");
	if (!ok(strstr(t, "event=\"untag\",tag=\"63\"} 2\n"
			  "# TYPE tagtrace_guessed_tag_values counter\n") &&
		strstr(t, "tagtrace_guessed_tag_values_total{pid=\"10\","
			  "start_ns=\"5\",event=\"fault\",tag=\"0\"} 3\n"
			  "tagtrace_guessed_tag_values_total{pid=\"10\","
			  "start_ns=\"5\",event=\"fault\",tag=\"1\"} 1\n") &&
		!strstr(t, "tagtrace_tag_values_total{pid=\"10\","
			   "start_ns=\"5\",event=\"fault\""),
		"tt_openmetrics: guessed: fault tag values in "
		"tagtrace_guessed_tag_values alone, untags where they were"))
		tap_quote("got:", t);
	free(t);
	tt_tagreport_free(&r);
	tt_snapshot_free(&s);
}

/* The file's own health: when it was written, and the writes that failed. */
static void test_openmetrics_status(void)
{
	struct tt_snapshot s = { 0 };
	struct tt_export x = om_export(&s, NULL, 0, 0);
	char *t;

	x.written_ns = 5000000001ULL;
	x.write_failures = 2;
	t = om_text_x(&x);
	ok(!strncmp(t, "# TYPE tagtrace_openmetrics_last_success_timestamp_seconds gauge\n"
		    "# UNIT tagtrace_openmetrics_last_success_timestamp_seconds seconds\n", 131) &&
	   strstr(t, "\ntagtrace_openmetrics_last_success_timestamp_seconds 5.000\n") &&
	   strstr(t, "\ntagtrace_openmetrics_write_failures_total 2\n"),
	   "tt_openmetrics: first the time of writing, Unix seconds to the ms, "
	   "and the writes that failed");
	free(t);
}

/* ---- procset.c ---------------------------------------------------------- */

/*
 * A burst of exits pruned from the syscalls map: NR_PROCS processes with
 * SYS_PER_PROC system-call entries each (the map's 4 * 10240), of which
 * NR_GONE are pruned in one report. Entries come in a scrambled order, as
 * a hash map walks them; the gone processes are passed in another.
 */
#define NR_PROCS	10240
#define NR_GONE		10000
#define SYS_PER_PROC	4

static struct tt_proc_key burst_proc(unsigned int i)
{
	struct tt_proc_key k = {
		.tgid = 100 + (i * 7919) % 32768,	/* not in order */
		.start_ns = 1000000ULL * i,
	};

	return k;
}

static void test_procset_burst(void)
{
	static struct tt_proc_key gone[NR_GONE];
	struct tt_procset s;
	size_t i, n = NR_PROCS * SYS_PER_PROC, wrong = 0, bound, log2n = 0;

	for (i = 0; i < NR_GONE; i++)	/* every process but the last 240 */
		gone[i] = burst_proc((i * 3001) % NR_GONE);
	if (tt_procset_init(&s, gone, NR_GONE, sizeof(struct tt_sys_key)))
		die("tt_procset_init");
	for (i = 0; i < n; i++) {
		size_t e = (i * 40009) % n;	/* 40009 is prime: a permutation */
		struct tt_sys_key key = {
			.proc = burst_proc(e / SYS_PER_PROC),
			.nr = e % SYS_PER_PROC,
		};

		if (tt_procset_collect(&key, NULL, &s))
			die("tt_procset_collect");
	}
	for (i = 0; i < s.nr; i++) {
		const struct tt_sys_key *k =
			(const void *)(s.keys + i * sizeof(struct tt_sys_key));

		if (k->proc.start_ns / 1000000 >= NR_GONE)
			wrong++;
	}
	is_uint(s.nr, NR_GONE * SYS_PER_PROC,
		"tt_procset_collect: every entry of the %d gone processes kept",
		NR_GONE);
	is_uint(wrong, 0, "tt_procset_collect: no entry of a live process kept");
	while ((2UL << log2n) <= NR_GONE)
		log2n++;
	/* A sort and a binary search per entry: (n + E) (log2 n + 2) at most. */
	bound = (NR_GONE + n) * (log2n + 2);
	tap_diag("prune of %d exits over %zu syscalls entries: %llu key comparisons (bound %zu)",
		 NR_GONE, n, s.compares, bound);
	ok(s.compares <= bound,
	   "tt_procset: %d exits over %zu entries in %llu comparisons, at most %zu",
	   NR_GONE, n, s.compares, bound);
	tt_procset_free(&s);
}

static void test_procset(void)
{
	struct tt_proc_key keys[] = {
		{ .tgid = 7, .start_ns = 30 }, { .tgid = 3, .start_ns = 10 },
		{ .tgid = 7, .start_ns = 20 },
	};
	struct tt_proc_key probe = { .tgid = 7, .start_ns = 20 };
	struct tt_procset s;

	if (tt_procset_init(&s, keys, 3, sizeof(struct tt_proc_key)))
		die("tt_procset_init");
	ok(tt_procset_has(&s, &probe), "tt_procset_has: a process in the set");
	probe.start_ns = 25;
	ok(!tt_procset_has(&s, &probe),
	   "tt_procset_has: the same PID started at another time is not");
	probe.tgid = 3;
	probe.start_ns = 10;
	ok(tt_procset_has(&s, &probe), "tt_procset_has: the smallest key");
	probe.tgid = 8;
	ok(!tt_procset_has(&s, &probe), "tt_procset_has: past the largest");
	tt_procset_free(&s);
	if (tt_procset_init(&s, NULL, 0, sizeof(struct tt_proc_key)))
		die("tt_procset_init");
	ok(!tt_procset_has(&s, &probe), "tt_procset_has: an empty set has none");
	ok(!tt_procset_collect(&probe, NULL, &s) && !s.nr,
	   "tt_procset_collect: nothing kept from an empty set");
	tt_procset_free(&s);
	test_procset_burst();
}

/* tt_tag_offset(): where the fallback ctrl's offset comes from. */
static void test_tag_offset(void)
{
	static const struct {
		__u64 mask;
		int offset;
		const char *what;
	} cases[] = {
		{ ~(0x3fULL << 57), 57, "LAM_U57: 6 bits at 57" },
		{ ~(0x7fffULL << 48), 48, "LAM_U48: 15 bits at 48" },
		{ ~(0x7fULL << 57), 57, "bits 63:57 cleared: still 57" },
		{ ~(1ULL << 63), 63, "bit 63 alone" },
		{ ~1ULL, 0, "bit 0" },
		{ ~0ULL, 0, "a mask that clears nothing" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(tt_tag_offset(cases[i].mask), cases[i].offset,
		       "tt_tag_offset: %s", cases[i].what);
}

int main(void)
{
	test_tag_offset();
	test_procset();
	test_cli_defaults();
	test_cli_trace();
	test_cli_ringbuf();
	test_cli_top_hist();
	test_cli_errors();
	test_cli_help();
	cli_free_args();
	test_names();
	test_parse_events();
	test_json();
	test_json_long();
	test_json_utf8();
	test_ksyms();
	test_ksyms_has();
	test_record();
	test_table();
	test_histfmt();
	test_stop();
	test_caps();
	test_openmetrics();
	test_sysnames();
	test_btf_find();
	test_no_tagging();
	test_btf_tp_args();
	test_tagfmt();
	test_tags_locs();
	test_tagreport_many();
	test_tagreport_interval();
	test_openmetrics_tag_values();
	test_openmetrics_places();
	test_tags_wide();
	test_guessed_top();
	test_guessed_tags();
	test_guessed_record();
	test_guessed_openmetrics();
	test_openmetrics_status();
	test_out();
	test_uncounted_text();
	test_record_cached_sym();
	test_usym();
	test_record_frames();
	test_terminal_safety();
	return tap_done();
}
