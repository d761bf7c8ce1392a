#!/bin/sh
# emul-checks-guest.sh "FSGSBASE-ARGS" "CLFLUSH-ARGS": in the guest, run
# fsgsbase.c and clflush.c with those arguments, both whatever the first
# one's result; fails if either does.
vm=$(dirname "$0")/../../build/vm
# shellcheck disable=SC2086
"$vm/fsgsbase" $1
r=$?
# shellcheck disable=SC2086
"$vm/clflush" $2 || r=1
exit $r
