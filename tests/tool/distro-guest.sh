#!/bin/sh
# distro-guest.sh RELEASE: on Debian's own kernel (tests/vm/run --distro
# --cpu lam), as tagtrace's users run it. Debian builds 6.12 with
# CPU_MITIGATIONS, which upstream 6.12's ADDRESS_MASKING depends on being
# off (arch/x86/Kconfig, "wait for LASS"): the kernel has no LAM support
# although the CPU has LAM. Checks that the kernel is Debian's RELEASE,
# that the tagging interfaces answer as such a kernel's code does
# (do_arch_prctl_64() has no LAM cases: EINVAL; x86 has no
# PR_GET_TAGGED_ADDR_CTRL: EINVAL), and that tagtrace trace starts there on
# its fallbacks and shows the refused enable. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
release=$1

# is GOT WANT DESCRIPTION
is()
{
	if [ "$1" = "$2" ]; then
		echo "ok - $3"
	else
		echo "not ok - $3"
		printf "got:  '%s'\nwant: '%s'\n" "$1" "$2" | sed 's/^/#   /'
	fi
}

is "$(uname -r)" "$release" "uname -r is Debian's $release"
case $(uname -v) in
*" Debian "*) is debian debian "uname -v names Debian's build" ;;
*) is "$(uname -v)" "*Debian*" "uname -v names Debian's build" ;;
esac
lam=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -c -x lam)
is "$lam" 1 "the CPU has LAM (/proc/cpuinfo lists lam)"
[ -d $E ] && e=present || e=absent
is "$e" absent "no tagged_addr events (the kernel lacks the series)"
[ -f /sys/kernel/btf/vmlinux ] && b=present || b=absent
is "$b" present "the kernel has BTF (/sys/kernel/btf/vmlinux)"

# The tagging system calls, from one process under tagtrace trace, text
# and JSON: "NAME ret errno [value]" lines, its pid first. The values
# are arch/x86/include/uapi/asm/prctl.h's and include/uapi/linux/prctl.h's.
$TT trace > $d/trace.txt 2> $d/trace.err &
tp=$!
$TT trace --json > $d/trace.json 2> $d/json.err &
jp=$!
if started $d/trace.err "Ctrl-C" && started $d/json.err "Ctrl-C"; then
	up=yes
else
	up=no
fi
is $up yes "tagtrace trace starts, text and JSON"
python3 - > $d/abi.out <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
SYS_arch_prctl = 158
ARCH_GET_UNTAG_MASK, ARCH_ENABLE_TAGGED_ADDR, ARCH_GET_MAX_TAG_BITS = 0x4001, 0x4002, 0x4003
PR_GET_TAGGED_ADDR_CTRL = 56
print("pid", os.getpid())
def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(*args) if args[0] == SYS_arch_prctl else libc.prctl(*args)
    return f"{name} {r} {ctypes.get_errno() if r < 0 else 0}"
for name, opt in (("ARCH_GET_MAX_TAG_BITS", ARCH_GET_MAX_TAG_BITS),
                  ("ARCH_GET_UNTAG_MASK", ARCH_GET_UNTAG_MASK)):
    v = ctypes.c_ulong(0x5a5a)
    print(call(name, SYS_arch_prctl, opt, ctypes.byref(v)), hex(v.value))
print(call("ARCH_ENABLE_TAGGED_ADDR", SYS_arch_prctl, ARCH_ENABLE_TAGGED_ADDR, 6))
print(call("PR_GET_TAGGED_ADDR_CTRL", PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0))
PY
pid=$(sed -n 's/^pid //p' $d/abi.out)
# EINVAL (22) everywhere, and the queries' out-argument left alone.
is "$(sed -n 's/^ARCH_GET_MAX_TAG_BITS //p' $d/abi.out)" "-1 22 0x5a5a" \
	"arch_prctl(ARCH_GET_MAX_TAG_BITS): EINVAL, nothing written"
is "$(sed -n 's/^ARCH_GET_UNTAG_MASK //p' $d/abi.out)" "-1 22 0x5a5a" \
	"arch_prctl(ARCH_GET_UNTAG_MASK): EINVAL, nothing written"
is "$(sed -n 's/^ARCH_ENABLE_TAGGED_ADDR //p' $d/abi.out)" "-1 22" \
	"arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6): EINVAL"
is "$(sed -n 's/^PR_GET_TAGGED_ADDR_CTRL //p' $d/abi.out)" "-1 22" \
	"prctl(PR_GET_TAGGED_ADDR_CTRL): EINVAL"

# The refused enable reaches both traces before they are stopped.
seen=no
[ $up = yes ] && wait_for $d/trace.json "\"pid\":$pid,.*\"op\":\"enable\"" &&
	wait_for $d/trace.txt " $pid .* enable " && seen=yes
is $seen yes "the enable reaches both traces"
stop $tp $jp
is $? 0 "tagtrace trace exits 0 on SIGINT"
sed 's/^/# trace: /' $d/trace.err

# Its sources: the fallbacks, on what a kernel without the series has.
src=$(sed -n 's/^tagtrace: sources: //p' $d/trace.err)
is "$src" "ctrl=fexit/do_arch_prctl_64 untag=unavailable switch=fentry/switch_mm_irqs_off fault=tp_btf/page_fault_user gp=unavailable outgoing_mm=cpu_tlbstate fault_pointer=registers" \
	"trace's sources: fexit on do_arch_prctl_64, page_fault_user, no untag or gp"
is "$(grep -c 'this kernel lacks the tagged_addr tracepoints' $d/trace.err)" 1 \
	"trace says the kernel lacks the tagged_addr tracepoints"
is "$(grep -c '^tagtrace: no process can get tagging here: the kernel was built without CONFIG_ADDRESS_MASKING (its BTF has no mm_context_t.untag_mask)$' $d/trace.err)" 1 \
	"trace says at start that no process can get tagging: no ADDRESS_MASKING"

# What it shows of that process: its two queries and the refused enable,
# nothing granted, each with EINVAL. GET_MAX_TAG_BITS and GET_UNTAG_MASK
# are both queries.
mine=$(awk -v p=$pid '$3 == p && $6 == "ctrl" {
	$1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' $d/trace.txt)
is "$mine" "python3 ctrl arch_prctl query bits=0@0 mode=none ret=-22
python3 ctrl arch_prctl query bits=0@0 mode=none ret=-22
python3 ctrl arch_prctl enable req=6 bits=0@0 mode=none ret=-22 refused: the kernel was built without CONFIG_ADDRESS_MASKING (its BTF has no mm_context_t.untag_mask)" \
	"trace shows the process's two queries and its enable of 6 bits refused (EINVAL) with the reason, nothing granted"
n=$(grep -c "\"pid\":$pid,.*\"event\":\"ctrl\",\"interface\":\"arch_prctl\",\"op\":\"enable\",\"req_bits\":6,\"granted_bits\":0,.*\"mode\":\"none\",.*\"ret\":-22,\"reason\":\"kernel_without_address_masking\"}" $d/trace.json)
is "$n" 1 "trace --json shows the enable: req_bits 6, granted_bits 0, mode none, ret -22, reason kernel_without_address_masking"
n=$(grep -c "\"pid\":$pid," $d/trace.json)
is "$n" 3 "trace --json shows 3 events of that process"
rm -rf $d
