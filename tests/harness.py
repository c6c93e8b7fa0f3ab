"""harness.py: what every Python test shares: one line per check ("ok     WHAT", or "FAILED WHAT"
with what was compared), the closing "N passed, M failed" with its exit status, and a run
measured against a budget of time and memory."""
import os
import subprocess
import tempfile
import time

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


def measured(cmd, cwd, env, limit, keep):
    """Runs cmd; its exit status, seconds, peak RSS (KiB), the first keep bytes of its stdout
    and stderr, and how many bytes they were. Killed at limit seconds (a run past its budget has
    failed anyway). What comes back is read only up to keep: this process's own peak is every
    later child's floor (Linux carries a peak RSS over fork and exec)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=env)
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > limit:
                p.kill()
            time.sleep(0.01)
        p.returncode = 0
        secs = time.monotonic() - start
        sizes = [f.seek(0, os.SEEK_END) for f in (out, err)]
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read(keep + 1))
        return (os.waitstatus_to_exitcode(status), secs, usage.ru_maxrss, texts[0], texts[1],
                sum(sizes))
