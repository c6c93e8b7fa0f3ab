#!/usr/bin/env python3
"""audit.py SMCHECK: `smcheck audit` on a local index (tests/httpd.py) of some forty wheels
(issue 48), of a list of projects or of the index's own list: the shards' union, each shard a process of its own told its index by
JOB_COMPLETION_INDEX as a Kubernetes Indexed Job's pods are, equals one process's audit, byte for
byte (the facts tree and the merged index); a shard killed half-way (its index not written, some
records gone, a scratch directory left) and run again converges on the same tree; the wheels
that cannot carry GPU code for Linux or Windows are left out; a wheel that cannot be read is an
error line in the index and exit 2, the others done; and a cold check of a lock of every wheel
through --facts-url (the audit's output served as it is) reads no wheel byte and gives the
verdicts reading them gives. Prints one line per check and "N passed, M failed"."""
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from harness import check, finish
import make_wheels as mw

SMCHECK = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
LINUX = "cp312-cp312-manylinux_2_28_x86_64"


def make_index(www):
    """Some forty wheels: 12 projects x 3 versions of the fixtures' libraries (each version's
    bytes its own), a Windows and an aarch64 one, bitsandbytes' pure-Python shape; and what an
    audit leaves out: a macOS wheel and a pure-Python wheel of a project without libraries."""
    libs = ["nvcc/multi.so", "gen/cuda128.so", "gen/long_kernel.so", "gen/cudart101.so"]
    names = []
    for p in range(12):
        project = "gpu_pkg%02d" % p
        for v in range(3):
            version = "1.%d" % v
            files = {project + "/__init__.py": b"__version__ = '%s'\n" % version.encode(),
                     project + "/_C.so": mw.fixture(libs[(p + v) % len(libs)])}
            tag = LINUX if p != 5 else "cp312-cp312-win_amd64" if v == 0 else LINUX
            if p == 7 and v == 2:
                tag = "cp312-cp312-manylinux_2_28_aarch64"
            name = "%s-%s-%s.whl" % (project, version, tag)
            mw.wheel(os.path.join(www, name), project.replace("_", "-"), version, tag, files)
            names.append(name)
    bnb = "bitsandbytes-0.39.1-py3-none-any.whl"
    mw.wheel(os.path.join(www, bnb), "bitsandbytes", "0.39.1", "py3-none-any",
             {"bitsandbytes/libbitsandbytes_cuda118.so": mw.fixture("gen/long_kernel.so")})
    names.append(bnb)
    left_out = ["gpu_pkg00-1.9-cp312-cp312-macosx_14_0_arm64.whl", "plainpkg-1.0-py3-none-any.whl"]
    mw.wheel(os.path.join(www, left_out[0]), "gpu-pkg00", "1.9", "cp312-cp312-macosx_14_0_arm64",
             {"gpu_pkg00/__init__.py": b""})
    mw.wheel(os.path.join(www, left_out[1]), "plainpkg", "1.0", "py3-none-any",
             {"plainpkg/__init__.py": b""})
    # gpu_pkg01 is gpu-pkg01 again (PEP 503 names): its wheels are listed once.
    projects = ["gpu-pkg%02d" % p for p in range(12)] + ["bitsandbytes", "plainpkg",
                                                         "no-such-project", "gpu_pkg01"]
    return names, projects


def tree(root):
    """Every file under root/facts and the merged index: {relative path: bytes}."""
    out = {}
    for d, _, files in os.walk(os.path.join(root, "facts")):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    with open(os.path.join(root, "index.tsv"), "rb") as fh:
        out["index.tsv"] = fh.read()
    return out


