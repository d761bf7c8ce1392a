// SPDX-License-Identifier: GPL-2.0
/*
 * tp_btf_count OBJ CMD [ARG...]: load OBJ (tp_btf_count.bpf.o), attach its
 * tp_btf programs to the tagged_addr events, run CMD, and print how many
 * events of each kind the programs saw, "name=count" a line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static const char *const names[] = {
	"ctrl", "untag", "mode_switch", "fault", "gp"
};

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int fd, status, attached = 0;
	pid_t pid;
	__u32 i;

	if (argc < 3) {
		fprintf(stderr, "usage: tp_btf_count OBJ CMD [ARG...]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "tp_btf_count: cannot load %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "tp_btf_count: cannot attach %s: %s\n",
				bpf_program__name(prog), strerror(errno));
			return 1;
		}
		attached++;
	}
	printf("attached=%d\n", attached);
	fflush(stdout);

	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "tp_btf_count: %s failed\n", argv[2]);
		return 1;
	}
	fd = bpf_object__find_map_fd_by_name(obj, "counts");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		__u64 v = 0;

		bpf_map_lookup_elem(fd, &i, &v);
		printf("%s=%llu\n", names[i], (unsigned long long)v);
	}
	bpf_object__close(obj);
	return 0;
}
