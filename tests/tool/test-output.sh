#!/bin/bash
# tagtrace in the guest, issue 33: write errors reach the exit status (a
# full tmpfs: exit 1 and one line; `| head -1`: exit 0), a comm of escape
# sequences printed safe in every text report, `tags` on a long run (3000
# short-lived tagged processes, then one whose tag histogram is exact and
# first), and -p of a thread and inside a PID namespace.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

tap_guest --cpu lam -- tests/tool/output-guest.sh
tap_guest --cpu lam --timeout 900 -- tests/tool/longtags-guest.sh 3000
tap_guest --cpu lam -- tests/tool/pidns-guest.sh 40

tap_done
