#!/usr/bin/env python3
"""facts_store.py SMCHECK FIXTURES_DIR: a store of facts served over HTTP (--facts-url, issue 48),
through tests/httpd.py on 127.0.0.1. A lock of the three demo wheels is judged once by reading
them; their facts, laid out as URL/facts/<ab>/<sha256>.json, make a store; a cold check through
--facts-url then reads no wheel byte (the server counts them) and gives the same verdicts. A
store without a record reads that wheel alone; a record that does not check (another wheel's)
is a note and the wheel is read; a store that is down is one note, never a failure; facts-url
in [tool.smcheck] is a store too; a URL that is not http(s) is refused. Prints one line per
check and "N passed, M failed"."""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from harness import check, finish

SMCHECK, FIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
GPUS = "8.0,12.0"


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def served(base):
    with urllib.request.urlopen(base + "/served") as r:
        return int(r.read())


def verdicts(doc):
    """What a report says of each distribution and GPU, and overall."""
    out = {"overall": [v["status"] for v in doc.get("overall", [])]}
    for inp in doc.get("inputs", []):
        for d in inp.get("distributions", []):
            out[d["name"]] = [(v["status"], v["reason"]) for v in d["verdicts"]]
    return out


def main():
    work = tempfile.mkdtemp(prefix="smcheck-store-")
    www = os.path.join(work, "www")
    os.mkdir(www)
    wheels = sorted(glob.glob(os.path.join(FIX, "demo", "*.whl")))
    for w in wheels:
        shutil.copy(w, www)
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = "http://127.0.0.1:%d" % int(server.stdout.readline())
        lock = os.path.join(work, "pylock.toml")
        with open(lock, "w") as f:
            f.write('lock-version = "1.0"\ncreated-by = "facts_store.py"\n\n')
            for w in wheels:
                name = os.path.basename(w)
                f.write('[[packages]]\nname = "%s"\nversion = "1.0"\nwheels = [{ url = "%s/files/%s", '
                        'hashes = { sha256 = "%s" } }]\n\n'
                        % (name.split("-")[0].replace("_", "-"), base, name, sha256(w)))

        def run(*args, cache="cold", env_extra=None, cwd=work):
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, cache), HOME=work,
                       SMCHECK_LIBCUDA="/nonexistent", no_proxy="127.0.0.1", NO_PROXY="127.0.0.1",
                       **(env_extra or {}))
            p = subprocess.run([SMCHECK, "--gpu", GPUS, "--format", "json", "--no-config", *args],
                               capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
            return p.returncode, (json.loads(p.stdout) if p.stdout.startswith("{") else {}), p.stderr

        before = served(base)
        rc0, doc0, err = run(lock, cache="first")
        read_all = served(base) - before
        check(rc0 == 1 and read_all >= sum(os.path.getsize(w) for w in wheels) // 2,
              "the lock judged by reading its wheels (%d bytes)" % read_all, (rc0, err[-300:]))

        # The store: the facts the cache kept, in the layout an audit's --output writes.
        store = os.path.join(www, "store")
        records = glob.glob(os.path.join(work, "first", "smcheck", "v*", "*", "*.json"))
        for r in records:
            key = os.path.basename(r)[:-5]
            os.makedirs(os.path.join(store, "facts", key[:2]), exist_ok=True)
            shutil.copy(r, os.path.join(store, "facts", key[:2], key + ".json"))
        check(len(records) == len(wheels), "one record a wheel (%d)" % len(records))
        url = base + "/store/store"

        before = served(base)
        rc, doc, err = run("--facts-url", url, lock, cache="cold1")
        check(served(base) == before and rc == rc0 and verdicts(doc) == verdicts(doc0) and
              err == "",
              "a cold check through --facts-url reads no wheel byte and gives the same verdicts",
              (served(base) - before, rc, err[-300:]))
        kept = glob.glob(os.path.join(work, "cold1", "smcheck", "v*", "*", "*.json"))
        check(len(kept) == len(wheels), "the store's records are kept in the local cache (%d)"
              % len(kept))

        # One record missing: that wheel alone is read.
        gone = sha256(wheels[0])
        moved = os.path.join(work, "moved.json")
        shutil.move(os.path.join(store, "facts", gone[:2], gone + ".json"), moved)
        before = served(base)
        rc, doc, err = run("--facts-url", url, lock, cache="cold2")
        got = served(base) - before
        check(0 < got <= 2 * os.path.getsize(wheels[0]) and verdicts(doc) == verdicts(doc0),
              "a record the store lacks: that wheel alone is read (%d bytes)" % got, err[-300:])

        # Another wheel's record in its place: it does not check, said, and the wheel is read.
        other = sha256(wheels[1])
        shutil.copy(os.path.join(store, "facts", other[:2], other + ".json"),
                    os.path.join(store, "facts", gone[:2], gone + ".json"))
        before = served(base)
        rc, doc, err = run("--facts-url", url, lock, cache="cold3")
        notes = [n for i in doc.get("inputs", []) for n in i.get("notes", [])]
        check(served(base) > before and verdicts(doc) == verdicts(doc0) and
              any("its facts in the store" in n and "cannot be used" in n for n in notes),
              "a record that is another wheel's: a note, and the wheel read", notes)
        shutil.move(moved, os.path.join(store, "facts", gone[:2], gone + ".json"))

        # A store that is down: one note, the wheels read, the same verdicts.
        rc, doc, err = run("--facts-url", "http://127.0.0.1:9/", lock, cache="cold4")
        notes = [n for i in doc.get("inputs", []) for n in i.get("notes", [])]
        down = [n for n in notes if "the facts store" in n]
        check(rc == rc0 and verdicts(doc) == verdicts(doc0) and len(down) == 1,
              "a store that is down: one note, the wheels read, the same verdicts", notes)

        rc, _, err = run("--facts-url", "ftp://example.org/store", lock)
        check(rc == 64 and "--facts-url wants an http:// or https:// URL" in err,
              "--facts-url ftp://...: refused", (rc, err))

        # facts-url in [tool.smcheck]: the fleet's store.
        project = os.path.join(work, "project")
        os.mkdir(project)
        with open(os.path.join(project, "pyproject.toml"), "w") as f:
            f.write('[tool.smcheck]\nfacts-url = "%s"\n\n[[tool.smcheck.targets]]\nname = "lab"\n'
                    'gpus = "%s"\n' % (url, GPUS))
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cold5"), HOME=work,
                   SMCHECK_LIBCUDA="/nonexistent", no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
        before = served(base)
        p = subprocess.run([SMCHECK, lock], capture_output=True, text=True, env=env, cwd=project,
                           timeout=120)
        check(served(base) == before and p.returncode == rc0 and "== fleet target lab" in p.stdout,
              "facts-url in [tool.smcheck]: the fleet's check reads no wheel byte",
              (served(base) - before, p.returncode, p.stderr[-300:]))
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
