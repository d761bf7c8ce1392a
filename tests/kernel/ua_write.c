// SPDX-License-Identifier: GPL-2.0
/*
 * ua_write FILE VALUE [TAG]: enable tagging if TAG is given (not 0), then
 * write the int VALUE to FILE from a buffer addressed through a pointer
 * with TAG in bits 62:57. Exit status 0 if the write took all 4 bytes;
 * says what went wrong otherwise. For tests/kernel/module-guest.sh: the
 * test module ua_ds checks the pointer in its own code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../lib/tagging.h"

int main(int argc, char **argv)
{
	unsigned long tag;
	ssize_t n;
	int fd, v;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s FILE VALUE [TAG]\n", argv[0]);
		return 2;
	}
	v = atoi(argv[2]);
	tag = argc == 4 ? strtoul(argv[3], NULL, 0) : 0;
	if (tag && arch_prctl(ARCH_ENABLE_TAGGED_ADDR, TAG_BITS)) {
		fprintf(stderr, "%s: ARCH_ENABLE_TAGGED_ADDR: %s\n", argv[0],
			strerror(errno));
		return 1;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], strerror(errno));
		return 1;
	}
	n = write(fd, tag_ptr(&v, tag), sizeof(v));
	if (n != sizeof(v)) {
		fprintf(stderr, "%s: write through tag %#lx: %s\n", argv[0], tag,
			n < 0 ? strerror(errno) : "short");
		return 1;
	}
	return 0;
}
