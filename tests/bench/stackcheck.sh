#!/bin/bash
# What the emulator's stack-reference check costs: the
# same guest workload on three emulated CPUs,
#   lam          LAM with LASS (every CPU that ships LAM has LASS)
#   lam-nolass   LAM alone (--no-lass)
#   none         neither: what stock QEMU 7.2 translates, no check at all
# under each QEMU binary given, e.g.
#   STACKCHECK_QEMU="before:/path/a after:/path/b" tests/bench/stackcheck.sh
# (default: "patched:build/qemu-src/build/qemu-system-x86_64"); a binary
# given as NAME:PATH@CPU,... boots only those CPUs (Debian's own QEMU has
# no LAM or LASS: "stock:/usr/bin/qemu-system-x86_64@none"). The boots
# are interleaved (each round boots every binary on every CPU once), so
# that the machine's load drifts over all of them alike.
#
# Per boot (tests/bench/stackcheck-guest.sh):
#   push, call  tests/bench/stackloop.c: a loop of PUSH/POP pairs and one of
#               calls of a function with a frame, against a loop of the
#               same register work, in thousandths; the loops run in turns
#               of a few tens of ms, so host load falls on all alike: the
#               figures that a shared, loaded machine moves least
#   cc, exec, sched  ordinary code, user and kernel, full of PUSH, CALL,
#               RET and %rsp/%rbp-relative locals: one gcc -O2 compile
#               (gcc and cc1 read over 9p before, untimed), 100 fork+exec
#               of /bin/true, `perf bench sched messaging`: guest wall ms
#   cpu         the host CPU time of the whole rig run, boot included
#               (user + system, ms), which other jobs disturb less than
#               wall time
# STACKCHECK_WORK=micro runs push and call only (and cpu, of that run);
# STACKCHECK_CPUS="lam none" boots a subset of the CPUs.
#
# Printed per binary and CPU: median [min-max] of each figure over the
# boots; then, by tests/bench/verdict.py's one criterion (median ratio,
# interval of all pairs, at least 5 boots), each later binary against the
# first on the same CPU (goal <= 1: not slower), and lam and lam-nolass
# against none under each binary (goal <= 1.05). Exit 1 on any MISS.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
boots=${STACKCHECK_BOOTS:-5}
qemus=${STACKCHECK_QEMU:-patched:build/qemu-src/build/qemu-system-x86_64}
cpus=${STACKCHECK_CPUS:-lam lam-nolass none}
if [ "${STACKCHECK_WORK:-all}" = micro ]; then
	figs="push call cpu" work=micro
else
	figs="push call cc exec sched cpu" work=
fi
log=${STACKCHECK_LOG:-/dev/null}

names=()
declare -A path only
for q in $qemus; do
	n=${q%%:*} p=${q#*:}
	case $p in *@*) only[$n]=" ${p#*@} " only[$n]=${only[$n]//,/ } p=${p%@*} ;; esac
	[ -x "$p" ] || { echo "stackcheck: no QEMU binary $p" >&2; exit 1; }
	names+=("$n") path[$n]=$p
done
# boots NAME CPU: whether binary NAME boots CPU.
boots() { [ -z "${only[$1]:-}" ] || [[ ${only[$1]} = *" $2 "* ]]; }

declare -A fig
add() { fig[$1]+="$2 "; }
val() { sed -n "s/^$1=//p" <<< "$2" | head -1; }

for i in $(seq "$boots"); do
	for n in "${names[@]}"; do
		p=${path[$n]}
		for c in $cpus; do
			boots "$n" "$c" || continue
			case $c in
			lam) args=(--cpu lam) ;;
			lam-nolass) args=(--cpu lam --no-lass) ;;
			none) args=(--cpu none) ;;
			esac
			t0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
			out=$(TAGTRACE_QEMU=$p tests/vm/run "${args[@]}" -- \
				tests/bench/stackcheck-guest.sh $work) || {
				echo "stackcheck: $n $c: the guest failed:" >&2
				echo "$out" >&2
				exit 1
			}
			# Clock ticks of reaped children: the rig and its QEMU.
			t1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
			cpu=$(((t1 - t0) * 1000 / $(getconf CLK_TCK)))
			echo "round $i $n $c: $(tr '\n' ' ' <<< "$out")cpu_ms=$cpu" >> "$log"
			for f in $figs; do
				case $f in
				push|call) k=${f}_per_mille v=$(val "$k" "$out") ;;
				cpu) k=cpu v=$cpu ;;
				*) k=${f}_ms v=$(val "$k" "$out") ;;
				esac
				[ -n "$v" ] || { echo "stackcheck: no $k from $n $c" >&2; exit 1; }
				add "$n/$c/$f" "$v"
			done
		done
	done
done

# median FIGURES...: "median min max" (the lower middle for an even count)
median()
{
	printf '%s\n' "$@" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%s [%s-%s]", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

echo "== median [min-max] of $boots boots: push, call per mille of alu; ms of gcc -O2, 100 fork+exec, sched messaging, host CPU of the run"
for n in "${names[@]}"; do
	for c in $cpus; do
		boots "$n" "$c" || continue
		line=$(printf '%-8s %-10s' "$n" "$c")
		for f in $figs; do
			# shellcheck disable=SC2086
			line+=$(printf '  %s %s' $f "$(median ${fig[$n/$c/$f]})")
		done
		echo "$line"
	done
done

st=0
first=${names[0]}
for n in "${names[@]:1}"; do
	echo "== $n against $first, same CPU (b/a; goal <= 1)"
	for c in $cpus; do
		boots "$first" "$c" && boots "$n" "$c" || continue
		for f in $figs; do
			# shellcheck disable=SC2086
			tests/bench/verdict.py "$c/$f" 1 ${fig[$first/$c/$f]} -- \
				${fig[$n/$c/$f]} || st=1
		done
	done
done
[[ " $cpus " = *" none "* ]] && for n in "${names[@]}"; do
	boots "$n" none || continue
	head="== $n: lam and lam-nolass against none (b/a; goal <= 1.05)"
	for c in $cpus; do
		[ "$c" = none ] && continue
		boots "$n" "$c" || continue
		[ -z "$head" ] || { echo "$head"; head=; }
		for f in $figs; do
			# shellcheck disable=SC2086
			tests/bench/verdict.py "$c/$f" 1.05 ${fig[$n/none/$f]} -- \
				${fig[$n/$c/$f]} || st=1
		done
	done
done
exit $st
