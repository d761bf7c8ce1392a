#!/bin/bash
# bzimage-from.sh TREE VMLINUX OUT: the bzImage TREE's build would make
# from VMLINUX instead of TREE/vmlinux, for a test that boots a changed
# image (tests/kernel/test-uaccess-uncounted.sh). Replays, in a scratch
# directory that links to TREE and has its own copy of arch/x86/boot, the
# commands kbuild recorded for each step from vmlinux to bzImage (its
# .cmd files, expanded by make as kbuild expands them); TREE is not
# written. TREE must have been built (make kernel).
set -euo pipefail
tree=$(cd "$1" && pwd)
vmlinux=$2
out=$3
s=$(mktemp -d)
trap 'rm -rf "$s"' EXIT

for e in "$tree"/* "$tree"/.config; do
	case ${e##*/} in arch|vmlinux) ;; *) ln -s "$e" "$s/${e##*/}" ;; esac
done
mkdir -p "$s/arch/x86"
for e in "$tree"/arch/*; do
	[ "${e##*/}" = x86 ] || ln -s "$e" "$s/arch/${e##*/}"
done
for e in "$tree"/arch/x86/*; do
	[ "${e##*/}" = boot ] || ln -s "$e" "$s/arch/x86/${e##*/}"
done
cp -a "$tree/arch/x86/boot" "$s/arch/x86/boot"
cp "$vmlinux" "$s/vmlinux"
# The compressors, as the top Makefile exports them to its commands.
export KGZIP=gzip KBZIP2=bzip2 LZMA=lzma LZ4=lz4 XZ=xz ZSTD=zstd
export ARCH=x86 SRCARCH=x86

# step TARGET: run the command kbuild last used to make TARGET.
step()
{
	local cmd
	cmd=$s/$(dirname "$1")/.$(basename "$1").cmd

	[ -f "$cmd" ] || { echo "bzimage-from: no $cmd" >&2; return 1; }
	# pound: scripts/Kbuild.include's, which the .cmd files use.
	printf 'pound := \\#\ninclude %s\n.PHONY: replay\nreplay:\n\t$(savedcmd_%s)\n' \
		"$cmd" "$1" > "$s/.replay.mk"
	make -s -C "$s" -f .replay.mk replay
}

step arch/x86/boot/compressed/vmlinux.bin
if [ -f "$s/arch/x86/boot/compressed/.vmlinux.relocs.cmd" ]; then
	step arch/x86/boot/compressed/vmlinux.relocs
	step arch/x86/boot/compressed/vmlinux.bin.all
fi
# The compressed payload, whichever compressor the configuration chose.
payload=$(sed -n 's/^savedcmd_\(arch\/x86\/boot\/compressed\/vmlinux\.bin\.[a-z0-9]*\) .*/\1/p' \
	"$s"/arch/x86/boot/compressed/.vmlinux.bin.*.cmd | grep -v 'bin\.all$')
step "$payload"
step arch/x86/boot/compressed/piggy.S
step arch/x86/boot/compressed/piggy.o
step arch/x86/boot/compressed/vmlinux
step arch/x86/boot/vmlinux.bin
step arch/x86/boot/zoffset.h
step arch/x86/boot/header.o
step arch/x86/boot/setup.elf
step arch/x86/boot/setup.bin
step arch/x86/boot/bzImage
cp "$s/arch/x86/boot/bzImage" "$out"
