#!/usr/bin/env python3
"""progress.py SMCHECK FIXTURES_DIR: progress a person sees. smcheck reads a wheel of 6 MiB of
library over a slow local server (tests/httpd.py's /throttle/: 1.3 MB/s, some 8 s) under a
pseudo-terminal: its progress line must arrive while the read runs (not when it ends), with the
total the wheel's directory gives, at most a few times a second, and be erased before the report.
With stderr not a terminal, nothing of it is written. Prints one line per check and
"N passed, M failed"."""
import base64
import hashlib
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

from harness import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
SMCHECK, FIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PROGRESS = re.compile(rb"\r\x1b\[Ksmcheck: ([^\r\n]*)")


def slow_wheel(out):
    """The demo wheel of fixtures/demo whose library has 6 MiB of random bytes after its end
    (stored: they cross the network as they are)."""
    demo = [f for f in os.listdir(os.path.join(FIX, "demo")) if f.startswith("demo_ptx-")][0]
    path = os.path.join(out, "slow_demo-1.0-" + demo.split("-", 2)[2])
    with zipfile.ZipFile(os.path.join(FIX, "demo", demo)) as src, zipfile.ZipFile(path, "w") as z:
        members = [(i.filename, src.read(i)) for i in src.infolist()]
        members = [(n, d + os.urandom(6 << 20) if n.endswith(".so") else d) for n, d in members]
        record = [n for n, _ in members if n.endswith("/RECORD")][0]
        rows = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(
            hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d))
            for n, d in members if n != record) + record + ",,\n"
        for n, d in members:
            z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)),
                       rows.encode() if n == record else d,
                       zipfile.ZIP_STORED if n.endswith(".so") else zipfile.ZIP_DEFLATED)
    return os.path.basename(path)


def under_pty(args, env):
    """Runs args with a pseudo-terminal as stdin, stdout and stderr: [(seconds, bytes)] as they
    came, the exit status, and the seconds it ran."""
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(args[0], args, env)
    got = []
    while True:
        r, _, _ = select.select([fd], [], [], 60)
        if not r:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the child's side closed
            break
        if not data:
            break
        got.append((time.monotonic() - start, data))
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return got, os.waitstatus_to_exitcode(status), time.monotonic() - start


def main():
    work = tempfile.mkdtemp(prefix="smcheck-progress-")
    www = os.path.join(work, "www")
    os.mkdir(www)
    name = slow_wheel(www)
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = "http://127.0.0.1:%d/throttle/files/%s" % (int(server.stdout.readline()), name)
        env = dict(os.environ, HOME=work, TMPDIR=work, SMCHECK_LIBCUDA="/nonexistent",
                   no_proxy="127.0.0.1", NO_PROXY="127.0.0.1", TERM="xterm")
        args = [SMCHECK, "--no-cache", "--gpu", "sm_80", url]
        # Off a terminal, at the same time (the server sends both at its pace).
        off = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got, rc, secs = under_pty(args, env)
        text = b"".join(d for _, d in got)
        lines = [(t, m.group(1)) for t, d in got for m in PROGRESS.finditer(d)]
        shown = [l for _, l in lines if l]
        check(rc == 0 and secs > 3, "under a terminal: read in %.1f s, exit %d" % (secs, rc),
              text[-600:])
        check(lines and lines[0][0] < secs - 1.5,
              "progress arrives while the read runs: first at %.1f s of %.1f s" % (
                  lines[0][0] if lines else -1, secs), text[:600])
        check(len(shown) >= 3 and len(shown) <= secs * 4 + 2,
              "a few updates a second: %d in %.1f s" % (len(shown), secs), shown[:5])
        check(any(re.match(rb"\s*\d+% [\d.]+ of 6\.[23] MB, ", l) for l in shown),
              "with the total the wheel's directory gives (\"N% X of 6.3 MB\")", shown[-3:])
        end = text.rfind(b"\r\x1b[K")
        report = text.find(b"library found")
        check(end >= 0 and report > end and not PROGRESS.search(text[end + 4:]),
              "erased before the report, none after it", text[end - 200 if end > 200 else 0:][:600])
        _, err = off.communicate(timeout=120)
        check(off.returncode == 0 and b"MB/s" not in err and b"\x1b" not in err,
              "off a terminal: no progress written", err[-400:])
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
