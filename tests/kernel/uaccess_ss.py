#!/usr/bin/env python3
"""Check that no user access in a vmlinux goes through the stack segment.

UAI ignores the tag only for references through DS and ES. A user pointer
dereferenced with %rbp or %rsp as the base register is an SS reference: on
UAI its tag is not ignored and the access faults (#SS, then -EFAULT). The
kernel dereferences user pointers with their tag (access_ok() untags only
for the check), so every user-access instruction must use another base.

The user-access instructions are the exception table entries of the user
access types. Prints TAP (unnumbered). Usage: uaccess_ss.py VMLINUX
"""
import re
import struct
import subprocess
import sys

EX_TYPE_UACCESS = 3
EX_TYPE_IMM_REG = 17    # with imm -EFAULT: EX_TYPE_EFAULT_REG
EX_TYPE_UCOPY_LEN = 19
EFAULT = 14


def user_access_sites(vmlinux):
    """Addresses of the exception table's user-access instructions."""
    out = subprocess.run(['readelf', '-S', '-W', vmlinux], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'__ex_table\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+'
                  r'([0-9a-f]+)', out)
    if not m:
        return None
    addr, off, size = (int(x, 16) for x in m.groups())
    with open(vmlinux, 'rb') as f:
        f.seek(off)
        table = f.read(size)
    sites = []
    for i in range(0, size - size % 12, 12):
        insn, _fixup, data = struct.unpack_from('<iii', table, i)
        typ, imm = data & 0xff, data >> 16
        if typ in (EX_TYPE_UACCESS, EX_TYPE_UCOPY_LEN) or \
           (typ == EX_TYPE_IMM_REG and imm == -EFAULT):
            sites.append(addr + i + insn)
    return sites


def disassemble(vmlinux, wanted):
    """Instruction text at each wanted address."""
    proc = subprocess.Popen(['objdump', '-d', '--no-show-raw-insn', vmlinux],
                            stdout=subprocess.PIPE, text=True)
    found = {}
    for line in proc.stdout:
        m = re.match(r'^\s*([0-9a-f]{16}):\s+(.*)$', line)
        if m:
            a = int(m.group(1), 16)
            if a in wanted:
                found[a] = m.group(2).strip()
    proc.wait()
    return found


def main():
    vmlinux = sys.argv[1]
    sites = user_access_sites(vmlinux) or []
    n = len(sites)
    # A 6.12 x86-64 kernel has a few hundred: fewer means a parse error.
    print(('ok' if n >= 100 else 'not ok') +
          f' - {n} user-access instructions in the exception table')
    insns = disassemble(vmlinux, set(sites))
    missing = [a for a in sites if a not in insns]
    print(('ok' if not missing else 'not ok') +
          f' - all of them disassembled ({len(missing)} not)')
    for a in missing[:10]:
        print(f'#   {a:#x}')
    ss = [(a, insns[a]) for a in sites
          if a in insns and re.search(r'\(%(rbp|rsp)[,)]', insns[a])]
    print(('ok' if not ss else 'not ok') +
          f' - none addresses user memory through %rbp or %rsp (SS), '
          f'which UAI does not untag ({len(ss)} do)')
    for a, text in ss[:20]:
        print(f'#   {a:#x}: {text}')
    print('1..3')
    return 0 if n >= 100 and not missing and not ss else 1


if __name__ == '__main__':
    sys.exit(main())
