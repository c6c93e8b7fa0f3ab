#!/usr/bin/env python3
"""remote_check.py [--smcheck PATH] [--gpu LIST] [--python-version X.Y] [--platform P] SPEC...

Checks smcheck's remote reading against the real package index, for a person to run (it downloads):
for each requirement SPEC (torch==2.8.0), smcheck judges it straight from the index; then pip
downloads the same wheel (`pip download --no-deps --only-binary=:all:`) and smcheck judges the
file; the two JSON reports must agree on every library and verdict, and on the exit status. It
also times the remote check against `curl -o /dev/null` of the same wheel URL, in the same run,
and prints the ratio (issue 27's bound: 1.15x). Needs pip and curl; nothing of it runs in CI.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, **kw):
    t = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, **kw)
    return p, time.monotonic() - t


def pip_platforms(platform):
    """pip's --platform flags for smcheck's platform: pip takes a manylinux tag literally (no
    older ones), so a glibc 2.28 system is every manylinux tag up to 2_28, as uv has it."""
    arch = {"linux-x86_64": "x86_64", "linux-aarch64": "aarch64"}.get(platform)
    if not arch:
        return ["--platform", {"windows-amd64": "win_amd64"}.get(platform, platform)]
    tags = ["manylinux_2_%d_%s" % (v, arch) for v in range(28, 16, -1)] + ["manylinux2014_" + arch]
    return [f for t in tags for f in ("--platform", t)]


def comparable(report, where):
    """The first input's libraries, distributions and the overall verdicts, with the wheel's
    location (its URL, or its path on disk) written as WHEEL."""
    doc = json.loads(report.decode().replace(json.dumps(where)[1:-1], "WHEEL"))
    inp = doc["inputs"][0]
    return inp["libraries"], inp["distributions"], inp["errors"], doc["overall"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[2])
    ap.add_argument("--smcheck", default=os.path.join(HERE, "..", "build", "smcheck"))
    ap.add_argument("--gpu", default="sm_75,sm_80,sm_90,sm_120")
    ap.add_argument("--python-version", default="3.12")
    ap.add_argument("--platform", default="linux-x86_64")
    ap.add_argument("specs", nargs="+")
    a = ap.parse_args()
    bad = 0
    work = tempfile.mkdtemp(prefix="smcheck-remote-check-")
    try:
        for spec in a.specs:
            base = [a.smcheck, "--gpu", a.gpu, "--format", "json", "--python-version",
                    a.python_version, "--platform", a.platform, "--no-cache"]
            remote, t_remote = timed(base + [spec])
            dl = os.path.join(work, spec.replace("=", "_"))
            os.makedirs(dl)
            got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                  "--only-binary=:all:"] + pip_platforms(a.platform) + [
                                  "--python-version", a.python_version, "-d", dl, spec],
                                 capture_output=True, text=True)
            files = os.listdir(dl)
            if got.returncode or len(files) != 1:
                print("%s: pip download failed: %s" % (spec, got.stderr.strip()[-300:]))
                bad += 1
                continue
            local, _ = timed(base + [os.path.join(dl, files[0])])
            url = None
            try:
                url = json.loads(remote.stdout)["inputs"][0]["distributions"][0]["location"]
            except (ValueError, IndexError, KeyError):
                pass
            same = url is not None and remote.returncode == local.returncode and \
                comparable(remote.stdout, url) == comparable(local.stdout, os.path.join(dl, files[0]))
            ratio = ""
            if url:
                _, t_curl = timed(["curl", "-sS", "-o", "/dev/null", url])
                ratio = "remote %.2f s, curl %.2f s: %.2fx" % (t_remote, t_curl, t_remote / t_curl)
            print("%s: %s (exit %d, from the file %d); %s" % (
                spec, "same" if same else "DIFFERENT", remote.returncode, local.returncode, ratio))
            if not same:
                bad += 1
                sys.stderr.write(remote.stderr.decode()[-500:])
            shutil.rmtree(dl)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
