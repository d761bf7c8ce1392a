#!/bin/sh
# output-guest.sh: what tagtrace writes reaches its reader, or its exit
# status says it did not. With stdout on a full file system each command
# exits 1 after one line naming the error, trace without waiting for a
# signal; when the reader goes away (| head -1) each ends by itself and
# exits 0. A process named with escape sequences is printed with every
# control byte replaced, in each text report. Prints TAP (unnumbered).
. tests/tool/lib-guest.sh
L=$PWD/build/vm/tagloop
ESC=$(printf '\033')

full=/tmp/full
mkdir -p $full
mount -t tmpfs -o size=16k none $full || echo "not ok - mount a 16 KiB tmpfs"
# Fill it: every write after this fails with ENOSPC.
dd if=/dev/zero of=$full/fill bs=1k count=64 2> /dev/null

# Tagged system calls all along, so that trace has records to write.
(while :; do $L 20 > /dev/null; sleep 0.05; done) &
load=$!

# on_full NAME ARGS...: `tagtrace ARGS > full fs` exits 1 (not 124: by
# itself) and says why in one line.
on_full()
{
	n=$1
	shift
	timeout 60 $TT "$@" > $full/$n 2> $d/$n.err
	st=$?
	if [ $st = 1 ] && [ "$(grep -c 'cannot write' $d/$n.err)" = 1 ] &&
	   grep -q "^tagtrace: cannot write the output: No space left on device$" $d/$n.err; then
		echo "ok - tagtrace $* > full tmpfs: exit 1, one line says No space left on device"
	else
		echo "not ok - tagtrace $* > full tmpfs: exit 1, one line says No space left on device (status $st)"
		sed 's/^/#   /' $d/$n.err
	fi
}

on_full top top -n 1 -i 0.5
on_full top_json top -n 1 -i 0.5 --json
on_full tags tags -n 1 -i 0.5
on_full tags_json tags -n 1 -i 0.5 --json
on_full hist hist -n 1 -i 0.5
on_full hist_json hist -n 1 -i 0.5 --json
on_full trace trace
on_full trace_json trace --json -e untag

# on_closed NAME ARGS...: `tagtrace ARGS | head -1` ends by itself (no
# -n, no -d) with status 0 and no error, head having had its line.
on_closed()
{
	n=$1
	shift
	{ timeout 60 $TT "$@" 2> $d/$n.err; echo $? > $d/$n.rc; } |
		head -1 > $d/$n.head
	st=$(cat $d/$n.rc)
	if [ "$st" = 0 ] && [ -s $d/$n.head ] && ! grep -q "cannot write" $d/$n.err; then
		echo "ok - tagtrace $* | head -1: ends by itself, exit 0"
	else
		echo "not ok - tagtrace $* | head -1: ends by itself, exit 0 (status $st)"
		sed 's/^/#   /' $d/$n.err
	fi
}

on_closed top_pipe top -i 0.2
on_closed top_json_pipe top -i 0.2 --json
on_closed tags_pipe tags -i 0.2
on_closed hist_pipe hist -i 0.2
on_closed trace_pipe trace
on_closed trace_json_pipe trace --json -e untag
kill $load
wait $load 2> /dev/null

# A name of control bytes: an OSC (window title) and a colour (CSI).
evil="${ESC}]2;owned$(printf '\007')${ESC}[31m"
ln -s $L "$d/$evil"
$TT top -i 4 -n 1 > $d/esc_top.txt 2> $d/esc_top.err &
t1=$!
$TT tags -i 4 -n 1 > $d/esc_tags.txt 2> $d/esc_tags.err &
t2=$!
$TT trace -d 4 -e ctrl,untag > $d/esc_trace.txt 2> $d/esc_trace.err &
t3=$!
for f in esc_top esc_tags esc_trace; do
	started $d/$f.err "Ctrl-C" || exit 1
done
"$d/$evil" 30 > /dev/null
wait $t1 $t2 $t3
for f in esc_top esc_tags esc_trace; do
	if grep -q '?]2;owned??\[31m' $d/$f.txt &&
	   ! tr -d '\n' < $d/$f.txt | LC_ALL=C grep -q '[[:cntrl:]]'; then
		echo "ok - ${f#esc_}: a comm of escape sequences printed with ? for each control byte"
	else
		echo "not ok - ${f#esc_}: a comm of escape sequences printed with ? for each control byte"
		sed -n l $d/$f.txt | grep owned | sed 's/^/#   /'
	fi
done
