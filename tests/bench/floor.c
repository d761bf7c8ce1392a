// SPDX-License-Identifier: GPL-2.0
/*
 * floor OBJ PROG: load only program PROG of OBJ (floor.bpf.o: empty, count
 * or ringbuf), attach it, print "floor: attached" and run until SIGINT or
 * SIGTERM, consuming and discarding ring-buffer records (ringbuf). Then
 * print "floor: N events, M dropped": what count counted, or the records
 * ringbuf consumed and the reserves that failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int discard(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	++*(unsigned long long *)ctx;
	return 0;
}

/* The sum over CPUs of the per-CPU counter MAP. */
static unsigned long long percpu_sum(struct bpf_object *obj, const char *map)
{
	int n = libbpf_num_possible_cpus(), i;
	unsigned long long v[n > 0 ? n : 1], sum = 0;
	__u32 zero = 0;

	if (n <= 0 || bpf_map_lookup_elem(
			bpf_object__find_map_fd_by_name(obj, map), &zero, v))
		return 0;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long long events = 0;
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog, *p;

	if (argc != 3) {
		fprintf(stderr, "usage: floor OBJ empty|count|ringbuf\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	prog = obj ? bpf_object__find_program_by_name(obj, argv[2]) : NULL;
	if (!prog) {
		fprintf(stderr, "floor: no program %s in %s\n", argv[2], argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	if (bpf_object__load(obj) || !bpf_program__attach(prog)) {
		fprintf(stderr, "floor: cannot load or attach %s: %s\n",
			argv[2], strerror(errno));
		return 1;
	}
	if (!strcmp(argv[2], "ringbuf"))
		rb = ring_buffer__new(bpf_object__find_map_fd_by_name(obj, "rb"),
				      discard, &events, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fputs("floor: attached\n", stderr);
	while (!stop) {
		if (rb)
			ring_buffer__poll(rb, 100);
		else
			usleep(100000);
	}
	if (rb)
		ring_buffer__consume(rb);
	else
		events = percpu_sum(obj, "counts");
	fprintf(stderr, "floor: %llu events, %llu dropped\n", events,
		percpu_sum(obj, "drops"));
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return 0;
}
