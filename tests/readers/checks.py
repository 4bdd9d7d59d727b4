"""What the reader tests share: counting checks and the closing line
"N passed, M failed" (CTest's logs and CI read it)."""
PASS, FAIL = [0], []


def check(cond, what):
    """Counts a check; prints what failed."""
    if cond:
        PASS[0] += 1
    else:
        FAIL.append(what)
        print("FAIL:", what, flush=True)
    return bool(cond)


def eq(got, want, what):
    return check(got == want, "%s: got %r, want %r" % (what, got, want))


def summary():
    """Prints the closing line; returns the exit status."""
    print("%d passed, %d failed" % (PASS[0], len(FAIL)))
    return 1 if FAIL else 0
