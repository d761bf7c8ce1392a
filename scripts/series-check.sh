#!/bin/bash
# Prove every patch of kernel/series/ on its own: apply them one at a time,
# series after series in the order they apply (kernel/series/*/),
# to a scratch worktree (build/linux-check), build bzImage after each, run
# checkpatch --strict on each, build an i386 tinyconfig bzImage after each
# (32-bit x86 shares the headers the series changes), compile the arm64
# side of any patch that touches arch/arm64 or kernel/ with Debian's
# aarch64 cross compiler, and build the
# kselftests a patch touches (x86, mm/tags) against the tree's own headers,
# failing on any compiler warning in the files the patch changes, and build
# an x86_64 tinyconfig bzImage without CONFIG_ADDRESS_MASKING after each
# (every x86_64 kernel before the LASS/policy series lifts the
# ADDRESS_MASKING dependency on !CPU_MITIGATIONS). Then
# build the whole series in the guest configuration without
# CONFIG_ADDRESS_MASKING.
# Long (a full kernel rebuild per patch that changes a widely included
# header); not part of `make check`. Prints one line per patch.
# Patches are numbered from 1 across the series, in the order they apply.
# SERIES_RESUME=N starts proving at patch N, keeping build/linux-check as an
# earlier run left it if it holds patches 1..N-1 or 1..N (else it applies
# 1..N-1 unbuilt): for a run cut short. SERIES_LAST=M stops after patch M,
# without the final ADDRESS_MASKING=n build of the whole series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

export KBUILD_BUILD_TIMESTAMP='2026-01-01 00:00:00 UTC'
export KBUILD_BUILD_USER=tagtrace KBUILD_BUILD_HOST=rig
up=$build/linux-upstream
tree=$build/linux-check
arm=$build/linux-check-arm64
arm_src=$build/linux-check-src	# clean source for O= builds
i386=$build/linux-check-i386
noam=$build/linux-check-noam	# x86_64 tinyconfig, ADDRESS_MASKING=n
resume=${SERIES_RESUME:-1}
last=${SERIES_LAST:-0}
logs=$build/logs/series-check
mkdir -p "$logs"
[ "$resume" -gt 1 ] || : > "$logs/table.txt"
# Twenty-odd states of four trees would push the guest kernels' objects
# out of the shared cache: this run keeps a cache of its own.
export CCACHE_DIR=${SERIES_CCACHE_DIR:-/var/cache/tagtrace/ccache-series}

[ -d "$up/.git" ] || { echo "series-check: run 'make kernel' first" >&2; exit 1; }
if [ ! -d "$tree" ]; then
	git -C "$up" worktree prune
	git -C "$up" worktree add -q --detach "$tree" refs/tags/upstream
fi
# The x86 builds are in-tree; arch/arm64 builds need a clean source tree.
if [ ! -d "$arm_src" ]; then
	git -C "$up" worktree prune
	git -C "$up" worktree add -q --detach "$arm_src" refs/tags/upstream
fi
git -C "$tree" am --abort > /dev/null 2>&1 || true
applied=$(git -C "$tree" rev-list --count refs/tags/upstream..HEAD)
if [ "$resume" -le 1 ] || [ ! -f "$tree/.config" ] ||
   [ "$applied" -lt $((resume - 1)) ] || [ "$applied" -gt "$resume" ]; then
	git -C "$tree" reset -q --hard refs/tags/upstream
	applied=0
	# The guest kernel's configuration without debug info and BTF: they
	# cost a third of each build and decide nothing about whether a
	# patch builds.
	cp "$build/linux/.config" "$tree/.config"
	"$tree/scripts/config" --file "$tree/.config" --disable DEBUG_INFO \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
	make -C "$tree" -s olddefconfig
fi

# The configuration every per-patch build uses (re-applied on resume, as
# the last step of a run turns ADDRESS_MASKING off). Mitigations off: until
# the LASS/policy series ADDRESS_MASKING depends on !CPU_MITIGATIONS, and the tagging code
# must build at every patch. The guest kernel (make kernel) builds the
# whole series with both on.
"$tree/scripts/config" --file "$tree/.config" --disable CPU_MITIGATIONS \
	--enable ADDRESS_MASKING
make -C "$tree" -s olddefconfig

# build_x86 LOG: bzImage in the tree; prints ok, WARN or FAIL. The full
# builds here are warning-free, objtool included, so any warning fails.
build_x86()
{
	if ! make -C "$tree" -j"$(nproc)" CC="ccache gcc" bzImage > "$1" 2>&1; then
		echo FAIL
	elif grep -q 'warning:' "$1"; then
		echo WARN
	else
		echo ok
	fi
}

# build_tiny DIR ARCH LOG: a tinyconfig bzImage of $arm_src in DIR; prints
# ok, WARN or FAIL.
build_tiny()
{
	if ! make -C "$arm_src" O="$1" ARCH="$2" CC="ccache gcc" -j"$(nproc)" \
		bzImage > "$3" 2>&1; then
		echo FAIL
	elif grep -q 'warning:' "$3"; then
		echo WARN
	else
		echo ok
	fi
}

