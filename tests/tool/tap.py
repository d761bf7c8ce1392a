"""TAP lines for the Python checkers in tests/tool: unnumbered, as the
shell tests print them; tests/lib/tap.sh numbers them."""

failed = 0


def ok(cond, desc, *diag):
    """One result; on failure the diagnostics, one per line."""
    global failed
    print(("ok - " if cond else "not ok - ") + desc)
    if not cond:
        failed += 1
        for d in diag:
            print("#   " + str(d))
    return cond
