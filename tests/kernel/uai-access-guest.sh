#!/bin/sh
# In the guest (tests/kernel/test-uai-access.sh): tagged pointers through
# the user accesses whose operand the compiler chooses, in TAP.
. tests/lib/guest-tap.sh
. tests/lib/guest-ok.sh

out=$(build/vm/sigfp_tagged 0x2a 2>&1)
ok $? "rt_sigreturn restores the FPU state through a tagged fpstate pointer"
printf '%s\n' "$out" | sed 's/^/# /'
out=$(build/vm/uaccess_bench 50 1 tagged 2>&1)
ok $? "getdents64, FUTEX_WAKE_OP, fstatat and a signal through tagged pointers"
printf '%s\n' "$out" | sed 's/^/# /'
tap_done
