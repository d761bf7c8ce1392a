#!/bin/bash
# Debian's own kernel for the rig (tests/vm/run --distro): the
# linux-image-*-amd64-unsigned package of LINUX_SOURCE_VERSION, the version
# the series is made for, fetched with apt-get download into
# build/distro-kernel/ (kept there: a second run downloads nothing), its
# vmlinuz and config, and an initramfs that loads the modules the rig's
# 9p root needs (Debian builds them as modules) and hands over to the rig's
# init (tests/vm/initrd-init.c).
#
#   scripts/distro-kernel.sh INITRD-INIT
#
# Writes build/distro-kernel/{vmlinuz,config,release,initrd.img}.
# DISTRO_KERNEL_VERSION=V takes Debian's version V instead (another point
# release of linux-image-6.12-amd64).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/versions.sh"
dir=$top/build/distro-kernel
ver=${DISTRO_KERNEL_VERSION:-$LINUX_SOURCE_VERSION}
# What the rig's root needs: the 9p filesystem over virtio-pci
# (tests/vm/run: -device virtio-9p-pci, rootfstype=9p, trans=virtio).
# What they depend on is added before them.
want_modules=(virtio_pci 9pnet_virtio 9p)

die()
{
	echo "distro-kernel: $*" >&2
	exit 1
}

