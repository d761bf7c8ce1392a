/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring_one(): one io_uring operation on a ring of its own, without
 * liburing, for the guest tests that pass user pointers through io_uring
 * (tests/lib/uaccess_paths.h, tests/kernel/noncanon.c).
 */
#ifndef TAGTRACE_URING_ONE_H
#define TAGTRACE_URING_ONE_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

/*
 * Submits *sqe on a fresh four-entry ring and waits for it: the CQE's res,
 * or -10001 (no ring), -10002 (its rings not mapped as one) or -10003
 * (io_uring_enter() failed) when the ring itself failed.
 */
static inline int uring_one(const struct io_uring_sqe *sqe)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *tail, mask;
	size_t sz, sqes_sz;
	int ring, res = -10003;
	char *sq;

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return -10001;
	sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	if (p.cq_off.cqes + p.cq_entries * sizeof(*cqe) > sz)
		sz = p.cq_off.cqes + p.cq_entries * sizeof(*cqe);
	sqes_sz = p.sq_entries * sizeof(*sqes);
	sq = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  ring, IORING_OFF_SQ_RING);
	sqes = mmap(NULL, sqes_sz, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (!(p.features & IORING_FEAT_SINGLE_MMAP) || sq == MAP_FAILED ||
	    sqes == MAP_FAILED) {
		if (sq != MAP_FAILED)
			munmap(sq, sz);
		if (sqes != MAP_FAILED)
			munmap(sqes, sqes_sz);
		close(ring);
		return -10002;
	}
	tail = (unsigned int *)(sq + p.sq_off.tail);
	mask = *(unsigned int *)(sq + p.sq_off.ring_mask);
	memcpy(&sqes[0], sqe, sizeof(sqes[0]));
	((unsigned int *)(sq + p.sq_off.array))[*tail & mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) >= 0) {
		cqe = (struct io_uring_cqe *)(sq + p.cq_off.cqes) +
		      (*(unsigned int *)(sq + p.cq_off.head) &
		       *(unsigned int *)(sq + p.cq_off.ring_mask));
		res = cqe->res;
	}
	munmap(sq, sz);
	munmap(sqes, sqes_sz);
	close(ring);
	return res;
}

#endif