def main():
    work = tempfile.mkdtemp(prefix="smcheck-audit-")
    www = os.path.join(work, "www")
    os.mkdir(www)
    names, projects = make_index(www)
    plist = os.path.join(work, "projects.txt")
    with open(plist, "w") as f:
        f.write("# the projects to audit\n" + "\n".join(projects) + "\n")
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = "http://127.0.0.1:%d" % int(server.stdout.readline())
        env = dict(os.environ, HOME=work, XDG_CACHE_HOME=os.path.join(work, "cache"),
                   SMCHECK_LIBCUDA="/nonexistent", no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
        env.pop("JOB_COMPLETION_INDEX", None)

        def audit(out, *args, index="/simple/", job=None):
            e = dict(env, **({"JOB_COMPLETION_INDEX": str(job)} if job is not None else {}))
            return subprocess.Popen([SMCHECK, "audit", "--index-url", base + index, "--output",
                                     out, *args, plist], env=e, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)

        def merge(out):
            return subprocess.run([SMCHECK, "audit", "--merge", "--output", out], env=env,
                                  capture_output=True, text=True)

        one = os.path.join(work, "one")
        bad_dir = os.path.join(work, "never-written")
        p = audit(one)
        _, err = p.communicate(timeout=300)
        m = merge(one)
        lines = open(os.path.join(one, "index.tsv")).read().splitlines()[1:] if m.returncode == 0 else []
        files = sorted(l.split("\t")[2] for l in lines)
        check(p.returncode == 0 and m.returncode == 0 and files == sorted(names) and
              all(l.endswith("\tfacts") for l in lines) and
              "2 left out: other platforms" in err and not os.path.exists(os.path.join(one, "tmp")),
              "one process: every GPU wheel's facts (%d, a project named twice listed once), the "
              "macOS and pure-Python ones left out, no scratch left" % len(files), (p.returncode, err[-400:], m.stderr))

        # Without PROJECTS: every project of the index's list (JSON, then HTML).
        for index in ("/simple/", "/html/simple/"):
            every = os.path.join(work, "every" + index.replace("/", "_"))
            e = subprocess.run([SMCHECK, "audit", "--index-url", base + index, "--output", every],
                               env=env, capture_output=True, text=True, timeout=300)
            m = merge(every)
            got, want = tree(every), tree(one)
            if index.startswith("/html"):  # PEP 503 gives no sizes: the index's column is 0
                for t in (got, want):
                    t["index.tsv"] = b"\n".join(b"\t".join(l.split(b"\t")[:4] + l.split(b"\t")[5:])
                                                 for l in t["index.tsv"].split(b"\n"))
            check(e.returncode == 0 and m.returncode == 0 and got == want,
                  "no PROJECTS: the projects of the index's list (%s), the same audit%s" % (
                      index, " (sizes aside: PEP 503 gives none)" if "html" in index else ""),
                  (e.returncode, e.stderr[-300:]))

        # Three shards at once, each told its index by JOB_COMPLETION_INDEX (--shard /3).
        three = os.path.join(work, "three")
        procs = [audit(three, "--shard", "/3", job=i) for i in range(3)]
        outs = [pr.communicate(timeout=300) for pr in procs]
        m = merge(three)
        check(all(pr.returncode == 0 for pr in procs) and m.returncode == 0 and
              tree(three) == tree(one),
              "three shards as separate processes (JOB_COMPLETION_INDEX): their union is one "
              "process's audit, byte for byte", [o[1][-200:] for o in outs] + [m.stderr])
        sizes = []
        for i in range(3):
            with open(os.path.join(three, "shards", "%d-of-3.tsv" % i)) as f:
                sizes.append(sum(int(l.split("\t")[4]) for l in f if not l.startswith("#")))
        check(max(sizes) <= 2 * min(sizes), "the shards are balanced by size: %s bytes" % sizes)

        # A shard killed half-way: its index not written, half its records gone, a scratch
        # directory left behind; run again, it skips what it has and converges.
        shard1 = os.path.join(three, "shards", "1-of-3.tsv")
        with open(shard1) as f:
            mine = [l.split("\t")[3] for l in f if not l.startswith("#")]
        os.remove(shard1)
        for sha in mine[::2]:
            os.remove(os.path.join(three, "facts", sha[:2], sha + ".json"))
        os.makedirs(os.path.join(three, "tmp", "4242-" + mine[0], "v3"), exist_ok=True)
        p = audit(three, "--shard", "1/3")
        _, err = p.communicate(timeout=300)
        m = merge(three)
        check(p.returncode == 0 and tree(three) == tree(one) and
              ("%d read, %d already there" % (len(mine[::2]), len(mine) - len(mine[::2]))) in err,
              "a shard killed half-way and run again: the same tree (%s)" % err.strip()[-120:],
              err[-300:])

        # What the command line gets wrong: one line each, exit 64 (a PROJECTS file it cannot
        # read: exit 2).
        for args, want, code in (
                (["--shard", "2/2", "--output", bad_dir, plist], "--shard wants I/N with 0 <= I < N", 64),
                (["--shard", "x/2", "--output", bad_dir, plist], "--shard wants I/N", 64),
                ([plist], "audit needs --output DIR", 64),
                (["--output", bad_dir, plist, plist], "audit takes one PROJECTS file", 64),
                (["--output", bad_dir, os.path.join(work, "nowhere.txt")], "nowhere.txt: No such file", 2)):
            r = subprocess.run([SMCHECK, "audit", "--index-url", base + "/simple/", *args], env=env,
                               capture_output=True, text=True, timeout=60)
            check(r.returncode == code and want in r.stderr.splitlines()[0] and
                  not os.path.exists(bad_dir),
                  "audit %s: exit %d, \"%s\"" % (" ".join(a.replace(work, "...") for a in args[:2]),
                                                 code, want), (r.returncode, r.stderr))

        # A merge with a shard missing is refused.
        os.remove(shard1)
        m = merge(three)
        check(m.returncode == 2 and "1-of-3.tsv" in m.stderr and "not merged" in m.stderr,
              "--merge with a shard missing: exit 2, naming it", m.stderr)

        # An index whose sha256s are wrong: every wheel an error line, exit 2, nothing kept.
        bad = os.path.join(work, "bad")
        p = audit(bad, index="/badhash/simple/")
        _, err = p.communicate(timeout=300)
        with open(os.path.join(bad, "shards", "0-of-1.tsv")) as f:
            rows = [l for l in f if not l.startswith("#")]
        check(p.returncode == 2 and rows and all("\terror: " in r for r in rows) and
              not os.path.isdir(os.path.join(bad, "facts", "00")),
              "wheels whose bytes are not the sha256 the index gives: an error line each, exit 2",
              (p.returncode, rows[:1], err[-300:]))

        # The audit's output served as it is is a store: a cold check of a lock of every wheel
        # reads no wheel byte, and says what reading them says.
        shutil.copytree(one, os.path.join(www, "store"))
        # A lock installs a project once: a lock of each version, of the x86-64 Linux wheels.
        locks = []
        for v in range(3):
            lock = os.path.join(work, "pylock.v%d.toml" % v)
            with open(lock, "w") as f:
                f.write('lock-version = "1.0"\ncreated-by = "audit.py"\n\n')
                for n in names:
                    if n.split("-")[1] != "1.%d" % v and not n.startswith("bitsandbytes"):
                        continue
                    if "win_" in n or "aarch64" in n or (v and n.startswith("bitsandbytes")):
                        continue
                    sha = hashlib.sha256(open(os.path.join(www, n), "rb").read()).hexdigest()
                    f.write('[[packages]]\nname = "%s"\nversion = "%s"\nwheels = [{ url = '
                            '"%s/files/%s", hashes = { sha256 = "%s" } }]\n\n'
                            % (n.split("-")[0].replace("_", "-"), n.split("-")[1], base, n, sha))
            locks.append(lock)
        in_locks = sum(1 for n in names if "win_" not in n and "aarch64" not in n)

        def judged(cache, *extra):
            e = dict(env, XDG_CACHE_HOME=os.path.join(work, cache))
            before = int(urllib.request.urlopen(base + "/served").read())
            r = subprocess.run([SMCHECK, "--no-config", "--gpu", "7.5,8.0,12.0", "--format",
                                "json", "--python-version", "3.12", *extra, *locks],
                               capture_output=True, text=True, env=e, timeout=300)
            doc = json.loads(r.stdout) if r.stdout.startswith("{") else {}
            seen = {d["name"] + " " + d["version"]: [v["status"] for v in d["verdicts"]]
                    for i in doc.get("inputs", []) for d in i.get("distributions", [])}
            return r.returncode, seen, int(urllib.request.urlopen(base + "/served").read()) - before
        rc0, seen0, bytes0 = judged("read")
        rc1, seen1, bytes1 = judged("cold", "--facts-url", base + "/store/store")
        check(bytes0 > 0 and bytes1 == 0 and rc1 == rc0 and seen1 == seen0 and len(seen0) == in_locks,
              "a cold check through --facts-url of the audit's output: %d wheel bytes read (%d "
              "without it), the same verdicts for %d distributions" % (bytes1, bytes0, len(seen0)),
              (rc0, rc1))
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