[ $# = 1 ] || die "usage: scripts/distro-kernel.sh INITRD-INIT"
initrd_init=$(realpath -- "$1")
[ -x "$initrd_init" ] || die "no initramfs init at $1 (make build/vm/initrd-init)"
for t in apt-cache apt-get dpkg-deb modinfo cpio xz; do
	command -v $t > /dev/null || die "no $t here (make deps)"
done
mkdir -p "$dir"

# The image package of that version: the meta package names it (the
# signed one); the unsigned one is the same kernel without the EFI
# signature, which QEMU's -kernel does not check.
signed=$(apt-cache show "linux-image-6.12-amd64=$ver" 2>/dev/null |
	 sed -n 's/^Depends: \(linux-image-[^ ,]*\).*/\1/p' | head -n 1)
[ -n "$signed" ] ||
	die "apt knows no linux-image-6.12-amd64 version $ver (apt-get update, or change LINUX_SOURCE_VERSION in scripts/versions.sh)"
pkg=$signed-unsigned
release=${signed#linux-image-}
apt-cache show "$pkg=$ver" > /dev/null 2>&1 ||
	die "apt knows no $pkg version $ver (apt-get update?)"

# The package, downloaded once.
deb=$dir/${pkg}_${ver//:/%3a}_amd64.deb
if [ ! -s "$deb" ]; then
	size=$(apt-cache show "$pkg=$ver" | sed -n 's/^Size: //p' | head -n 1)
	echo "distro-kernel: downloading $pkg $ver ($((size / 1000000)) MB)"
	tmp=$(mktemp -d "$dir/download.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# apt fetches as its own user where that user can write.
	if id _apt > /dev/null 2>&1; then
		chown _apt "$tmp" || die "cannot hand $tmp to apt's user _apt"
	fi
	(cd "$tmp" && apt-get download -q "$pkg=$ver") ||
		die "apt-get download $pkg=$ver failed"
	got=("$tmp"/*.deb)
	[ ${#got[@]} = 1 ] && [ -s "${got[0]}" ] ||
		die "apt-get download $pkg=$ver left no package"
	mv "${got[0]}" "$deb"
	rm -rf "$tmp"
	trap - EXIT
fi
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] ||
	die "$deb is not version $ver; remove it and run again"

# Up to date: the initramfs is newer than the package, its init and this
# script.
out=$dir/initrd.img
if [ -s "$out" ] && [ -s "$dir/vmlinuz" ] &&
   [ "$(cat "$dir/release" 2>/dev/null)" = "$release" ] &&
   [ "$out" -nt "$deb" ] && [ "$out" -nt "$initrd_init" ] && [ "$out" -nt "$0" ]; then
	echo "distro-kernel: $release up to date in ${dir#"$top"/}"
	exit 0
fi

work=$(mktemp -d "$dir/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "distro-kernel: unpacking $pkg $ver"
dpkg-deb -x "$deb" "$work/pkg" || die "cannot unpack $deb"
mods=$work/pkg/lib/modules/$release
[ -d "$mods" ] || mods=$work/pkg/usr/lib/modules/$release
[ -d "$mods" ] || die "$deb has no modules for $release"
[ -f "$work/pkg/boot/vmlinuz-$release" ] || die "$deb has no boot/vmlinuz-$release"
[ -f "$work/pkg/boot/config-$release" ] || die "$deb has no boot/config-$release"
config=$work/pkg/boot/config-$release

# Compressed modules are loaded as they are if the kernel decompresses
# them itself (finit_module's MODULE_INIT_COMPRESSED_FILE), else
# decompressed here.
kdecompress=0
grep -q '^CONFIG_MODULE_DECOMPRESS=y' "$config" && kdecompress=1

root=$work/root
mkdir -p "$root/dev" "$root/proc" "$root/newroot" "$root/modules"
: > "$root/modules/order"
: > "$work/seen"

# Each module's file by name ('-' and '_' alike, as the kernel has them).
find "$mods/kernel" -name '*.ko*' | sed 's|.*/\([^/]*\)\.ko.*|\1 &|' |
	awk '{ gsub("-", "_", $1); print }' > "$work/files"

# add NAME: NAME's dependencies (modinfo's depends=, read from the few
# modules needed rather than depmod over all of them), then NAME, into
# the load order; nothing for a module built in.
add()
{
	local name=${1//-/_} path file dep deps

	grep -qxF -- "$name" "$work/seen" && return 0
	echo "$name" >> "$work/seen"
	path=$(awk -v n="$name" '$1 == n { print $2; exit }' "$work/files")
	if [ -z "$path" ]; then
		grep -q "/$name\.ko\$" "$mods/modules.builtin" ||
			grep -q "/${1}\.ko\$" "$mods/modules.builtin" ||
			die "$release has no module $1, built in or not"
		return 0
	fi
	deps=$(modinfo -F depends "$path") || die "modinfo cannot read $path"
	for dep in ${deps//,/ }; do
		add "$dep"
	done
	file=$(basename "$path")
	case $file in
	*.ko) cp "$path" "$root/modules/$file" ;;
	*.ko.xz)
		if [ $kdecompress = 1 ]; then
			cp "$path" "$root/modules/$file"
		else
			file=${file%.xz}
			xz -dc "$path" > "$root/modules/$file" ||
				die "cannot decompress $path"
		fi ;;
	*) die "cannot load $file: neither .ko nor .ko.xz" ;;
	esac
	echo "$file" >> "$root/modules/order"
}
for m in "${want_modules[@]}"; do
	add "$m"
done
n=$(wc -l < "$root/modules/order")
cp "$initrd_init" "$root/init"
echo "distro-kernel: initramfs with $n modules: $(tr '\n' ' ' < "$root/modules/order")"

# cpio newc, root-owned, in a stable order, with the package's date:
# the same package and init make the same archive.
stamp=$(stat -c %Y "$work/pkg/boot/vmlinuz-$release")
find "$root" -exec touch -h -d "@$stamp" {} + || die "cannot date the initramfs's files"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) > "$work/initrd.img" ||
	die "cpio failed"
cp "$work/pkg/boot/vmlinuz-$release" "$dir/vmlinuz.tmp"
cp "$config" "$dir/config.tmp"
mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
mv "$dir/config.tmp" "$dir/config"
echo "$release" > "$dir/release"
mv "$work/initrd.img" "$out"
echo "distro-kernel: $release: ${dir#"$top"/}/vmlinuz ($(($(stat -c %s "$dir/vmlinuz") / 1024)) KiB)," \
	"initrd.img ($(($(stat -c %s "$out") / 1024)) KiB)"
