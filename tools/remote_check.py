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


def pip_platform(platform):
    return {"linux-x86_64": "manylinux_2_28_x86_64", "linux-aarch64": "manylinux_2_28_aarch64",
            "windows-amd64": "win_amd64"}.get(platform, platform)


def comparable(report, input_path):
    """The first input's libraries and distributions, keyed by member path (after the '!')."""
    inp = json.loads(report)["inputs"][0]
    libs = {}
    for lib in inp["libraries"]:
        libs[lib["path"].split("!", 1)[-1]] = lib
        lib["path"] = lib["path"].split("!", 1)[-1]
    dists = []
    for d in inp["distributions"]:
        d = dict(d)
        d.pop("location", None)
        d["libraries"] = [p.split("!", 1)[-1] for p in d["libraries"]]
        dists.append(d)
    return libs, dists, json.loads(report)["overall"]


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
                    a.python_version, "--platform", a.platform]
            remote, t_remote = timed(base + [spec])
            dl = os.path.join(work, spec.replace("=", "_"))
            os.makedirs(dl)
            got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                  "--only-binary=:all:", "--platform", pip_platform(a.platform),
                                  "--python-version", a.python_version, "-d", dl, spec],
                                 capture_output=True, text=True)
            files = os.listdir(dl)
            if got.returncode or len(files) != 1:
                print("%s: pip download failed: %s" % (spec, got.stderr.strip()[-300:]))
                bad += 1
                continue
            local, _ = timed(base + [os.path.join(dl, files[0])])
            same = remote.returncode == local.returncode and \
                comparable(remote.stdout, spec) == comparable(local.stdout, files[0])
            url = None
            try:
                url = json.loads(remote.stdout)["inputs"][0]["distributions"][0]["location"]
            except (ValueError, IndexError, KeyError):
                pass
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
