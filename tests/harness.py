"""harness.py: what every Python test shares: one line per check ("ok     WHAT", or "FAILED WHAT"
with what was compared), and the closing "N passed, M failed" with its exit status."""

passed = failed = 0


def check(ok, what, detail=""):
    """Counts and prints one check; detail (shown only when it fails) says what was compared."""
    global passed, failed
    print(("ok     " if ok else "FAILED ") + what)
    if not ok and detail:
        print("       " + str(detail).replace("\n", "\n       ")[:2000])
    if ok:
        passed += 1
    else:
        failed += 1
    return bool(ok)


def equal(got, want, what):
    """A check that got == want, printing both when they differ."""
    return check(got == want, what, f"got:    {got!r}\nwanted: {want!r}")


def finish():
    """Prints the count; the exit status: 1 when a check failed."""
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
