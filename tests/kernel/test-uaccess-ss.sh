#!/bin/sh
# The series' count of user accesses through the stack segment, which UAI
# does not untag (arch/x86/tools/uaccess_ss, run by Makefile.postlink on
# vmlinux with --record; the kernel does not use UAI if it is not 0): on
# the guest kernel it finds the user accesses, none through SS, and the
# count in vmlinux is 0; on a crafted image (uaccess_ss_bad.S) it names
# exactly the four SS references (one with REX2) and the four FS/GS ones
# among the user accesses (a string instruction, a fifth prefix, an FS
# override on a %rsp base; not VEX or REX2 accesses based on %r13/%r12)
# and fails, names frame pointers as the remedy for a %rbp base unless
# the kernel has them, and with --record writes 8 into uaccess_ss_sites
# and nothing else. Built for a big-endian host (s390x, with the kernel's
# own host-program flags, run under qemu-s390x) it reads both images as
# the x86 host does and records the same bytes.
# Host side; prints TAP.
cd "$(dirname "$0")/../.." || exit 1
tool=${UACCESS_SS_TOOL:-build/linux/arch/x86/tools/uaccess_ss}
d=$(mktemp -d) || exit 1
trap 'rm -rf $d' EXIT
n=0
t()	# t OK DESCRIPTION
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

echo "1..16"
if [ ! -x $tool ]; then
	t 1 "$tool exists (the series builds it with CONFIG_ADDRESS_MASKING)"
	exit 1
fi
t 0 "$tool exists (the series builds it with CONFIG_ADDRESS_MASKING)"

UACCESS_SS_VERBOSE=1 $tool build/linux/vmlinux > $d/out 2> $d/err
rc=$?
sed 's/^/# /' $d/out $d/err
t $rc "the guest kernel's vmlinux has no user access through SS, FS or GS"
sites=$(sed -n 's/.*: \([0-9]*\) user accesses.*/\1/p' $d/out)
# An independent count: the __ex_table entries (12 bytes: insn, fixup,
# data) whose data is a user-access fixup, the types read from the
# kernel's own extable_fixup_types.h.
want=$(objcopy -O binary --only-section=__ex_table build/linux/vmlinux $d/ex 2>&1 &&
	python3 - $d/ex build/linux/arch/x86/include/asm/extable_fixup_types.h <<'PY'
import re, struct, sys
types = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"#define\s+EX_TYPE_(\w+)\s+(\d+)\b", open(sys.argv[2]).read())}
user = {types["UACCESS"], types["UCOPY_LEN"], types["FAULT_MCE_SAFE"]}
data = open(sys.argv[1], "rb").read()
n = 0
for i in range(0, len(data) - len(data) % 12, 12):
    _, _, d = struct.unpack_from("<iii", data, i)
    if (d & 0xff) in user or ((d & 0xff) == types["IMM_REG"] and d >> 16 == -14):
        n += 1
print(n)
PY
)
echo "# __ex_table's user-access fixups, counted here: $want"
[ -n "$sites" ] && [ "$sites" = "$want" ]
t $? "it found every user access in the exception table (${sites:-none}, counted here: $want)"

as -o $d/bad.o tests/kernel/uaccess_ss_bad.S && ld -o $d/bad $d/bad.o ||
	{ t 1 "the crafted image links"; exit 1; }
$tool $d/bad > /dev/null 2> $d/err
rc=$?
sed 's/^/# /' $d/err
[ $rc = 1 ]
t $? "the crafted image fails the check (exit $rc)"
got=$(grep -o 'through %r[bs]p .* at 0x[0-9a-f]*' $d/err |
      sed 's/through \(%r[bs]p\) .* at \(0x[0-9a-f]*\)/\1@\2/' | tr '\n' ' ')
want=$(objdump -d $d/bad | awk '/mov    0x0\(%rbp\),%eax|mov    0x8\(%rsp\)|movl   \$0x0,0x10\(%rbp,%rcx,4\)/ {
	sub(/:/, "", $1); reg = $0 ~ /rsp/ ? "%rsp" : "%rbp"; printf "%s@0x%s ", reg, $1 }')
# binutils 2.40 does not decode REX2: its address is a label's.
rex2=$(nm $d/bad | awk '$3 == "rex2_ss" { print $1 }')
[ -n "$rex2" ] && want="$want$(printf '%%rsp@0x%x ' 0x$rex2)"
echo "# named: $got"
echo "# SS user accesses: $want"
[ -n "$want" ] && [ "$got" = "$want" ]
t $? "it names exactly the four SS references with a user-access fixup"
got=$(sed -n 's/.*through \(%[fg]s\) at \(0x[0-9a-f]*\).*/\1@\2/p' $d/err | tr '\n' ' ')
want=$(objdump -d $d/bad | awk '/mov    %gs:\(%rdi\),%eax|%fs:0x8\(%rsp\)|movsb  %gs:|cs mov %fs:/ {
	sub(/:/, "", $1); reg = $0 ~ /%fs/ ? "%fs" : "%gs"; printf "%s@0x%s ", reg, $1 }')
