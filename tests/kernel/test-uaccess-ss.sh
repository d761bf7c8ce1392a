#!/bin/sh
# The series' link-time check against user accesses through the stack
# segment, which UAI does not untag (arch/x86/tools/uaccess_ss, run by
# Makefile.postlink on vmlinux): on the guest kernel it finds the user
# accesses and passes; on a crafted image (uaccess_ss_bad.S) it names
# exactly the three SS references among the user accesses, and fails.
# Host side; prints TAP.
cd "$(dirname "$0")/../.." || exit 1
tool=build/linux/arch/x86/tools/uaccess_ss
d=$(mktemp -d) || exit 1
trap 'rm -rf $d' EXIT
n=0
t()	# t OK DESCRIPTION
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

echo "1..6"
if [ ! -x $tool ]; then
	t 1 "$tool exists (the series builds it with CONFIG_ADDRESS_MASKING)"
	exit 1
fi
t 0 "$tool exists (the series builds it with CONFIG_ADDRESS_MASKING)"

UACCESS_SS_VERBOSE=1 $tool build/linux/vmlinux > $d/out 2> $d/err
rc=$?
sed 's/^/# /' $d/out $d/err
t $rc "the guest kernel's vmlinux has no user access through SS"
sites=$(sed -n 's/.*: \([0-9]*\) user accesses.*/\1/p' $d/out)
# A 6.12 x86-64 kernel has a few hundred: fewer means a parse error.
[ "${sites:-0}" -ge 100 ]
t $? "it found the user accesses in the exception table (${sites:-none})"

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
echo "# named: $got"
echo "# SS user accesses: $want"
[ -n "$want" ] && [ "$got" = "$want" ]
t $? "it names exactly the three SS references with a user-access fixup"
grep -q ': 3 of 8 user accesses' $d/err
t $? "it counts 8 user accesses, 3 of them through SS"
