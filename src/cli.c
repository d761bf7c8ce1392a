// SPDX-License-Identifier: GPL-2.0
/*
 * Command line: "tagtrace COMMAND [OPTION...]" into struct tt_env. One argp
 * parser per command, the options they share handled once. Nothing here
 * touches the kernel, so the unit tests run it on the host.
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "names.h"

enum {
	OPT_JSON = 0x100,
	OPT_RINGBUF,
	OPT_OPENMETRICS,
	OPT_US,
	OPT_TAG_VALUES,
	OPT_HISTOGRAMS,
	OPT_BTF,
	OPT_STACK,
	OPT_VERSION,
	OPT_HELP,
};

#define COMMON_OPTIONS							\
	{ "pid", 'p', "PID", 0, "Only this process (thread group id)", 0 }, \
	{ "comm", 'c', "COMM", 0, "Only tasks (threads) named COMM", 0 }, \
	{ "json", OPT_JSON, NULL, 0, "Machine output: one JSON object a line", 0 }, \
	{ "attach", 'A', "MODE", 0,					\
	  "auto (default), btf (tp_btf/fentry), raw (raw_tp/kprobe), "	\
	  "fallback (ignore the tagged_addr events)", 0 },		\
	{ "verbose", 'v', NULL, 0,					\
	  "libbpf's debug output, and tagtrace's timings, on stderr", 0 }, \
	{ "btf", OPT_BTF, "FILE", 0,					\
	  "Choose programs and relocate fields by the types in FILE "	\
	  "instead of /sys/kernel/btf/vmlinux", 0 },			\
	{ "help", OPT_HELP, NULL, 0, "This help", -1 },			\
	{ "version", OPT_VERSION, NULL, 0, "Print the version", -1 }

#define REPORT_OPTIONS							\
	{ "interval", 'i', "SEC", 0, "Seconds between reports (default 1)", 0 }, \
	{ "count", 'n', "COUNT", 0, "Stop after COUNT reports", 0 }

static const struct argp_option trace_options[] = {
	COMMON_OPTIONS,
	{ "events", 'e', "LIST", 0,
	  "Events to show: ctrl,untag,switch,fault,gp (default all)", 0 },
	{ "duration", 'd', "SEC", 0, "Stop SEC seconds after attaching", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "BYTES", 0,
	  "Ring buffer size, a power of two from 4K to 1G; K and M suffixes "
	  "(default 1M)",
	  0 },
	{ "stack", OPT_STACK, NULL, 0,
	  "Tagged faults and #GPs with the user stack (frame pointers), not "
	  "only the function that faulted", 0 },
	{},
};

static const struct argp_option top_options[] = {
	COMMON_OPTIONS,
	REPORT_OPTIONS,
	{ "openmetrics", OPT_OPENMETRICS, "FILE", 0,
	  "Also rewrite FILE each interval in OpenMetrics text format", 0 },
	{ "tag-values", OPT_TAG_VALUES, NULL, 0,
	  "With --openmetrics: per-process counts of each tag value too", 0 },
	{ "histograms", OPT_HISTOGRAMS, NULL, 0,
	  "With --openmetrics: switch_mm time histograms too (a probe on every "
	  "context switch of the system)", 0 },
	{},
};

static const struct argp_option tags_options[] = {
	COMMON_OPTIONS,
	REPORT_OPTIONS,
	{},
};

static const struct argp_option hist_options[] = {
	COMMON_OPTIONS,
	REPORT_OPTIONS,
	{ "us", OPT_US, NULL, 0, "Histograms in microseconds (default ns)", 0 },
	{},
};

static const char trace_doc[] =
"Print one line per tagged-address event.\v"
"EXAMPLES:\n"
"  tagtrace trace                  # every event, until Ctrl-C\n"
"  tagtrace trace -p 181 -d 10     # process 181 for ten seconds\n"
"  tagtrace trace -e ctrl,fault    # enables, disables, queries and faults\n"
"  tagtrace trace -e fault,gp --stack  # misuse, with its user stack\n"
"  tagtrace trace --json | jq .    # NDJSON, the tracepoints' field names";

static const char top_doc[] =
"Per-process tagging activity, refreshed every interval.\v"
"Columns: MODE as of the process's last event, BITS as of its last ctrl\n"
"event or exec; then, since tagtrace started, CTRL calls, UNTAGs, mode\n"
"SWITCHes (counted for the process switched away from), FAULTs (in tagged\n"
"processes or at tagged addresses), TAGFLT (those faults whose pointer\n"
"carried a tag) and GPs (#GP/#SS); busiest first.\n"
"EXAMPLES:\n"
"  tagtrace top                    # refresh every second\n"
"  tagtrace top -c redis -i 5      # processes named redis, every 5 s\n"
"  tagtrace top -n 1 -i 10 --json  # one 10 s report as JSON\n"
"  tagtrace top --openmetrics /var/lib/node_exporter/tagtrace.prom";

static const char tags_doc[] =
"Per process, the tag values its pointers carried and the system calls\n"
"that brought them to the kernel, refreshed every interval.\v"
"For each process: untags and faults by tag value (0 is an untagged\n"
"pointer; past 63 on LAM_U48), the number of distinct tags, how many\n"
"faults carried a tag, where its tagged faults and #GPs happened, and\n"
"untags by system call, since tagtrace started.\n"
"EXAMPLES:\n"
"  tagtrace tags                   # every process, every second\n"
"  tagtrace tags -c myprog -i 10   # processes named myprog, every 10 s\n"
"  tagtrace tags -p 181 -n 1 --json  # one report as JSON";

static const char hist_doc[] =
"Log2 histograms of the time spent in switch_mm_irqs_off, one per\n"
"mode transition (prev mode -> next mode, or the same mm).\v"
"EXAMPLES:\n"
"  tagtrace hist                   # every second, until Ctrl-C\n"
"  tagtrace hist -i 10 -n 1 --us   # one 10 s report in microseconds\n"
"  tagtrace hist --json            # bucket bounds and units in JSON";

struct cmd {
	const char *name;
	enum tt_cmd cmd;
	const struct argp_option *options;
	const char *doc;
};

static const struct cmd cmds[] = {
	{ "trace", TT_CMD_TRACE, trace_options, trace_doc },
	{ "top", TT_CMD_TOP, top_options, top_doc },
	{ "hist", TT_CMD_HIST, hist_options, hist_doc },
	{ "tags", TT_CMD_TAGS, tags_options, tags_doc },
};

static const char usage[] =
"Usage: tagtrace COMMAND [OPTION...]\n"
"Observe x86 user pointer tagging (Intel LAM, AMD UAI) through the kernel's\n"
"tagged_addr tracepoints, with fallbacks for kernels without them.\n"
"\n"
"Commands:\n"
"  trace   one line per event: ctrl calls, untags, mode switches, faults, #GPs\n"
"  top     per-process table of tagging activity\n"
"  hist    context-switch (switch_mm) latency histograms by mode transition\n"
"  tags    per-process tag values, and the system calls that carried them\n"
"\n"
"'tagtrace COMMAND --help' lists a command's options.\n"
"Needs CAP_BPF and CAP_PERFMON (root has them), or CAP_SYS_ADMIN.\n";

struct state {
	struct tt_env *env;
	bool done;
	bool failed;	/* an error was printed */
};

