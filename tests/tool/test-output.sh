#!/bin/bash
# tagtrace in the guest: write errors reach the exit status (a full
# tmpfs: exit 1 and one line; `| head -1`: exit 0; an OpenMetrics file
# that cannot be written: top stops after 3 failed writes, exit 1, the
# file left in place saying how old it is), a comm of escape
# sequences printed safe in every text report, `tags` on a long run (3000
# short-lived tagged processes, then one whose tag histogram is exact and
# first), its process map full with no tag value kept for a process
# without a row, -p of a thread and inside a PID namespace, OpenMetrics series
# that outlive exec, switch_mm timed by top only with --histograms, and
# the outgoing mm without cpu_tlbstate when the BTF lacks that variable
# (chosen at once, or retried after the kernel refused it), and untags in
# NMI context counted or reported missed, exactly, by top and by each of
# trace's streams (a test module,
# make modules-rig).
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

tap_guest --cpu lam -- tests/tool/output-guest.sh
tap_guest --cpu lam -- tests/tool/omfull-guest.sh
tap_guest --cpu lam --timeout 900 -- tests/tool/longtags-guest.sh 3000
tap_guest --cpu lam --timeout 900 -- tests/tool/procfull-guest.sh 10300 50
tap_guest --cpu lam -- tests/tool/pidns-guest.sh 40
tap_guest --cpu lam -- tests/tool/omseries-guest.sh 30 20
# This kernel's BTF as pahole writes it with per-CPU variables left out.
novars=build/tool/vmlinux-novars.btf
pahole --btf_encode_detached=$novars --skip_encoding_btf_vars build/linux/vmlinux \
	> build/tool/pahole.log 2>&1
ok $? "pahole wrote $novars" "$(tail -n 5 build/tool/pahole.log)"
tap_guest --cpu lam -- tests/tool/btf-guest.sh $novars
nmi=build/vm/modules/nmi_untag.ko
[ -f $nmi ]
ok $? "$nmi is built" "run 'make modules-rig'"
tap_guest --cpu lam --smp 2 -- tests/tool/nmi-guest.sh 10000 1000

tap_done
