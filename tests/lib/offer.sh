# shellcheck shell=bash
# offer CPU: the rig arguments that boot CPU with its tagging offered. The
# guest kernel has mitigations on, as distributions build theirs: it
# offers LAM with LASS (--cpu lam) as it is, UAI only with mitigations=off
# (Documentation/arch/x86/tagged-addr.rst, "When tagging is offered").
offer()
{
	echo --cpu "$1"
	if [ "$1" = uai ]; then
		echo --append mitigations=off
	fi
}
