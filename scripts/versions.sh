# The Debian source versions the kernel series and the QEMU patch are made for.
# To move to newer ones: change these, run `make kernel qemu`, refresh any patch
# that no longer applies (see doc/kernel-series.md, "Moving to a newer Debian
# point release").
LINUX_SOURCE_VERSION=6.12.118-1~deb12u1
QEMU_SOURCE_VERSION=1:7.2+dfsg-7+deb12u18
