#!/bin/bash
# What the second invalidation of a store to a page with code costs:
# since tests/vm/qemu's "close the window" patch, a
# store through a TLB_NOTDIRTY entry, once in RAM, takes the page's lock
# and walks its TBs again (tb_invalidate_phys_stored()). Two QEMU
# binaries, the first without that call, the second with it:
#   NOTDIRTY_QEMU="without:/path/a with:/path/b" tests/bench/notdirty.sh
# Two figures per boot, the binaries interleaved round by round:
#   store   ns per 8-byte store to the data half of a page that holds a
#           translated function (tests/bench/notdirty.c, built in the
#           guest), every one of them through the notdirty path; beside
#           it, as a control, ns per store to a page without code
#   xmod    µs per write to sched/features in tests/vm/xmodify-guest.sh
#           (4 vCPUs, NOTDIRTY_SECONDS s): text_poke_bp() stores to
#           kernel text while three vCPUs run through the sites
#           (NOTDIRTY_SECONDS=0: not measured)
# and by tests/bench/verdict.py's criterion (median ratio, interval of all
# pairs, at least 5 boots) the second binary against the first: goal
# <= 1.05 for each. Exit 1 on any MISS.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
boots=${NOTDIRTY_BOOTS:-5}
secs=${NOTDIRTY_SECONDS:-15}
stores=${NOTDIRTY_STORES:-300000}
qemus=${NOTDIRTY_QEMU:?set NOTDIRTY_QEMU=\"NAME:QEMU NAME:QEMU\"}
log=${NOTDIRTY_LOG:-/dev/null}
[ -x build/vm/storm ] || { echo "run 'make rig'" >&2; exit 1; }

names=()
for q in $qemus; do
	p=${q#*:}
	[ -x "$p" ] || { echo "notdirty: no QEMU binary $p" >&2; exit 1; }
	names+=("${q%%:*}")
done
[ ${#names[@]} = 2 ] || { echo "notdirty: give two binaries" >&2; exit 1; }

declare -A fig
val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }
fail() { echo "notdirty: $1:" >&2; echo "$2" >&2; exit 1; }

for i in $(seq "$boots"); do
	for q in $qemus; do
		n=${q%%:*} p=${q#*:}
		out=$(TAGTRACE_QEMU=$p tests/vm/run -- sh -c \
			"gcc -O2 -o /tmp/notdirty tests/bench/notdirty.c &&
			 /tmp/notdirty $stores") || fail "$n store" "$out"
		c=$(val code_page_ns "$out") d=$(val data_page_ns "$out")
		if [ -z "$c" ] || [ -z "$d" ]; then
			fail "$n store: no figures" "$out"
		fi
		fig[$n/store]+="$c " fig[$n/data]+="$d "
		echo "round $i $n: code_page_ns=$c data_page_ns=$d" >> "$log"
		[ "$secs" = 0 ] && continue
		x=$(TAGTRACE_QEMU=$p tests/vm/run --cpu lam --smp 4 -- \
			tests/vm/xmodify-guest.sh "$secs") || fail "$n xmodify" "$x"
		w=$(sed -n 's/^ok - \([0-9]*\) writes to sched.*/\1/p' <<< "$x")
		if [ -z "$w" ] || [ "$w" = 0 ]; then
			fail "$n xmodify: no writes" "$x"
		fi
		fig[$n/xmod]+="$(awk -v s="$secs" -v w="$w" 'BEGIN { printf "%.0f", s * 1000000 / w }') "
		echo "round $i $n: xmodify_writes=$w in $secs s" >> "$log"
	done
done

a=${names[0]} b=${names[1]}
echo "== $b against $a: ns per store (code page, data page), µs per sched/features write; median of $boots boots [range]"
st=0
figs="store data"
[ "$secs" = 0 ] || figs+=" xmod"
for f in $figs; do
	# shellcheck disable=SC2086
	tests/bench/verdict.py "$f" 1.05 ${fig[$a/$f]} -- ${fig[$b/$f]} || st=1
done
exit $st
