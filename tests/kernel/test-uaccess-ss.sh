#!/bin/sh
# Host-side check of the built guest kernel: no user-access instruction
# uses an SS-based operand, which UAI would not untag (uaccess_ss.py).
cd "$(dirname "$0")/../.." || exit 1
exec python3 tests/kernel/uaccess_ss.py build/linux/vmlinux
