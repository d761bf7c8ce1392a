#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""untag_sites.py VMLINUX FEATURE... > SCRIPT.bt

The untag sites of the given x86 feature numbers in VMLINUX: the entries
of .altinstructions (6.12's struct alt_instr: s32 instr_offset, s32
repl_offset, u16 cpuid, u16 flags, u8 instrlen, u8 replacementlen; 14
bytes, packed) for that feature with a replacement and no flags.
(static_cpu_has() tests of the same feature have an empty replacement:
they are not untag sites.) Written as a bpftrace script that prints, in
the guest, "FEATURE ADDRESS FIRST-BYTE" for each site as the running
kernel has it; the guest kernel has no KASLR, so the link addresses are
the running ones.

On stderr, one line per feature: "# FEATURE SITES GS", the number of
sites and how many replacements begin with the %gs prefix (0x65) of the
untag's `and %gs:mask, reg`. apply_alternatives() either copies that in
or leaves the site NOPs, and no NOP begins with 0x65: a site's first byte
says whether the untag was patched in."""
import struct
import subprocess
import sys

ENTRY = struct.Struct('<iiHHBB')


def sections(path):
    """name -> (address, file offset, size)"""
    out = subprocess.run(['readelf', '-SW', path], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        if ']' not in line:
            continue
        f = line.split(']', 1)[1].split()
        if len(f) > 4 and f[1] != 'Type':
            found[f[0]] = (int(f[2], 16), int(f[3], 16), int(f[4], 16))
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: untag_sites.py VMLINUX FEATURE... > SCRIPT.bt')
    path, features = sys.argv[1], [int(f) for f in sys.argv[2:]]
    secs = sections(path)
    for name in ('.altinstructions', '.altinstr_replacement'):
        if name not in secs:
            sys.exit(f'untag_sites.py: {path} has no {name} section')
    addr, off, size = secs['.altinstructions']
    r_addr, r_off, r_size = secs['.altinstr_replacement']
    with open(path, 'rb') as f:
        blob = f.read()
    sites = {f: [] for f in features}
    gs = {f: 0 for f in features}
    for i in range(0, size - size % ENTRY.size, ENTRY.size):
        instr, repl, cpuid, flags, _, rlen = ENTRY.unpack_from(blob, off + i)
        if cpuid not in sites or flags or not rlen:
            continue
        sites[cpuid].append(addr + i + instr)
        at = addr + i + 4 + repl
        if r_addr <= at < r_addr + r_size and blob[r_off + at - r_addr] == 0x65:
            gs[cpuid] += 1
    print('BEGIN\n{')
    for f in features:
        for s in sites[f]:
            print(f'\tprintf("{f} %lx %02x\\n", {s:#x}, '
                  f'*(uint8 *)kptr({s:#x}));')
        print(f'# {f} {len(sites[f])} {gs[f]}', file=sys.stderr)
    print('\texit();\n}')


if __name__ == '__main__':
    main()
