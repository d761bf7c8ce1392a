#!/bin/bash
# Build qemu-system-x86_64 and qemu-system-aarch64 from Debian's qemu 7.2
# source package plus the project's patches (tests/vm/qemu/*.patch): TCG
# emulation of LAM, UAI and LASS, and an MTE fix for the arm64 rig.
#
#   scripts/qemu.sh [TARGET...]   x86_64, aarch64 (default: both)
#
# build/qemu-src is the unpacked source package (Debian's own patches applied
# by dpkg-source) committed to git and tagged "debian"; our patches go on top
# with `git am`, re-applied to a pristine tree whenever they change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

targets=("${@:-x86_64}")
[ $# -gt 0 ] || targets=(x86_64 aarch64)
for t in "${targets[@]}"; do
	case $t in
	x86_64|aarch64) ;;
	*) echo "usage: qemu.sh [x86_64|aarch64]..." >&2; exit 2 ;;
	esac
done

src=$build/qemu-src
cache=/var/cache/tagtrace/src
ver=${QEMU_SOURCE_VERSION#*:}
dsc=$cache/qemu_$ver.dsc
export PATH=/usr/lib/ccache:$PATH

if [ ! -f "$dsc" ]; then
	echo "qemu: fetching the qemu $QEMU_SOURCE_VERSION source package"
	mkdir -p "$cache"
	(cd "$cache" && apt-get source --download-only -qq "qemu=$QEMU_SOURCE_VERSION")
fi

unpack()
{
	echo "qemu: unpacking $dsc into $src"
	dpkg-source -q -x "$dsc" "$src"
}
import_tree "$src" debian "$ver" unpack
apply_series "$src" debian qemu "$top"/tests/vm/qemu/*.patch

# Both guests' emulators from one patched source: x86_64 (LAM/UAI/LASS) in
# build/, aarch64 for the arm64 rig in build-arm64/, whose MTE needs
# tests/vm/qemu's target/arm fix (Debian's 7.2 binary looks every granule's
# allocation tag up at its page's first granule pair). Two build
# directories, each configured for its one target, so that adding the
# second leaves the first's configuration and objects as they were.
for t in "${targets[@]}"; do
	dir=$src/build
	[ $t = aarch64 ] && dir=$src/build-arm64
	if [ ! -f "$dir/build.ninja" ]; then
		mkdir -p "$dir"
		(cd "$dir" && ../configure --target-list=$t-softmmu \
			--without-default-features --enable-tcg --enable-attr \
			--enable-cap-ng --enable-virtfs --disable-docs \
			--disable-werror)
	fi
	ninja -C "$dir" qemu-system-$t
	echo "qemu: $dir/qemu-system-$t"
done
