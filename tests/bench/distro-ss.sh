#!/bin/bash
# How many user accesses go through SS, FS or GS (which UAI does not untag:
# patch 0012) in a kernel a distribution ships, built without frame
# pointers (ORC) and with its whole configuration, not the guest's:
#   1. Debian's own linux-image-6.12 of the series' base version, from its
#      -dbg package (the vmlinux as shipped, 1 GB download, kept in
#      build/distro/), counted by patch 12's tool (build/linux, make kernel);
#      each site found is printed with its instruction;
#   2. with the series, Debian's config (linux-config-6.12, plus
#      ADDRESS_MASKING) builds arch/x86/kernel/fpu/, where every site of 1
#      is in Debian 6.12.118, and the legacy FPU instructions' operands
#      are printed: patch 0011 makes the user ones (%rdi).
# A whole vmlinux of Debian's config with the series is not built here
# (hours on two cores); 2 covers the sites 1 finds.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. scripts/versions.sh
tool=build/linux/arch/x86/tools/uaccess_ss
dir=build/distro
[ -x $tool ] || { echo "distro-ss: no $tool: run 'make kernel'" >&2; exit 1; }
mkdir -p $dir || exit 1

# The -dbg package of the exact version the series is made for.
dbg=$(apt-cache show "linux-image-6.12-amd64-dbg=$LINUX_SOURCE_VERSION" 2>/dev/null |
      sed -n 's/^Depends: \([^ ]*\) .*/\1/p' | head -1)
[ -n "$dbg" ] || { echo "distro-ss: Debian has no linux-image-6.12-amd64-dbg" \
	"$LINUX_SOURCE_VERSION (apt-get update?)" >&2; exit 1; }
dbg_ver=${dbg#linux-image-}
vmlinux=$dir/vmlinux-${dbg_ver%-dbg}
if [ ! -s "$vmlinux" ]; then
	echo "distro-ss: downloading $dbg $LINUX_SOURCE_VERSION (about 1 GB)"
	(cd $dir && apt-get download -q "$dbg=$LINUX_SOURCE_VERSION") || exit 1
	dpkg-deb --fsys-tarfile $dir/"$dbg"_*.deb |
		tar -xO --wildcards "./usr/lib/debug/boot/vmlinux-*" > "$vmlinux.tmp" &&
		mv "$vmlinux.tmp" "$vmlinux" || exit 1
	rm -f $dir/"$dbg"_*.deb
fi

# The legacy FPU instructions in objdump's listing on stdin, counted by
# operand.
legacy_fpu_ops()
{
	awk -F'\t' '$3 ~ /^(fxsave|fxrstor|fnsave|frstor)/ { print $3 }' | sort | uniq -c
}

echo "== 1. Debian's ${dbg%-dbg} vmlinux, as shipped:"
out=$($tool "$vmlinux" 2>&1)
echo "$out" | sed 's/^/  /'
echo "$out" | sed -n 's/.* at \(0x[0-9a-f]*\) .*/\1/p' | while read -r a; do
	objdump -d --start-address="$a" --stop-address=$((a + 16)) "$vmlinux" |
		grep -A1 '>:$' | tail -1 | sed 's/^/  /'
done

echo "== 2. the series' arch/x86/kernel/fpu/ with Debian's config, ADDRESS_MASKING=y:"
src=$dir/src obj=$dir/obj
if [ ! -d $src ]; then
	git -C build/linux worktree prune
	git -C build/linux worktree add -q --detach "$top/$src" HEAD || exit 1
fi
# The series as make kernel applied it.
git -C $src checkout -q --detach "$(git -C build/linux rev-parse HEAD)" || exit 1
mkdir -p $obj
compgen -G "$dir/linux-config-6.12_*.deb" > /dev/null ||
	(cd $dir && apt-get download -q "linux-config-6.12=$LINUX_SOURCE_VERSION") || exit 1
dpkg-deb --fsys-tarfile $dir/linux-config-6.12_*.deb |
	tar -xO ./usr/src/linux-config-6.12/config.amd64_none_amd64.xz | xz -dc > $obj/.config || exit 1
$src/scripts/config --file $obj/.config -e ADDRESS_MASKING \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str MODULE_SIG_KEY ""
make -s -C $src O="$top/$obj" olddefconfig > $dir/build.log 2>&1 &&
	grep -q '^CONFIG_ADDRESS_MASKING=y' $obj/.config &&
	make -C $src O="$top/$obj" -j"$(nproc)" arch/x86/kernel/fpu/ >> $dir/build.log 2>&1 ||
	{ echo "distro-ss: the build failed: $dir/build.log" >&2; exit 1; }
ops=$(objdump -d $obj/arch/x86/kernel/fpu/signal.o | legacy_fpu_ops)
echo "$ops" | sed 's/^/  /'
if grep -q -E '%r[bs]p\)' <<< "$ops"; then
	echo "  MISS: a legacy FPU instruction is still based on %rbp or %rsp"
else
	echo "  PASS: none is based on %rbp or %rsp"
fi
echo "  (Debian's own, for comparison:)"
for f in __fpu_restore_sig copy_fpstate_to_sigframe; do
	objdump -d --disassemble=$f "$vmlinux"
done | legacy_fpu_ops | sed 's/^/  /'
