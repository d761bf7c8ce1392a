#!/bin/bash
# The series' count of user accesses UAI does not untag (uaccess_ss_sites,
# kernel/series 3/0011) fails closed: as compiled it holds "not counted"
# (0xffffffff), which the boot CPU's UAI probe refuses like a non-zero
# count, and only arch/x86/tools/uaccess_ss, run after the link by
# Makefile.postlink, turns it into the count (0 in the guest kernel). So
# vmlinux.o, which the post-link step never touches, holds 0xffffffff and
# vmlinux holds 0; and a guest kernel made from vmlinux with the value put
# back as compiled, as a link without the post-link step leaves it, boots on
# --cpu uai with mitigations=off without offering UAI and says why, where
# the guest kernel itself offers it (tests/kernel/uncounted-guest.sh).
# Host side and two guest boots.
. "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1
tree=${UNCOUNTED_TREE:-build/linux}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

# sym FILE [VALUE]: uaccess_ss_sites in the ELF image FILE, as 8 hex
# digits (little-endian u32); with VALUE, write VALUE there first. Reads
# the section headers, the symbol table and its strings and the four
# bytes, not the whole file (vmlinux.o is mostly debug info).
sym()
{
	python3 - "$@" <<'EOF'
import struct, sys
path = sys.argv[1]

def at(f, off, size):
    f.seek(off)
    return f.read(size)

with open(path, 'r+b' if len(sys.argv) > 2 else 'rb') as f:
    hdr = at(f, 0, 64)
    shoff, = struct.unpack_from('<Q', hdr, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', hdr, 0x3a)
    sh = at(f, shoff, shentsize * shnum)
    secs = [struct.unpack_from('<IIQQQQIIQQ', sh, i * shentsize)
            for i in range(shnum)]
    for s in secs:
        if s[1] != 2:			# SHT_SYMTAB
            continue
        syms = at(f, s[4], s[5])
        strs = at(f, secs[s[6]][4], secs[s[6]][5])
        for off in range(0, s[5], 24):
            name, info, other, shndx, value, size = \
                struct.unpack_from('<IBBHQQ', syms, off)
            end = strs.index(b'\0', name)
            if strs[name:end] != b'uaccess_ss_sites':
                continue
            sec = secs[shndx]
            # Relocatable: value is an offset in the section; else an address.
            pos = sec[4] + value - (sec[3] if sec[3] and value >= sec[3] else 0)
            if len(sys.argv) > 2:
                f.seek(pos)
                f.write(struct.pack('<I', int(sys.argv[2], 16)))
            print('%08x' % struct.unpack('<I', at(f, pos, 4))[0])
            sys.exit(0)
sys.exit(1)
EOF
}

if [ ! -f $tree/vmlinux ] || [ ! -f $tree/vmlinux.o ]; then
	ok 1 "$tree/vmlinux and vmlinux.o exist (make kernel)"
	tap_done
	exit
fi
is "$(sym $tree/vmlinux.o)" ffffffff \
	"vmlinux.o, before the post-link step, holds \"not counted\" in uaccess_ss_sites"
is "$(sym $tree/vmlinux)" 00000000 \
	"vmlinux, after it, holds the count: no user access through SS, FS or GS"

# The guest kernel offers UAI; made from vmlinux without the count, not.
# shellcheck disable=SC2046
tap_guest $(offer uai) -- tests/kernel/uncounted-guest.sh 6 guest-kernel

# The replay of kbuild's steps from vmlinux to bzImage is faithful: from
# the tree's own vmlinux it makes the tree's bzImage.
if tests/kernel/bzimage-from.sh $tree $tree/vmlinux $d/same > $d/log 2>&1 &&
   cmp -s $d/same $tree/arch/x86/boot/bzImage; then
	ok 0 "tests/kernel/bzimage-from.sh remakes $tree's bzImage byte for byte"
else
	ok 1 "tests/kernel/bzimage-from.sh remakes $tree's bzImage byte for byte" \
		"$(tail -n 20 $d/log)"
fi

# As a link without the post-link step leaves it: the value as compiled.
cp $tree/vmlinux $d/vmlinux
sym $d/vmlinux "$(sym $tree/vmlinux.o)" > /dev/null
if ! tests/kernel/bzimage-from.sh $tree $d/vmlinux $d/bzImage > $d/log 2>&1; then
	ok 1 "a bzImage is made from vmlinux with uaccess_ss_sites as compiled" \
		"$(tail -n 20 $d/log)"
	tap_done
	exit
fi
ok 0 "a bzImage is made from vmlinux with uaccess_ss_sites as compiled"
# shellcheck disable=SC2046
tap_guest $(offer uai) --kernel $d/bzImage -- tests/kernel/uncounted-guest.sh 0 uncounted
tap_done