if [ ! -f "$noam/.config" ]; then
	make -C "$arm_src" -s O="$noam" ARCH=x86_64 tinyconfig > /dev/null 2>&1
	"$arm_src/scripts/config" --file "$noam/.config" --disable ADDRESS_MASKING
	make -C "$arm_src" -s O="$noam" ARCH=x86_64 olddefconfig > /dev/null 2>&1
fi
if ! grep -q '^CONFIG_X86_64=y' "$noam/.config" ||
   grep -q '^CONFIG_ADDRESS_MASKING=y' "$noam/.config"; then
	echo "series-check: $noam/.config is not x86_64 without ADDRESS_MASKING" >&2
	exit 1
fi

fail=0
num=0
for p in "$top"/kernel/series/*/*.patch; do
	num=$((num + 1))
	n=$(basename "$(dirname "$p")")/$(basename "$p" .patch)
	[ "$last" -eq 0 ] || [ "$num" -le "$last" ] || break
	if [ "$num" -gt "$applied" ]; then
		git -C "$tree" am -q --keep-cr "$p"
	fi
	[ "$num" -ge "$resume" ] || continue
	t0=$SECONDS
	x86=$(build_x86 "$logs/${n//\//_}.x86.log")
	[ "$x86" = ok ] || fail=1
	cp=$(perl "$tree/scripts/checkpatch.pl" --no-tree --strict --terse "$p" 2>/dev/null |
	     grep -cE 'ERROR|WARNING|CHECK' || true)
	git -C "$arm_src" checkout -q --detach "$(git -C "$tree" rev-parse HEAD)"
	[ -f "$i386/.config" ] ||
		make -C "$arm_src" -s O="$i386" ARCH=i386 tinyconfig > /dev/null 2>&1 || true
	i386r=$(build_tiny "$i386" i386 "$logs/${n//\//_}.i386.log")
	[ "$i386r" = ok ] || fail=1
	noamr=$(build_tiny "$noam" x86_64 "$logs/${n//\//_}.noam.log")
	[ "$noamr" = ok ] || fail=1
	arm64=-
	if grep -q '^+++ b/arch/arm64/\|^+++ b/kernel/' "$p"; then
		[ -f "$arm/.config" ] ||
			make -C "$arm_src" -s O="$arm" ARCH=arm64 \
				CROSS_COMPILE=aarch64-linux-gnu- defconfig \
				> /dev/null 2>&1 || true
		objs=$(grep -o '^+++ b/arch/arm64/.*\.c$\|^+++ b/kernel/.*\.c$' "$p" |
		       sed 's|^+++ b/||; s|\.c$|.o|' | tr '\n' ' ')
		if make -C "$arm_src" O="$arm" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			CC="ccache aarch64-linux-gnu-gcc" -j"$(nproc)" $objs \
			> "$logs/${n//\//_}.arm64.log" 2>&1; then
			arm64=ok
		else
			arm64=FAIL; fail=1
		fi
	fi
	kst=-
	targets=$(grep -o '^+++ b/tools/testing/selftests/.*/[^/]*$' "$p" |
		  sed 's|^+++ b/tools/testing/selftests/||; s|/[^/]*$||' |
		  grep -v '^arm64' | sort -u | tr '\n' ' ' || true)
	if [ -n "$targets" ]; then
		srcs=$(grep -o '^+++ b/tools/testing/selftests/.*\.c$' "$p" |
		       sed 's|^+++ b/tools/testing/selftests/||' || true)
		kst=ok
		if make -C "$tree" -s headers > "$logs/${n//\//_}.kselftest.log" 2>&1 &&
		   make -C "$tree/tools/testing/selftests" TARGETS="$targets" \
			>> "$logs/${n//\//_}.kselftest.log" 2>&1; then
			for s in $srcs; do
				if grep -qE "(^|/)${s##*/}:[0-9]+:[0-9]+: warning:" \
					"$logs/${n//\//_}.kselftest.log"; then
					kst=WARN; fail=1
				fi
			done
		else
			kst=FAIL; fail=1
		fi
	fi
	printf '%-56s x86:%-4s i386:%-4s am=n:%-4s arm64:%-4s kselftest:%-4s checkpatch:%-2s %4ds\n' \
		"$n" "$x86" "$i386r" "$noamr" "$arm64" "$kst" "$cp" $((SECONDS - t0)) |
		tee -a "$logs/table.txt"
done
[ "$last" -eq 0 ] || exit $fail

# The whole series once more without CONFIG_ADDRESS_MASKING, as a
# distribution may still build it: the tagging code must compile out.
"$tree/scripts/config" --file "$tree/.config" --disable ADDRESS_MASKING
make -C "$tree" -s olddefconfig
t0=$SECONDS
x86=FAIL
if grep -q '^# CONFIG_ADDRESS_MASKING is not set' "$tree/.config"; then
	x86=$(build_x86 "$logs/no-address-masking.x86.log")
fi
[ "$x86" = ok ] || fail=1
printf '%-56s x86:%-4s %4ds\n' "all, CONFIG_ADDRESS_MASKING=n" "$x86" \
	$((SECONDS - t0)) | tee -a "$logs/table.txt"
exit $fail
