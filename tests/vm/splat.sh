# What counts as a kernel splat in a guest's console log (sourced by
# tests/vm/run; tests/vm/test-rig.sh checks it against real kernel lines).
# shellcheck shell=bash

# What a splat starts with: WARN (cut here / WARNING:), BUG (BUG:, kernel
# BUG at, which KASAN, KFENCE and sleeping-in-atomic reports use too),
# lockdep (WARNING: possible ..., INFO: possible ...), oopses, a kernel #GP,
# UBSAN, hung tasks and RCU stalls ("rcu: INFO: rcu_preempt detected
# stalls on CPUs/tasks:", "... self-detected stall on CPU").
splat_re='-+\[ cut here \]-+|WARNING:|BUG:|kernel BUG at|Oops|general protection fault|UBSAN:|INFO: possible|INFO: task .* blocked|INFO: rcu_[a-z_]+ (self-)?detected stall'
# A user process's own fault, which the kernel logs when no handler takes
# the signal ("traps: prog[38] general protection fault ip:... sp:..."), is
# not a kernel splat.
user_trap_re='traps: .*\[[0-9]+\] (general protection fault|stack segment|trap )'

# splat_first FILE: "LINE:text" of the first splat in FILE; nothing if none.
splat_first()
{
	grep -nE -e "$splat_re" "$1" | grep -vE -e "$user_trap_re" | head -n 1
}
