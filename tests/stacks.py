#!/usr/bin/env python3
"""The standard stacks (tools/stacks.py), judged again from their recorded facts, offline.

usage: stacks.py SMCHECK

tests/stacks/ holds, for each stack, the lock of the wheels pip installs (pylock.NAME.toml), the
facts smcheck read from those wheels on PyPI (facts.tar.xz, cache records trimmed of offsets and
kernel names) and verdicts.tsv: per stack and GPU what the stack's documentation says and the
overall verdict smcheck gave. Each lock is judged here as an environment from those facts alone,
with no network (every index and proxy points at a closed port): the verdict must be the one
recorded, and the one the documentation says (runs: ok or jit; partial; compiler; fails: none).
A rule that changes a verdict of a real stack fails here; tools/stacks.py records them again.
"""

import json
import os
import subprocess
import sys
import tarfile
import tempfile

from harness import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
STACKS = os.path.join(HERE, "stacks")
CLOSED = "http://127.0.0.1:9"  # discard: nothing listens, a read fails at once


def platform_of(lock):
    """The platform and Python the lock was resolved for, from its first line."""
    first = open(lock).readline()
    plat = "linux-aarch64" if " for linux-aarch64," in first else "linux-x86_64"
    py = first.rsplit("Python ", 1)[1].rstrip(")\n")
    return plat, py


def main():
    smcheck = os.path.abspath(sys.argv[1])
    table = {}
    for line in open(os.path.join(STACKS, "verdicts.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        stack, gpu, want, got = line.rstrip("\n").split("\t")
        table.setdefault(stack, {})[gpu] = (want, got)
    with tempfile.TemporaryDirectory() as cache:
        with tarfile.open(os.path.join(STACKS, "facts.tar.xz")) as t:
            t.extractall(cache)
        env = dict(os.environ, XDG_CACHE_HOME=cache, SMCHECK_LIBCUDA="/nonexistent",
                   http_proxy=CLOSED, https_proxy=CLOSED, HTTP_PROXY=CLOSED, HTTPS_PROXY=CLOSED,
                   PIP_INDEX_URL=CLOSED)
        for stack in sorted(table):
            lock = os.path.join(STACKS, "pylock.%s.toml" % stack)
            gpus = sorted(table[stack], key=lambda g: int(g[3:]))
            plat, py = platform_of(lock)
            p = subprocess.run([smcheck, "--gpu", ",".join(gpus), "--platform", plat,
                                "--python-version", py, "--format", "json", "-q",
                                "--timeout", "2", lock], capture_output=True, text=True, env=env)
            if p.returncode not in (0, 1) or not p.stdout:
                check(False, "%s: judged from its facts alone" % stack,
                      "exit %d: %s" % (p.returncode, p.stderr[-600:]))
                continue
            doc = json.loads(p.stdout)
            got = {gpus[v["target"]]: v["status"] for v in doc["overall"]}
            wrong = []
            for gpu in gpus:
                want, recorded = table[stack][gpu]
                agree = (got[gpu] in ("ok", "jit") if want == "runs" else
                         got[gpu] == "none" if want == "fails" else got[gpu] == want)
                if got[gpu] != recorded or not agree:
                    wrong.append("%s: %s (recorded %s, documented %s)" % (gpu, got[gpu], recorded,
                                                                          want))
            runs = [g for g in gpus if table[stack][g][0] == "runs"]
            fails = [g for g in gpus if table[stack][g][0] == "fails"]
            check(not wrong, "%s: %d GPUs it runs on ok or jit, %d it dropped none, as recorded"
                  % (stack, len(runs), len(fails)), "; ".join(wrong))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
