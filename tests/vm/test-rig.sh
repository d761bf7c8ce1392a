#!/bin/bash
# The rig's contract (tests/vm/run): exit status, output, cwd, the
# read-only host root and writable /tmp, timeouts, panics, boot failures.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

out=$("$rig" -- true 2>&1); rc=$?
is "$rc:$out" "0:" "true exits 0 and prints nothing"

"$rig" -- sh -c 'exit 7' > /dev/null 2>&1
is "$?" 7 "the command's exit status is the rig's"

"$rig" -- sh -c 'kill -TERM $$' > /dev/null 2>&1
is "$?" 143 "a command killed by SIGTERM exits 128+15"

out=$("$rig" -- sh -c 'echo "a  b"; echo err >&2; printf "x\ty"; pwd' 2>/dev/null)
is "$out" "$(printf 'a  b\nerr\nx\ty%s' "$top")" \
	"stdout and stderr come back byte for byte, in the host's cwd"

out=$("$rig" -- printf '[%s]' 'one two' '' "it's" 2>/dev/null)
is "$out" "[one two][][it's]" "arguments keep their spaces and quotes"

out=$(TAGTRACE_RIG_PROBE=42 "$rig" -- sh -c 'echo $TAGTRACE_RIG_PROBE' 2>/dev/null)
is "$out" 42 "the environment reaches the command"

# One fact per line, each asserted whole: a loose pattern over the lot also
# matched a shell's own "cannot create" message for /tmp.
rm -f "$top/build/vm/ro-probe"
out=$("$rig" -- sh -c "touch '$top/build/vm/ro-probe' 2>/tmp/e; echo \"touch \$?\";
	cat /tmp/e; echo 1 > /tmp/w; echo \"write \$?\"; cat /tmp/w; id -u" 2>&1)
mapfile -t line <<< "$out"
is "${line[0]}" "touch 1" "touching the host root fails in the guest"
is "${line[1]}" "touch: cannot touch '$top/build/vm/ro-probe': Read-only file system" \
	"because the host root is read-only"
[ ! -e "$top/build/vm/ro-probe" ]; ok $? "and nothing reached the host"
is "${line[2]}:${line[3]}" "write 0:1" "/tmp is writable"
is "${line[4]}:${#line[@]}" "0:5" "CMD runs as root"

# --bare boots a freestanding ELF alone: no command, and a file that exists.
err=$("$rig" --bare build/vm/lass.elf -- true 2>&1); rc=$?
is "$rc:$err" "252:tests/vm/run: --bare runs the ELF alone, not 'true'" \
	"--bare with a command is a rig error"
err=$("$rig" --bare build/vm/no-such.elf 2>&1); rc=$?
is "$rc:$err" "252:tests/vm/run: no ELF at $top/build/vm/no-such.elf" \
	"--bare without its file is a rig error"

start=$(date +%s)
"$rig" --timeout 8 -- sleep 600 > /dev/null 2>&1; rc=$?
took=$(($(date +%s) - start))
is "$rc" 124 "a hung command ends at --timeout with 124"
[ $took -lt 30 ]; ok $? "the timeout is honoured (took ${took}s for --timeout 8)"

err=$("$rig" --timeout 60 -- sh -c 'echo c > /proc/sysrq-trigger; sleep 600' 2>&1 >/dev/null); rc=$?
is "$rc" 250 "a kernel panic exits 250, not a timeout"
case $err in
*"guest kernel panicked"*"Kernel panic"*) ok 0 "the panic is reported with its text" ;;
*) ok 1 "the panic is reported with its text" "$err" ;;
esac

# Splats: what the rig counts as one, on lines in the kernel's own formats.
. "$top/tests/vm/splat.sh"
sample=$(mktemp)
while IFS='|' read -r want line; do
	printf '%s\n' "$line" > "$sample"
	got=no; [ -n "$(splat_first "$sample")" ] && got=yes
	is "$got" "$want" "splat? $line"
done <<'LINES'
yes|------------[ cut here ]------------
yes|[    2.345678] WARNING: CPU: 0 PID: 41 at drivers/misc/lkdtm/bugs.c:93 lkdtm_WARNING+0x11/0x20
yes|BUG: KASAN: slab-use-after-free in tagged_addr_enable+0x2c/0x90
yes|BUG: sleeping function called from invalid context at mm/gup.c:1234
yes|WARNING: possible circular locking dependency detected
yes|Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP
yes|kernel BUG at mm/mmap.c:123!
yes|UBSAN: shift-out-of-bounds in arch/x86/mm/tlb.c:100:2
yes|INFO: task kworker/0:1:12 blocked for more than 120 seconds.
yes|[   61.234567] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
yes|rcu: INFO: rcu_sched self-detected stall on CPU
no|rcu: Hierarchical SRCU implementation.
no|traps: tagged-deref[45] general protection fault ip:401136 sp:7ffc5a0e7c40 error:0 in tagged-deref[401000+1000]
no|traps: tagged-deref[46] stack segment ip:401136 sp:7ffc5a0e7c40 error:0 in tagged-deref[401000+1000]
no|prog[51]: segfault at 0 ip 0000000000401136 sp 00007ffe5a0e7c40 error 4 in prog[401000+1000]
no|tagtrace-init: exit 0
LINES
rm -f "$sample"

