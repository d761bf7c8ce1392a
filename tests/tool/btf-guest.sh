#!/bin/sh
# btf-guest.sh NOVARS: where the outgoing mm comes from when the BTF lacks
# the per-CPU variable cpu_tlbstate, which the kernel here has (kallsyms
# lists it, with KALLSYMS_ALL):
#  - detection: with --btf NOVARS (pahole --btf_encode_detached
#    --skip_encoding_btf_vars of this kernel), hist chooses last_switch
#    at once, without a refused load;
#  - the retry: the kernel's BTF as libbpf reads it lacks the variable (a
#    copy of /sys/kernel/btf/vmlinux with the name changed, same type ids,
#    bind-mounted over it) while --btf names a copy that has it, so the
#    probe chooses cpu_tlbstate and the verifier refuses the program:
#    tagtrace retries without it, still with fentry, and times switches.
# Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
NOVARS=$1
B=/sys/kernel/btf/vmlinux

# hist_once NAME ARGS...: one 0.5 s hist report; its stderr in $d/NAME.err.
hist_once()
{
	n=$1
	shift
	$TT hist --json -i 0.5 -n 1 "$@" > $d/$n.json 2> $d/$n.err
	echo $? > $d/$n.rc
	sed "s/^/# $n: /" $d/$n.err
}

# outgoing NAME: the outgoing_mm of the last sources line.
outgoing()
{
	sed -n 's/.* outgoing_mm=\([a-z_]*\).*/\1/p' $d/$1.err | tail -n 1
}

# switches NAME: the switches hist timed.
switches()
{
	python3 -c 'import json, sys
print(sum(h["count"] for l in open(sys.argv[1]) for h in json.loads(l)["histograms"]))' \
		$d/$1.json 2> /dev/null || echo 0
}

grep -qw cpu_tlbstate /proc/kallsyms &&
	echo "ok - kallsyms lists cpu_tlbstate" ||
	echo "not ok - kallsyms lists cpu_tlbstate"

hist_once plain
[ "$(cat $d/plain.rc)" = 0 ] && [ "$(outgoing plain)" = cpu_tlbstate ] &&
	echo "ok - with the kernel's BTF: cpu_tlbstate" ||
	echo "not ok - with the kernel's BTF: cpu_tlbstate ($(outgoing plain), rc $(cat $d/plain.rc))"

hist_once novars --btf "$NOVARS"
if [ "$(cat $d/novars.rc)" = 0 ] && [ "$(outgoing novars)" = last_switch ] &&
   ! grep -q retrying $d/novars.err && [ "$(switches novars)" -gt 0 ]; then
	echo "ok - --btf without per-CPU variables: last_switch chosen, no retry, $(switches novars) switches"
else
	echo "not ok - --btf without per-CPU variables: last_switch chosen, no retry ($(outgoing novars), rc $(cat $d/novars.rc), $(switches novars) switches)"
fi

# The same kernel BTF with "cpu_tlbstate" renamed: no such VAR, same ids.
cp $B $d/kernel.btf
python3 - $d/kernel.btf $d/renamed.btf <<'PY' || echo "not ok - renamed copy of the kernel BTF"
import sys
data = open(sys.argv[1], "rb").read()
old, new = b"\0cpu_tlbstate\0", b"\0cpu_tlbstatX\0"
assert data.count(old) == 1, data.count(old)
open(sys.argv[2], "wb").write(data.replace(old, new))
PY
mount --bind $d/renamed.btf $B || echo "not ok - bind mount over $B"

hist_once renamed
[ "$(cat $d/renamed.rc)" = 0 ] && [ "$(outgoing renamed)" = last_switch ] &&
	! grep -q retrying $d/renamed.err &&
	echo "ok - kernel BTF without the VAR: last_switch chosen, no retry" ||
	echo "not ok - kernel BTF without the VAR: last_switch chosen, no retry ($(outgoing renamed), rc $(cat $d/renamed.rc))"

hist_once retry --btf $d/kernel.btf
if [ "$(cat $d/retry.rc)" = 0 ] &&
   grep -q 'cannot load the BPF programs' $d/retry.err &&
   grep -q 'retrying without cpu_tlbstate' $d/retry.err &&
   ! grep -q 'retrying with raw_tp' $d/retry.err &&
   [ "$(outgoing retry)" = last_switch ] &&
   grep -q 'hist=fentry' $d/retry.err && [ "$(switches retry)" -gt 0 ]; then
	echo "ok - cpu_tlbstate refused at load: retried without it, fentry kept, $(switches retry) switches"
else
	echo "not ok - cpu_tlbstate refused at load: retried without it, fentry kept ($(outgoing retry), rc $(cat $d/retry.rc), $(switches retry) switches)"
fi
umount $B