echo "# named through FS/GS: $got"
echo "# FS/GS user accesses: $want"
[ -n "$want" ] && [ "$got" = "$want" ]
t $? "it names exactly the four FS/GS user accesses"
grep -q ': 8 of 15 user accesses go through SS, FS or GS' $d/err
t $? "it counts 15 user accesses, 8 of them through SS, FS or GS"
grep -q 'frame pointers (UNWINDER_FRAME_POINTER) keep the compiler' $d/err
t $? "it names frame pointers as the remedy"

# word FILE SYMBOL: the 32-bit little-endian value of a data symbol.
word()
{
	python3 -c '
import subprocess, sys
f, name = sys.argv[1], sys.argv[2]
nm = subprocess.run(["nm", f], capture_output=True, text=True).stdout
addr = [int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" " + name)]
hdr = subprocess.run(["objdump", "-h", "-w", f], capture_output=True, text=True).stdout
for l in hdr.splitlines():
    p = l.split()
    if addr and len(p) > 6 and p[0].isdigit():
        size, vma, off = int(p[2], 16), int(p[3], 16), int(p[5], 16)
        if vma <= addr[0] < vma + size:
            with open(f, "rb") as fh:
                fh.seek(off + addr[0] - vma)
                print(int.from_bytes(fh.read(4), "little"))
            sys.exit(0)
print("none")' "$1" "$2"
}

cp $d/bad $d/rec
$tool --record $d/rec 2> $d/err
rc=$?
sed 's/^/# /' $d/err
got=$(word $d/rec uaccess_ss_sites)
next=$(word $d/rec uaccess_ss_after)
echo "# uaccess_ss_sites: $got; the word after it: $next"
# 8 is one byte: the files must differ in exactly that one.
diffs=$(cmp -l $d/bad $d/rec | wc -l)
echo "# bytes changed: $diffs"
[ $rc = 0 ] && [ "$got" = 8 ] && [ "$next" = $((0x5a5a5a5a)) ] && [ "$diffs" = 1 ]
t $? "--record writes the count (8) into uaccess_ss_sites and nothing else"
grep -q 'this kernel will not use UAI' $d/err
t $? "--record says the kernel will not use UAI"

$tool --record --frame-pointer $d/rec 2> $d/err
rc=$?
[ $rc = 0 ] && ! grep -q 'frame pointers (UNWINDER_FRAME_POINTER)' $d/err
t $? "no frame-pointer remedy for a kernel that has frame pointers"

v=$(word build/linux/vmlinux uaccess_ss_sites)
echo "# the guest kernel's uaccess_ss_sites: $v"
[ "$v" = 0 ]
t $? "the guest kernel's vmlinux holds the count, 0"

# The same tool on a big-endian build host: the image is little-endian
# whatever the host is. Kbuild's own command line for the host program,
# with the s390x cross compiler and the output moved.
be=$d/uaccess_ss.s390x
for c in s390x-linux-gnu-gcc qemu-s390x; do
	command -v $c > /dev/null || echo "# $c is missing: run 'make deps'"
done
# HOSTCC and the dependency file go: the flags start after -Wp,-MMD.
cmd=$(sed -n 's/^savedcmd_arch\/x86\/tools\/uaccess_ss := .* -Wp,-MMD,[^ ]* //p' \
	build/linux/arch/x86/tools/.uaccess_ss.cmd |
      sed 's| -o arch/x86/tools/uaccess_ss | |')
echo "# s390x-linux-gnu-gcc -static -Werror $cmd -o $be"
(cd build/linux && [ -n "$cmd" ] &&
 s390x-linux-gnu-gcc -static -Werror $cmd -o $be) > $d/err 2>&1
rc=$?
sed 's/^/# /' $d/err
[ $rc = 0 ] && file $be | grep -q 'MSB executable, IBM S/390'
t $? "it builds without warnings for a big-endian host (s390x)"
# be ARGS: the s390x build, named as the x86 one so the messages compare.
be()
{
	qemu-s390x -0 $tool $be "$@"
}
UACCESS_SS_VERBOSE=1 $tool build/linux/vmlinux > $d/le 2>&1
UACCESS_SS_VERBOSE=1 be build/linux/vmlinux > $d/be 2>&1
rc=$?
sed 's/^/# s390x: /' $d/be
[ $rc = 0 ] && [ -s $d/be ] && cmp -s $d/le $d/be
t $? "on s390x it finds the guest kernel's user accesses as on x86"
$tool $d/bad > $d/le 2>&1
be $d/bad > $d/be 2>&1
rc=$?
[ $rc = 1 ] && [ -s $d/be ] && cmp -s $d/le $d/be
t $? "on s390x it names the crafted image's eight accesses as on x86 (exit $rc)"
cp $d/bad $d/rec.le
cp $d/bad $d/rec.be
$tool --record $d/rec.le 2> /dev/null
be --record $d/rec.be 2> /dev/null
rc=$?
echo "# s390x --record: uaccess_ss_sites $(word $d/rec.be uaccess_ss_sites)"
[ $rc = 0 ] && ! cmp -s $d/bad $d/rec.be && cmp -s $d/rec.le $d/rec.be
t $? "on s390x --record writes the same little-endian count as on x86"
