#!/bin/bash
# A process that uses UAI maps nothing at or above 47 bits (kernel/series
# 0009), MAP_HUGETLB and hugetlbfs files included, whose placement x86
# does in its own code: tests/kernel/mmap47.c on --cpu uai --la57 with
# UAI offered (mitigations=off), in the top-down and bottom-up layouts.
# Without the rule in hugetlb's search, a hint above 47 bits still
# opened the 5-level space there, and one MAP_NORESERVE mapping could
# cover 0x00ad000000000100, LIST_POISON1 as UAI accesses it. Fixed
# requests (MAP_FIXED_NOREPLACE, shmat(), mremap()) fail with ENOMEM there
# and unmap nothing below 47 bits on the way; and a process that hit a
# uprobe before enabling UAI has its XOL page below 47 bits (it was at the
# top of the 5-level space, and the enable answered EBUSY).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# shellcheck disable=SC2046
tap_guest $(offer uai) --la57 -- build/vm/mmap47
tap_done
