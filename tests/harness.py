"""harness.py: what every Python test shares: one line per check ("ok     WHAT", or "FAILED WHAT"
with what was compared), the closing "N passed, M failed" with its exit status, and a run
measured against a budget of time and memory."""
import os
import sys
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


def part():
    """Which checks a test runs, from SMCHECK_TEST_PART: "quick" (the README's test command),
    "long" (the big corpora, under ctest's label long), or, unset (a test run by hand), both."""
    return os.environ.get("SMCHECK_TEST_PART", "all")


def quick():
    return part() in ("quick", "all")


def long():
    return part() in ("long", "all")


def corpus(kind, fixtures=None):
    """A generated corpus, to read and never write: "wheels" (tests/make_wheels.py: wheels,
    packages, environments, images) or "hostile" (fixtures/gen.py --hostile). The one ctest's
    fixture `corpus` made for every test (tests/corpus.py, in SMCHECK_TEST_CORPUS), else a fresh
    one. Returns (folder, cleanup)."""
    shared = os.environ.get("SMCHECK_TEST_CORPUS")
    if shared and os.path.exists(os.path.join(shared, "done")):
        return os.path.join(shared, kind), lambda: None
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="smcheck-%s-" % kind)
    out = os.path.join(work, kind)
    subprocess.run(make_corpus(kind, out, fixtures or os.path.join(os.path.dirname(here), "fixtures")),
                   check=True, capture_output=True)

    def cleanup():
        subprocess.run(["chmod", "-R", "u+rwx", work])
        subprocess.run(["rm", "-rf", work])
    return out, cleanup


def make_corpus(kind, out, fixtures):
    """The command that writes a corpus of that kind into out."""
    here = os.path.dirname(os.path.abspath(__file__))
    if kind == "wheels":
        return [sys.executable, os.path.join(here, "make_wheels.py"), out]
    return [sys.executable, os.path.join(fixtures, "gen.py"), "--hostile", out]
