#!/bin/sh
# In the guest (tests/kernel/test-hotplug.sh), booted with a second CPU
# without LASS (tests/vm/run --other-cpu lass=off): what the kernel does
# when such a CPU comes online while LAM rests on LASS (kernel/series:
# "x86/mm: Keep LAM off CPUs without LASS while mitigations are on").
#
#   lass-cpu-guest.sh boot      both CPUs brought up at boot, mitigations
#                               on: CPU 1 comes online, the log says LAM
#                               is no longer offered, an enable gets EPERM
#   lass-cpu-guest.sh redecide  booted with maxcpus=1, no process has LAM:
#                               CPU 1 comes online through sysfs, the same
#                               log line, an enable gets EPERM
#   lass-cpu-guest.sh refuse    booted with maxcpus=1, a process holds LAM:
#                               CPU 1's online fails with EPERM and it
#                               stays offline, the log says why, a new
#                               enable gets EPERM, and the holder still
#                               dereferences a tagged pointer on CPU 0
#   lass-cpu-guest.sh offered   the same with mitigations=off, where LAM
#                               needs no LASS: CPU 1 comes online and the
#                               holder's tagged pointer works on it too
# Prints TAP.
. tests/lib/guest-tap.sh
mode=$1
. tests/lib/guest-ok.sh

cpu1=/sys/devices/system/cpu/cpu1/online
bin=build/vm/lass_cpu
nolonger='x86/mm: CPU1 has no LASS, which LAM rests on with mitigations on: LAM is no longer offered'
refused='x86/mm: CPU1 has no LASS, which LAM rests on with mitigations on, and a process has LAM: not bringing CPU1 online'

# online_cpu1: write 1 to CPU 1's online file; prints the errno name of a
# failed write, or 0.
online_cpu1()
{
	python3 -c '
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, b"1")
    print(0)
except OSError as e:
    print(errno.errorcode[e.errno])' "$cpu1"
}

# start_holder: a process that enables LAM, then waits for a line of CPU
# numbers on fd 3 to dereference a tagged pointer on each (/tmp/held).
start_holder()
{
	mkfifo /tmp/cpus
	$bin hold < /tmp/cpus > /tmp/held &
	holder=$!
	exec 3> /tmp/cpus
	got=
	while kill -0 $holder 2> /dev/null && [ -z "$got" ]; do
		sleep 0.1
		got=$(grep '^enable:' /tmp/held)
	done
	[ "$got" = "enable: 0" ]
	ok $? "a process enabled LAM and holds it: ${got:-no answer}"
}

# finish_holder CPUS: the holder's tagged dereferences on CPUS.
finish_holder()
{
	echo "$1" >&3
	exec 3>&-
	wait $holder
	sed 1d /tmp/held
}

# cpu1_is STATE DESCRIPTION: CPU 1's online file reads STATE.
cpu1_is()
{
	[ "$(cat $cpu1)" = "$1" ]
	ok $? "$2"
}

# online_gives ERRNO STATE DESCRIPTION: writing 1 to CPU 1's online file
# gives ERRNO (0: it worked), and leaves it STATE.
online_gives()
{
	local got

	got=$(online_cpu1)
	[ "$got" = "$1" ] && [ "$(cat $cpu1)" = "$2" ]
	ok $? "$3 ($got)"
}

# logged_times TEXT N DESCRIPTION: the kernel log holds TEXT N times.
logged_times()
{
	[ "$(dmesg | grep -c -F "$1")" = "$2" ]
	ok $? "$3"
}

# enable_gives ANSWER DESCRIPTION: a new process's enable answers ANSWER.
enable_gives()
{
	local got

	got=$($bin enable)
	[ "$got" = "enable: $1" ]
	ok $? "$2: $got"
}

# holder_saw CPUS WANT DESCRIPTION: the holder's dereferences on CPUS.
holder_saw()
{
	local got

	got=$(finish_holder "$1" | tr '\n' ';')
	[ "$got" = "$2" ]
	ok $? "$3: $got"
}

case $mode in
boot)
	cpu1_is 1 "CPU 1, without LASS, came online at boot (no process had LAM)"
	logged_times "$nolonger" 1 "the log says once that LAM is no longer offered"
	enable_gives EPERM "an enable is refused"
	;;
redecide)
	cpu1_is 0 "CPU 1 is offline after a maxcpus=1 boot"
	online_gives 0 1 "no process has LAM: CPU 1 comes online"
	logged_times "$nolonger" 1 "the log says once that LAM is no longer offered"
	enable_gives EPERM "an enable is refused"
	;;
refuse)
	cpu1_is 0 "CPU 1 is offline after a maxcpus=1 boot"
	start_holder
	online_gives EPERM 0 "CPU 1's online fails with EPERM and it stays offline"
	logged_times "$refused" 1 "the log says why"
	enable_gives EPERM "a new enable is refused"
	holder_saw "0 1" "cpu0: ok;cpu1: cannot run there (EINVAL);" \
		"the holder's tagged pointer works on CPU 0, CPU 1 is not there"
	;;
offered)
	cpu1_is 0 "CPU 1 is offline after a maxcpus=1 boot"
	start_holder
	online_gives 0 1 "mitigations=off: CPU 1 comes online beside a LAM process"
	logged_times "has no LASS" 0 "nothing logged about CPU 1's LASS"
	enable_gives 0 "a new enable is granted"
	holder_saw "0 1" "cpu0: ok;cpu1: ok;" \
		"the holder's tagged pointer works on both CPUs"
	;;
*)
	echo "usage: $0 boot|redecide|refuse|offered" >&2
	exit 2
	;;
esac

tap_done
