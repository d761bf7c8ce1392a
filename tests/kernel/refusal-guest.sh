#!/bin/sh
# In the guest: one enable through prctl() and one through arch_prctl(),
# watched by tracefs and by tagtrace (text and JSON). REASON is what the
# tagged_addr_ctrl event must say: no_lass_with_mitigations,
# uai_with_mitigations or uai_without_smap where the kernel refuses
# tagging (the enables fail with EPERM), sysctl with abi.tagged_addr_disabled set here first
# (EINVAL), no_backend on a CPU without LAM or UAI (ENODEV), none where it
# offers it (they succeed). Prints TAP.
#
#   tests/kernel/refusal-guest.sh REASON
. tests/tool/lib-guest.sh

reason=$1
case $reason in
no_lass_with_mitigations) text="no LASS with mitigations on" ;;
uai_with_mitigations) text="UAI with mitigations on" ;;
uai_without_smap) text="UAI without SMAP" ;;
sysctl) text="abi.tagged_addr_disabled is set" ;;
no_backend) text="no LAM or UAI" ;;
none) text= ;;
*) echo "usage: refusal-guest.sh no_lass_with_mitigations|uai_with_mitigations|uai_without_smap|sysctl|no_backend|none" >&2
   exit 2 ;;
esac
# What both enables fail with: "ret errno".
case $reason in
sysctl) err=22 ;;	# EINVAL
no_backend) err=19 ;;	# ENODEV
*) err=1 ;;		# EPERM
esac
[ $reason = sysctl ] && echo 1 > /proc/sys/abi/tagged_addr_disabled

# enable: prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0),
# then arch_prctl(ARCH_ENABLE_TAGGED_ADDR, 6) in a fresh process; prints
# "ret errno" for each.
enable()
{
	python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.prctl(55, 1, 0, 0, 0)
print(r, ctypes.get_errno() if r < 0 else 0)'
	python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(158, 0x4002, 6)
print(r, ctypes.get_errno() if r < 0 else 0)'
}

# ok_if DESCRIPTION COMMAND...: one TAP line for COMMAND's status.
ok_if()
{
	desc=$1
	shift
	if "$@"; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
	fi
}

$TT trace > $d/trace.txt 2> $d/trace.err &
tp=$!
$TT trace --json -e ctrl > $d/trace.json 2> $d/json.err &
jp=$!
started $d/trace.err "Ctrl-C" && started $d/json.err "Ctrl-C"
tracefs_reset
echo 1 > $E/tagged_addr_ctrl/enable
echo 1 > $T/tracing_on
enable > $d/enable.out
echo 0 > $T/tracing_on
echo 0 > $E/tagged_addr_ctrl/enable
stop $tp $jp
ok_if "tagtrace exits 0 when stopped" test $? -eq 0

# Its start says once why no process can get tagging here, or nothing.
case $reason in
sysctl) why="abi.tagged_addr_disabled is set" ;;
no_backend) why="the kernel lists neither LAM nor UAI" ;;
none) why= ;;
*) why="the kernel refuses it on this CPU" ;;
esac
if [ -n "$why" ]; then
	ok_if "tagtrace's start says why no process can get tagging: $why" \
		grep -q "^tagtrace: no process can get tagging here: $why" $d/trace.err
else
	ok_if "tagtrace's start says nothing against tagging" \
		sh -c "! grep -q 'no process can get tagging' $d/trace.err"
fi

if [ -n "$text" ]; then
	want="-1 $err
-1 $err"	# both interfaces
else
	want="0 0
0 0"
fi
ok_if "enables: $(echo $want) (ret errno, prctl then arch_prctl)" \
	test "$(cat $d/enable.out)" = "$want"
[ "$(cat $d/enable.out)" = "$want" ] || sed 's/^/#   /' $d/enable.out

grep 'op=enable' $T/trace > $d/tracefs
n=$(grep -c "reason=$reason\$" $d/tracefs)
ok_if "tracefs: both enables carry reason=$reason" test "$n" = 2
[ "$n" = 2 ] || sed 's/^/#   /' $d/tracefs

n=$(grep -c "\"op\":\"enable\".*\"reason\":\"$reason\"" $d/trace.json)
ok_if "tagtrace --json: both enables carry \"reason\":\"$reason\"" test "$n" = 2
[ "$n" = 2 ] || sed 's/^/#   /' $d/trace.json

grep ' enable ' $d/trace.txt > $d/text
if [ -n "$text" ]; then
	n=$(grep -c "refused: $text\$" $d/text)
	ok_if "tagtrace: both enables say 'refused: $text'" test "$n" = 2
else
	n=$(grep -c "enable" $d/text)
	ok_if "tagtrace: both enables shown, and no refusal" \
		test "$n" = 2 -a "$(grep -c refused $d/text)" = 0
fi
[ "$n" = 2 ] || sed 's/^/#   /' $d/trace.txt
[ $reason = sysctl ] && echo 0 > /proc/sys/abi/tagged_addr_disabled
rm -rf $d