/*
 * One line, then stop the parse. argp's own error report would add a hint
 * naming --usage, which ARGP_NO_HELP takes away, so errors are ours.
 */
static error_t fail(const struct argp_state *st, const char *fmt, ...)
{
	struct state *s = st->input;
	va_list ap;

	s->failed = true;
	fprintf(stderr, "%s: ", st->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s --help')\n", st->name);
	return EINVAL;
}

#define FAIL(st, ...) fail(st, __VA_ARGS__)

static int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static int parse_long(const char *arg, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_size(const char *arg, __u32 *out)
{
	const unsigned long long max = 1ULL << 30;
	unsigned long long v;
	int shift = 0;
	char *end;

	/* strtoull() would take leading blanks and a minus sign. */
	if (!isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	if (*end || v > max >> shift)
		return -1;
	v <<= shift;
	if (v < 4096 || (v & (v - 1)))
		return -1;
	*out = v;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct state *s = st->input;
	struct tt_env *env = s->env;
	char bad[32];
	long v;

	switch (key) {
	case 'p':
		if (parse_long(arg, INT_MAX, &v))
			return FAIL(st, "invalid PID '%s'", arg);
		env->pid = v;
		break;
	case 'c':
		if (strlen(arg) >= TT_COMM_LEN)
			return FAIL(st, "COMM '%s' is longer than the %d characters the kernel keeps",
				     arg, TT_COMM_LEN - 1);
		if (!*arg)
			return FAIL(st, "empty COMM");
		strcpy(env->comm, arg);
		break;
	case 'e':
		if (tt_parse_events(arg, &env->events, bad, sizeof(bad)))
			return FAIL(st, "unknown event '%s' (ctrl, untag, switch, fault, gp)",
				    bad);
		break;
	case 'd':
		if (parse_seconds(arg, &env->duration))
			return FAIL(st, "invalid duration '%s' (seconds > 0)", arg);
		break;
	case 'i':
		if (parse_seconds(arg, &env->interval))
			return FAIL(st, "invalid interval '%s' (seconds > 0)", arg);
		break;
	case 'n':
		if (parse_long(arg, INT_MAX, &env->count))
			return FAIL(st, "invalid count '%s' (a positive integer)", arg);
		break;
	case 'A':
		if (!strcmp(arg, "auto"))
			env->attach = TT_ATTACH_AUTO;
		else if (!strcmp(arg, "btf"))
			env->attach = TT_ATTACH_BTF;
		else if (!strcmp(arg, "raw"))
			env->attach = TT_ATTACH_RAW;
		else if (!strcmp(arg, "fallback"))
			env->attach = TT_ATTACH_FALLBACK;
		else
			return FAIL(st, "unknown attach mode '%s' (auto, btf, raw, fallback)",
				    arg);
		break;
	case 'v':
		env->verbose = true;
		break;
	case OPT_JSON:
		env->json = true;
		break;
	case OPT_RINGBUF:
		if (parse_size(arg, &env->ringbuf_size))
			return FAIL(st, "invalid ring buffer size '%s' (a power of two, 4K to 1G)",
				    arg);
		break;
	case OPT_OPENMETRICS:
		if (!*arg)
			return FAIL(st, "empty --openmetrics file name");
		env->openmetrics = arg;
		break;
	case OPT_STACK:
		env->stack = true;
		break;
	case OPT_US:
		env->usec = true;
		break;
	case OPT_TAG_VALUES:
		env->tag_values = true;
		break;
	case OPT_HISTOGRAMS:
		env->histograms = true;
		break;
	case OPT_BTF:
		if (!*arg)
			return FAIL(st, "empty --btf file name");
		env->btf = arg;
		break;
	case OPT_HELP:
		/* argp_state_help() is silent under ARGP_NO_ERRS. */
		argp_help(st->root_argp, stdout, ARGP_HELP_STD_HELP, st->name);
		s->done = true;
		break;
	case OPT_VERSION:
		printf("tagtrace %s\n", TT_VERSION);
		s->done = true;
		break;
	case ARGP_KEY_ARG:
		return FAIL(st, "unexpected argument '%s'", arg);
	case ARGP_KEY_ERROR:
		/* getopt is quiet under ARGP_NO_ERRS: name the culprit. */
		if (st->next > 0 && st->next <= st->argc && !s->failed)
			FAIL(st, "unknown option or missing value in '%s'",
			     st->argv[st->next - 1]);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* argp's errors go to stderr as "tagtrace trace: msg" plus a --help hint. */
enum tt_cli_result tt_cli_parse(int argc, char **argv, struct tt_env *env)
{
	struct state s = { .env = env };
	const struct cmd *c = NULL;
	char name[32];
	size_t i;

	memset(env, 0, sizeof(*env));
	env->events = TT_ALL_EVENTS;
	env->interval = 1;
	env->ringbuf_size = TT_DEFAULT_RINGBUF;

	if (argc < 2) {
		fputs("tagtrace: missing COMMAND (trace, top, hist or tags); try 'tagtrace --help'\n",
		      stderr);
		return TT_CLI_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		return TT_CLI_DONE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("tagtrace %s\n", TT_VERSION);
		return TT_CLI_DONE;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			c = &cmds[i];
	if (!c) {
		fprintf(stderr, "tagtrace: unknown command '%s' (trace, top, hist or tags); try 'tagtrace --help'\n",
			argv[1]);
		return TT_CLI_ERROR;
	}
	env->cmd = c->cmd;
	snprintf(name, sizeof(name), "tagtrace %s", c->name);

	{
		struct argp argp = {
			.options = c->options,
			.parser = parse_opt,
			.doc = c->doc,
		};
		char *saved = argv[1];
		int err;

		/* argp names the program after argv[0]: "tagtrace trace". */
		argv[1] = name;
		err = argp_parse(&argp, argc - 1, argv + 1,
				 ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS, NULL,
				 &s);
		argv[1] = saved;
		if (err)
			return TT_CLI_ERROR;
	}
	if (s.done)
		return TT_CLI_DONE;
	if ((env->tag_values || env->histograms) && !env->openmetrics) {
		fprintf(stderr, "%s: --%s needs --openmetrics FILE (see '%s --help')\n",
			name, env->tag_values ? "tag-values" : "histograms",
			name);
		return TT_CLI_ERROR;
	}
	return TT_CLI_RUN;
}
