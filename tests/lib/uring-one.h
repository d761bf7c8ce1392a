/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uring_ops(), uring_one(): io_uring operations on a ring of their own,
 * without liburing, for the guest tests that pass user pointers through
 * io_uring (tests/lib/uaccess_paths.h, tests/kernel/noncanon.c).
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
 * Submits the n SQEs at sqe on a fresh four-entry ring, one after the
 * other, each waited for before the next (so a later one sees what an
 * earlier one did: buffers it provided): the first negative CQE res, or
 * the last one's; -10001 (no ring), -10002 (its rings not mapped as one)
 * or -10003 (io_uring_enter() failed) when the ring itself failed.
 */
static inline int uring_ops(const struct io_uring_sqe *sqe, int n)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *tail, *head, mask;
	size_t sz, sqes_sz;
	int ring, res = 0, i;
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
	head = (unsigned int *)(sq + p.cq_off.head);
	mask = *(unsigned int *)(sq + p.sq_off.ring_mask);
	for (i = 0; i < n && res >= 0; i++) {
		memcpy(&sqes[0], &sqe[i], sizeof(sqes[0]));
		((unsigned int *)(sq + p.sq_off.array))[*tail & mask] = 0;
		__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
		if (syscall(__NR_io_uring_enter, ring, 1, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			res = -10003;
			break;
		}
		cqe = (struct io_uring_cqe *)(sq + p.cq_off.cqes) +
		      (__atomic_load_n(head, __ATOMIC_ACQUIRE) &
		       *(unsigned int *)(sq + p.cq_off.ring_mask));
		res = cqe->res;
		__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	}
	munmap(sq, sz);
	munmap(sqes, sqes_sz);
	close(ring);
	return res;
}

/* One operation: uring_ops() of one SQE. */
static inline int uring_one(const struct io_uring_sqe *sqe)
{
	return uring_ops(sqe, 1);
}

#endif
