#!/bin/bash
# prove --exec tests/lib/record.sh FILE: run one test file as prove runs it
# with --exec '' and keep its TAP and exit status in build/logs/results/,
# where tests/lib/summary.sh counts them at the end of `make check`.
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/build/logs/results
mkdir -p "$dir" || exit 1
name=$(printf '%s' "$1" | tr / %)
set -o pipefail
"$@" 2>&1 | tee "$dir/$name.tap"
rc=$?
echo "$rc" > "$dir/$name.rc"
exit $rc
