// SPDX-License-Identifier: GPL-2.0
/*
 * nobpf CMD [ARG...]: run CMD where every bpf(2) call fails with ENOSYS,
 * as on a kernel built without CONFIG_BPF_SYSCALL, through a seccomp
 * filter that exec keeps. tests/tool/errors-guest.sh uses it for
 * tagtrace's "BPF is unavailable" error, which no guest kernel of the rig
 * would otherwise give to root.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int main(int argc, char **argv)
{
	struct sock_filter deny_bpf[] = {
		/* Another ABI's call numbers mean other calls: let them be. */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(deny_bpf),
		.filter = deny_bpf,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: nobpf CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("nobpf: seccomp filter");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
