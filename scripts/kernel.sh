#!/bin/bash
# Build a guest kernel from Debian's linux-source-6.12.
#
#   scripts/kernel.sh tagged     build/linux:          kernel/series/ applied
#   scripts/kernel.sh upstream   build/linux-upstream: the pristine source
#   scripts/kernel.sh mainline   build/linux-mainline: series 1-4 alone, the ones
#                                meant for mainline (no LASS policy, no
#                                LAM_U48), built as upstream's own LAM is
#                                (kernel/config/upstream/: no
#                                CPU_MITIGATIONS), for tagtrace's tests
#   scripts/kernel.sh notrace    build/linux-notrace:  the series without their
#                                tracepoint patches (notrace_patches in
#                                lib.sh), the baseline of
#                                tests/bench/trace-overhead.sh
#   scripts/kernel.sh debug      build/linux-debug:    the series with KASAN,
#                                lockdep and DEBUG_VM (kernel/config/debug/)
#   scripts/kernel.sh baseline   build/linux-baseline: the pristine source with
#                                the guest kernel's own config (mitigations
#                                on, so no ADDRESS_MASKING), the baseline of
#                                tests/bench/lass-bench.sh
#   scripts/kernel.sh arm64      build/linux-arm64:    the series cross-built
#                                for QEMU's arm64 virt machine with its own
#                                config (kernel/config/arm64/ only), for
#                                tests/vm/run --arch arm64
#   scripts/kernel.sh arm64-upstream build/linux-arm64-upstream: the pristine
#                                source with the arm64 config, which recorded
#                                tests/kernel/arm64-mte-ctrl.upstream (not
#                                part of make check)
#
# build/linux-upstream is the unpacked tarball committed to git and tagged
# "upstream"; build/linux is a worktree of it with the series applied by
# `git am`. A changed series resets the worktree to "upstream" and applies the
# series again, so patches always apply to a pristine tree and only the files
# they touch are rebuilt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:?usage: kernel.sh tagged|mainline|notrace|debug|baseline|upstream|arm64|arm64-upstream}
up=$build/linux-upstream
tarball=/usr/src/linux-source-6.12.tar.xz

# The kernel build sets its own -j; the jobserver of a parallel outer make
# (make check builds QEMU beside the kernels) does not reach this script's
# makes, which would only warn about it and fall back to -j1.
unset MAKEFLAGS MFLAGS

# The kernel embeds build time, user and host: pin them so ccache hits.
export KBUILD_BUILD_TIMESTAMP='2026-01-01 00:00:00 UTC'
export KBUILD_BUILD_USER=tagtrace KBUILD_BUILD_HOST=rig

have=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
if [ "$have" != "$LINUX_SOURCE_VERSION" ]; then
	echo "kernel: linux-source-6.12 '$have' installed, the series is made" \
	     "for $LINUX_SOURCE_VERSION; run 'make deps'" >&2
	exit 1
fi

unpack()
{
	echo "kernel: unpacking $tarball into $up"
	rm -rf "$build/linux"
	mkdir -p "$up"
	tar -xJf "$tarball" -C "$up" --strip-components=1
}
import_tree "$up" upstream "$LINUX_SOURCE_VERSION" unpack

case $variant in
tagged)
	tree=$build/linux
	patches=("$top"/kernel/series/*/*.patch) ;;
mainline)
	tree=$build/linux-mainline
	mapfile -t patches < <(mainline_patches) ;;
notrace)
	tree=$build/linux-notrace
	mapfile -t patches < <(notrace_patches) ;;
debug)
	tree=$build/linux-$variant
	patches=("$top"/kernel/series/*/*.patch) ;;
baseline)
	tree=$build/linux-baseline
	patches=() ;;
arm64)
	tree=$build/linux-arm64
	patches=("$top"/kernel/series/*/*.patch) ;;
arm64-upstream)
	tree=$build/linux-arm64-upstream
	patches=() ;;
upstream)
	tree=$up ;;
*)
	echo "usage: kernel.sh tagged|mainline|notrace|debug|baseline|upstream|arm64|arm64-upstream" >&2
	exit 2 ;;
esac
# Two builds of one tree at once (make check beside a hand-run make kernel)
# would race on its objects: the second waits for the first.
exec 9> "$build/.kernel-$variant.lock"
if ! flock -n 9; then
	echo "kernel: another build of $tree is running; waiting for it"
	flock 9
fi
if [ "$tree" != "$up" ]; then
	if [ ! -d "$tree" ]; then
		git -C "$up" worktree prune
		git -C "$up" worktree add -q --detach "$tree" refs/tags/upstream
	fi
	apply_series "$tree" upstream kernel "${patches[@]}"
fi

# Config: tinyconfig plus our fragments, regenerated when a fragment changes.
# A later fragment overrides an earlier one (upstream/ turns KALLSYMS_ALL off).
# The arm64 kernel takes only its own fragments: everything else is x86's.
arch=()
frags=("$top"/kernel/config/*.config)
case $variant in
debug|baseline|upstream) frags+=("$top"/kernel/config/$variant/*.config) ;;
mainline) frags+=("$top"/kernel/config/upstream/*.config) ;;
arm64|arm64-upstream)
	arch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	frags=("$top"/kernel/config/arm64/*.config) ;;
esac
cfgsum=$(sum_files "${frags[@]}")
# config_holds: every option the fragments ask for is in .config as asked
# (the last fragment to set one wins); each one that is not is named.
config_holds()
{
	local line opt val bad=0

	while IFS= read -r line; do
		opt=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			! grep -q "^$opt=" "$tree/.config" && continue
		elif grep -qx "$line" "$tree/.config"; then
			continue
		fi
		echo "kernel: $line was asked for but .config disagrees" >&2
		bad=1
	done < <(grep -h '^CONFIG_' "${frags[@]}" |
		 awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }')
	return $bad
}
# Regenerated when a fragment changed, and when .config lost an option it
# asked for: a make run by hand at an earlier patch of the series, whose
# Kconfig refused the option, rewrites .config through syncconfig.
if [ "$(cat "$tree/.tagtrace-config" 2>/dev/null)" != "$cfgsum" ] ||
   [ ! -f "$tree/.config" ] || ! config_holds 2> /dev/null; then
	make -C "$tree" -s "${arch[@]}" tinyconfig
	(cd "$tree" && env "${arch[@]}" ./scripts/kconfig/merge_config.sh \
		-m .config "${frags[@]}" > /dev/null)
	make -C "$tree" -s "${arch[@]}" olddefconfig
	# Every option asked for must have survived olddefconfig.
	config_holds || exit 1
	echo "$cfgsum" > "$tree/.tagtrace-config"
fi

if [ ${#arch[@]} -gt 0 ]; then
	make -C "$tree" -j"$(nproc)" "${arch[@]}" \
		CC="ccache aarch64-linux-gnu-gcc" Image
	make -C "$tree" -s "${arch[@]}" headers_install \
		INSTALL_HDR_PATH="$tree/usr-headers"
	echo "kernel: $tree/arch/arm64/boot/Image"
	exit 0
fi
# Every x86 variant has CONFIG_MODULES (kernel/config/tagtrace.config); the
# modules target writes Module.symvers, which building the test modules
# outside the tree needs (make modules-rig).
targets=(bzImage modules)
make -C "$tree" -j"$(nproc)" CC="ccache gcc" "${targets[@]}"
# Headers for the selftests and tools built against this kernel.
make -C "$tree" -s headers_install INSTALL_HDR_PATH="$tree/usr-headers"
echo "kernel: $tree/arch/x86/boot/bzImage"