# A real WARN from the kernel (lkdtm) fails a run whose command passed.
provoke='echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT'
err=$("$rig" -- sh -c "$provoke; exit 0" 2>&1 >/dev/null); rc=$?
is "$rc" 253 "a kernel WARN during the command exits 253"
case $err in
*"logged a splat (CMD exited 0)"*"WARNING: CPU:"*"lkdtm_WARNING"*) ok 0 "the splat is printed with where it came from" ;;
*) ok 1 "the splat is printed with where it came from" "$err" ;;
esac
"$rig" --allow-splat -- sh -c "$provoke; exit 3" > /dev/null 2>&1
is "$?" 3 "--allow-splat keeps the command's own status"

# A user process's unhandled #GP is logged by the kernel, but is no splat.
"$rig" -- python3 -c 'import ctypes; ctypes.string_at(0x0100000000001000, 1)' > /dev/null 2>&1
is "$?" 139 "a user #GP (SIGSEGV, logged as traps:) is the command's status, not a splat"

out=$("$rig" --append 'tagtrace.probe=42' -- cat /proc/cmdline 2>/dev/null)
case $out in *" tagtrace.probe=42"*) ok 0 "--append reaches the kernel command line" ;;
*) ok 1 "--append reaches the kernel command line" "$out" ;; esac

# An ELF program is no kernel: QEMU refuses it, the guest never starts.
err=$("$rig" --timeout 60 --kernel /bin/true -- true 2>&1 >/dev/null); rc=$?
is "$rc" 251 "a kernel image that does not boot exits 251"
case $err in *"guest failed to boot"*) ok 0 "and says the guest failed to boot" ;;
*) ok 1 "and says the guest failed to boot" "$err" ;; esac

err=$("$rig" --cpu arm -- true 2>&1); rc=$?
is "$rc" 252 "a bad --cpu is a rig error (252)"
case $err in *"--cpu wants none, lam or uai"*) ok 0 "and says which values are valid" ;;
*) ok 1 "and says which values are valid" "$err" ;; esac

"$rig" --smp 0 -- true > /dev/null 2>&1
is "$?" 252 "--smp 0 is refused"

# The arm64 rig (--arch arm64): the x86-only options and other
# architectures are rig errors, said before anything boots.
err=$("$rig" --arch riscv64 -- true 2>&1); rc=$?
is "$rc:$err" "252:tests/vm/run: --arch wants x86_64 or arm64, not 'riscv64'" \
	"an unknown --arch is a rig error"
for opt in "--cpu lam" --la57 --no-lass --intel "--other-cpu lass=off" --distro; do
	# shellcheck disable=SC2086
	err=$("$rig" --arch arm64 $opt -- true 2>&1); rc=$?
	is "$rc:$err" "252:tests/vm/run: --arch arm64 takes no --cpu, --la57, --no-lass, --intel, --other-cpu, --bare or --distro" \
		"--arch arm64 with $opt is a rig error"
done
# A second CPU with its own properties: QEMU's name=value form only, and
# not beside --smp.
err=$("$rig" --other-cpu 'lass off' -- true 2>&1); rc=$?
is "$rc:$err" "252:tests/vm/run: --other-cpu wants QEMU CPU properties, as lass=off" \
	"--other-cpu with a malformed property is a rig error"
err=$("$rig" --smp 2 --other-cpu lass=off -- true 2>&1); rc=$?
is "$rc:$err" "252:tests/vm/run: --other-cpu is for an x86_64 guest kernel, without --smp" \
	"--other-cpu with --smp is a rig error"
# An arm64 guest: the status comes from the init's console line alone.
out=$("$rig" --arch arm64 -- build/vm-arm64/tags_test 2>/dev/null); rc=$?
is "$rc" 0 "an arm64 guest runs a static arm64 program and returns its status"
case $out in *"ok 1 "*) ok 0 "and its output comes back on stdout" ;;
*) ok 1 "and its output comes back on stdout" "$out" ;; esac
TAGGED_EXPECT=none "$rig" --arch arm64 -- build/vm-arm64/tags_test > /dev/null 2>&1
is "$?" 1 "a failing arm64 program's status is the rig's (tags_test told no tagging is offered)"

out=$("$rig" --smp 2 --mem 768 -- sh -c 'nproc; grep MemTotal /proc/meminfo' 2>/dev/null)
case $out in
2*MemTotal:*) mem=$(echo "$out" | awk '/MemTotal/ { print int($2 / 1024) }')
	[ "$mem" -gt 600 ] && [ "$mem" -le 768 ]
	ok $? "--smp 2 --mem 768 gives 2 CPUs and ${mem} MiB" ;;
*) ok 1 "--smp 2 --mem 768 gives 2 CPUs" "$out" ;;
esac

tap_done
