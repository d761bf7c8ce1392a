#!/bin/bash
# Build qemu-system-x86_64 from Debian's qemu 7.2 source package plus the
# project's TCG emulation of LAM and UAI (tests/vm/qemu/*.patch).
#
# build/qemu-src is the unpacked source package (Debian's own patches applied
# by dpkg-source) committed to git and tagged "debian"; our patches go on top
# with `git am`, re-applied to a pristine tree whenever they change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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

if [ ! -f "$src/build/build.ninja" ]; then
	mkdir -p "$src/build"
	(cd "$src/build" && ../configure --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-attr \
		--enable-cap-ng --enable-virtfs --disable-docs --disable-werror)
fi
ninja -C "$src/build" qemu-system-x86_64
echo "qemu: $src/build/qemu-system-x86_64"
