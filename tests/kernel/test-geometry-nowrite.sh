#!/bin/bash
# PR_SET_TAGGED_ADDR_CTRL proves its result pointers writable without
# writing them (kernel/series 2/0001, check_tagged_addr_geometry(), which
# x86 and arm64 share): an enable that fails with EFAULT on its offset
# pointer leaves *nr_bits unwritten, as a hardware write watchpoint on it
# shows (tests/kernel/geometry_nowrite.c). A probe that stored the value
# back could undo another thread's store made in between. On both
# backends, where tagging is offered.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

# shellcheck disable=SC2046
tap_guest $(offer lam) -- build/vm/geometry_nowrite
# shellcheck disable=SC2046
tap_guest $(offer uai) -- build/vm/geometry_nowrite
tap_done
