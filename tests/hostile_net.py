#!/usr/bin/env python3
"""hostile_net.py SMCHECK FIXTURES: the network, lock and cache paths against what a hostile or
careless server, lock or cache gives (issue 46), through tests/httpd.py on 127.0.0.1.

- No secret leaves: every way a URL comes in (a wheel URL, --index-url, --extra-index-url,
  PIP_INDEX_URL, a requirements file's options, a pylock.toml's and a uv.lock's wheel URLs, a
  redirect that adds credentials, percent-encoded user information), run for the text report,
  JSON with --sarif beside it, and with failures: the secret is in no output, no error line, no
  file written (the cache included), while the server saw it (its /auth/ pages answer 401
  without it).

Prints one line per check and "N passed, M failed".
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from harness import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
SMCHECK = os.path.abspath(sys.argv[1])
FIX = os.path.abspath(sys.argv[2])
sys.path.insert(0, HERE)
from httpd import SECRET  # noqa: E402  (the password its /auth/ pages want)

# What must not appear: a piece of the secret that its percent-encoded form keeps too.
SECRET_PIECE = SECRET.split("-")[1]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(args, sandbox, timeout=60, **extra):
    env = dict(os.environ, HOME=sandbox, TMPDIR=sandbox, XDG_CACHE_HOME=os.path.join(sandbox, "cache"),
               no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost",
               SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1")
    for k in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        env.pop(k, None)
    env.update(extra)
    p = subprocess.run([SMCHECK] + args, cwd=sandbox, env=env, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def written(sandbox):
    """Every file under the sandbox (the cache, HOME, TMPDIR, the working directory) and what it
    holds."""
    out = {}
    for d, _, files in os.walk(sandbox):
        for f in files:
            path = os.path.join(d, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, sandbox)] = fh.read().decode(errors="replace")
    return out


def secret_checks(base, www, work):
    wheels = {w.split("-")[0]: w for w in os.listdir(www) if w.endswith(".whl")}
    ptx = wheels["demo_ptx"]
    login = base.replace("http://", "http://__token__:%s@" % SECRET)
    login_enc = base.replace("http://", "http://__token__:%s@" % SECRET.replace("-", "%2D"))
    h = sha(os.path.join(www, ptx))
    wheel = "%s/auth/files/%s" % (login, ptx)
    pylock = """lock-version = "1.0"
created-by = "tests/hostile_net.py"

[[packages]]
name = "demo-ptx"
version = "1.0"
wheels = [{ url = "%s", hashes = { sha256 = "%s" } }]
""" % (wheel, h)
    uvlock = """version = 1
revision = 3
requires-python = ">=3.8"

[[package]]
name = "proj"
version = "0.1.0"
source = { editable = "." }
dependencies = [{ name = "demo-ptx" }]

[[package]]
name = "demo-ptx"
version = "1.0"
source = { registry = "%s/auth/simple" }
wheels = [{ url = "%s", hash = "sha256:%s" }]
""" % (login, wheel, h)
    reqs = "--index-url %s/auth/simple/\ndemo-ptx==1.0 --hash=sha256:%s\n" % (login, h)
    reqs_bad = "--index-url %s/auth/status/500/\ndemo-ptx==1.0\n" % login
    # name, arguments, files to write, environment, whether it reads the wheel (exit 0 or 1)
    cases = [
        ("a wheel URL", [wheel], {}, {}, True),
        ("a wheel URL percent-encoded", ["%s/auth/files/%s" % (login_enc, ptx)], {}, {}, True),
        ("a wheel URL whose #sha256= is wrong", [wheel + "#sha256=" + "0" * 64], {}, {}, False),
        ("a wheel URL the server does not have", ["%s/auth/files/nothing.whl" % login], {}, {}, False),
        ("a wheel URL nothing answers", ["http://__token__:%s@127.0.0.1:9/x.whl" % SECRET], {}, {},
         False),
        ("a redirect to a URL with credentials", ["%s/leak/files/%s" % (base, ptx)], {}, {}, True),
        ("--index-url", ["--index-url", login + "/auth/simple/", "demo-ptx==1.0"], {}, {}, True),
        ("--index-url without the project",
         ["--index-url", login + "/auth/simple/", "no-such-project==1.0"], {}, {}, False),
        ("--index-url that fails", ["--index-url", login + "/auth/status/500/", "demo-ptx==1.0"],
         {}, {}, False),
        ("--extra-index-url that fails", ["--index-url", base + "/simple/", "--extra-index-url",
                                           login + "/auth/status/503/", "demo-ptx==1.0"], {}, {},
         False),
        ("PIP_INDEX_URL", ["demo-ptx==1.0"], {}, {"PIP_INDEX_URL": login + "/auth/simple/"}, True),
        ("a requirements file's --index-url", ["requirements.txt"], {"requirements.txt": reqs}, {},
         True),
        ("a requirements file's --index-url that fails", ["requirements.txt"],
         {"requirements.txt": reqs_bad}, {}, False),
        ("a pylock.toml wheel URL", ["pylock.toml"], {"pylock.toml": pylock}, {}, True),
        ("a uv.lock wheel URL", ["uv.lock"], {"uv.lock": uvlock}, {}, True),
    ]
    for name, args, files, env, reads in cases:
        for label, mode in (("text", ["--gpu", "sm_80"]),
                            ("JSON, --sarif", ["--gpu", "sm_80", "--format", "json", "--sarif",
                                               "out.sarif"]),
                            ("SARIF, -o", ["--gpu", "sm_80", "--format", "sarif", "-o", "out.sarif"])):
            sandbox = tempfile.mkdtemp(dir=work)
            for f, text in files.items():
                with open(os.path.join(sandbox, f), "w") as fh:
                    fh.write(text)
            rc, out, err = run(mode + args, sandbox, **env)
            leaks = [where for where, text in [("stdout", out), ("stderr", err)] +
                     sorted(written(sandbox).items()) if SECRET_PIECE in text and where not in files]
            what = "%s (%s)" % (name, label)
            check(not leaks, "%s: the secret is in no output and no file" % what,
                  "in %s:\n%s\n%s" % (leaks, out[-800:], err[-800:]))
            shown = open(os.path.join(sandbox, "out.sarif")).read() if "-o" in mode else out + err
            if reads:
                named = "***@" in shown or "/leak/" in args[0]  # named by the URL given
                check(rc in (0, 1) and "demo_ptx/_kernels.so" in shown and named,
                      "%s: read with the credentials, named without them" % what,
                      "exit %d\n%s\n%s" % (rc, out[-600:], err[-600:]))
            else:
                lines = [l for l in err.splitlines() if l.startswith("smcheck: ")]
                check(rc == 2 and lines, "%s: an error line, exit 2" % what,
                      "exit %d\n%s" % (rc, err[-600:]))
            shutil.rmtree(sandbox, ignore_errors=True)


def main():
    work = tempfile.mkdtemp(prefix="smcheck-hostile-net-")
    www = os.path.join(work, "www")
    os.mkdir(www)
    for f in os.listdir(os.path.join(FIX, "demo")):
        if f.endswith(".whl"):
            shutil.copy(os.path.join(FIX, "demo", f), www)
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = "http://127.0.0.1:%d" % int(server.stdout.readline())
        secret_checks(base, www, work)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
