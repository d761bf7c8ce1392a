"""TAP for the Python checkers in tests/tool: numbered results and, from
done(), the plan after them. tests/lib/tap.sh binds the plan: a checker
that dies before done() (a traceback) leaves numbered results without a
plan, and its guest run fails."""

failed = 0
count = 0


def ok(cond, desc, *diag):
    """One result; on failure the diagnostics, one per line."""
    global failed, count
    count += 1
    print(("ok " if cond else "not ok ") + f"{count} - {desc}")
    if not cond:
        failed += 1
        for d in diag:
            print("#   " + str(d))
    return cond


def done():
    """The plan; the exit status: 1 if a result failed or none was
    printed."""
    print(f"1..{count}")
    return 1 if failed or not count else 0
