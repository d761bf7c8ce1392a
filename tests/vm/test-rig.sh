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

out=$("$rig" -- sh -c "touch '$top/build/vm/ro-probe' 2>&1; echo 1 > /tmp/w && cat /tmp/w; id -u")
case $out in
*"Read-only file system"*1*0) ok 0 "host root is read-only, /tmp writable, CMD runs as root" ;;
*) ok 1 "host root is read-only, /tmp writable, CMD runs as root" "$out" ;;
esac

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

out=$("$rig" --smp 2 --mem 768 -- sh -c 'nproc; grep MemTotal /proc/meminfo' 2>/dev/null)
case $out in
2*MemTotal:*) mem=$(echo "$out" | awk '/MemTotal/ { print int($2 / 1024) }')
	[ "$mem" -gt 600 ] && [ "$mem" -le 768 ]
	ok $? "--smp 2 --mem 768 gives 2 CPUs and ${mem} MiB" ;;
*) ok 1 "--smp 2 --mem 768 gives 2 CPUs" "$out" ;;
esac

tap_done
