#!/usr/bin/env python3
"""remote.py SMCHECK FIXTURES [TEST_REMOTE [API_REPORT]]: wheels read over HTTP (range requests) against the same wheels read
from disk, through the test index tests/httpd.py on 127.0.0.1: the same JSON report and exit
status, through redirects and from a server without ranges; and each failure a server can make
(404, a redirect loop, a truncated body, a stall past --timeout) one error naming the URL while
the other inputs are still judged. Nothing but the report and the cache may be written: the runs
get an empty HOME, TMPDIR and working directory, where only HOME/.cache/smcheck may appear; the
cache serves a second check without the network, and a damaged record is an error. Through the
library API, a session that does not allow the network asks nothing of any server, and one that
does not allow the cache writes none. Prints "N passed, M failed"."""
import base64
import hashlib
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile

SMCHECK, FIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
READS = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None  # test_remote
API = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None  # api_report
HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def big_wheel(out, demo):
    """The demo wheel's members renamed to big_demo, between two 6 MiB stored members of random
    bytes: larger than the tail fetched at open, with gaps the stream must pass or skip."""
    src = zipfile.ZipFile(demo)
    members = []
    members.append(("big_demo/a_blob.bin", os.urandom(6 << 20), zipfile.ZIP_STORED))
    for info in src.infolist():
        name = info.filename.replace("demo_sm80_sm90", "big_demo")
        if name.endswith("/RECORD"):
            continue
        members.append((name, src.read(info), zipfile.ZIP_DEFLATED))
    members.append(("big_demo/z_blob.bin", os.urandom(6 << 20), zipfile.ZIP_STORED))
    record = "".join(record_line(n, d) for n, d, _ in members) + "big_demo-1.0.dist-info/RECORD,,\n"
    members.append(("big_demo-1.0.dist-info/RECORD", record.encode(), zipfile.ZIP_DEFLATED))
    path = os.path.join(out, "big_demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    with zipfile.ZipFile(path, "w") as z:
        for name, data, method in members:
            info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return path


def as_zip64(path):
    """A copy of the zip at path, "-1zip64" its build tag, whose end says where the directory is
    only through a ZIP64 end record and locator, as a zip of 65,536 members or of 4 GiB does."""
    data = open(path, "rb").read()
    e = data.rindex(b"PK\x05\x06")
    entries, cd_size, cd_at = struct.unpack("<HII", data[e + 10:e + 20])
    record = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, entries, entries, cd_size, cd_at)
    locator = struct.pack("<IIQI", 0x07064B50, 0, e, 1)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    out = path.replace("-1.0-", "-1.0-1zip64-")
    with open(out, "wb") as f:
        f.write(data[:e] + record + locator + end)
    return out


def run(args, sandbox, timeout=120, **extra):
    env = dict(os.environ, HOME=sandbox, TMPDIR=sandbox, no_proxy="127.0.0.1,localhost",
               NO_PROXY="127.0.0.1,localhost")
    env.update(extra)
    for name in [k for k, v in env.items() if v is None]:
        del env[name]
    t = time.monotonic()
    p = subprocess.run([SMCHECK] + args, cwd=sandbox, env=env, capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode(), time.monotonic() - t


def libraries(report):
    """The libraries of every input of a JSON report, by path."""
    return {lib["path"]: lib for i in json.loads(report)["inputs"] for lib in i["libraries"]}


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def one_error(err, name, words):
    lines = [l for l in err.splitlines() if l]
    return len(lines) == 1 and lines[0].startswith("smcheck: " + name + ": ") and words in lines[0]


def served(base):
    """The bytes of files the test server has sent so far."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(base + "/served") as r:
        return int(r.read())


def allow_checks(base, www, sandbox):
    """smcheck_session_allow through api_report: without the network, a URL, a requirement and a
    lock are each an error of the report saying so and no file byte is sent; without the cache,
    nothing is kept; with everything allowed (the default), the URL's facts are."""
    name = sorted(w for w in os.listdir(www) if w.startswith("demo_sm80_sm90"))[0]
    url = "%s/files/%s#sha256=%s" % (base, name, sha(os.path.join(www, name)))
    lock = os.path.join(sandbox, "..", "requirements-allow.txt")
    with open(lock, "w") as f:
        f.write("demo-ptx==1.0\n")
    cache = os.path.join(sandbox, ".cache")

    def api(allow, *paths):
        shutil.rmtree(cache, ignore_errors=True)
        env = dict(os.environ, HOME=sandbox, TMPDIR=sandbox, no_proxy="127.0.0.1",
                   NO_PROXY="127.0.0.1", PIP_INDEX_URL=base + "/simple/", API_ALLOW=str(allow))
        env.pop("XDG_CACHE_HOME", None)
        p = subprocess.run([API, "json", "sm_80", "", *paths], cwd=sandbox, env=env,
                           capture_output=True, text=True, timeout=120)
        try:
            return p.returncode, json.loads(p.stdout), p.stderr
        except ValueError:
            return p.returncode, None, p.stderr

    before = served(base)
    rc, doc, err = api(15 & ~1, url, "demo-sm80-sm90==1.0", lock)
    errors = [e for i in doc["inputs"] for e in i["errors"]] if doc else []
    off = [e for e in errors if "reading over the network is turned off" in e["message"]]
    check(rc == 0 and len(doc["inputs"]) == 3 and len(off) == 3 and len(errors) == 3 and
          served(base) == before and not os.path.exists(cache),
          "the network not allowed: three errors saying so, no byte sent, no cache (%d %r %r)"
          % (rc, errors[:3], err[:200]))
    rc, doc, err = api(15 & ~2, url)
    libs = [l for i in doc["inputs"] for l in i["libraries"]] if doc else []
    check(rc == 0 and libs and not os.path.exists(cache),
          "the cache not allowed: the URL read, nothing kept (%d %r)" % (rc, err[:200]))
    rc, doc, err = api(15, url)
    check(rc == 0 and os.path.isdir(os.path.join(cache, "smcheck")),
          "everything allowed: the URL's facts kept in the cache (%d %r)" % (rc, err[:200]))
    shutil.rmtree(cache, ignore_errors=True)


def specs_and_locks(base, www, sandbox, gpus):
    """Requirements resolved through the index (JSON and HTML pages), and lock files: the same
    libraries as the wheels read from disk; the wheels a marker leaves out are not read."""
    files = {w.split("-")[0]: w for w in os.listdir(www) if w.endswith(".whl")}
    _, out_disk, _, _ = run(gpus + [os.path.join(www, w) for w in sorted(files.values())], sandbox)
    disk = {p.replace(www + "/", base + "/files/"): lib for p, lib in libraries(out_disk).items()}
    for lib in disk.values():
        lib["path"] = lib["path"].replace(www + "/", base + "/files/")

    for pages in ("simple", "html/simple", "json/simple"):
        rc, out, err, _ = run(gpus + ["--index-url", "%s/%s/" % (base, pages), "demo-sm80-sm90==1.0"], sandbox)
        got = libraries(out)
        want = {p: l for p, l in disk.items() if "demo_sm80_sm90" in p}
        check(rc == 1 and got == want and err == "",
              "demo-sm80-sm90==1.0 (none on sm_120) through %s pages: rc %d, same libraries %s; %s" % (pages, rc, got == want, err))
    rc, out, err, _ = run(gpus + ["--index-url", base + "/simple/", "no-such-project==1.0",
                                  "--extra-index-url", base + "/json/simple/"], sandbox)
    check(rc == 2 and one_error(err, "no-such-project==1.0", "no index has no-such-project"),
          "a project no index has: %d %r" % (rc, err))
    rc, out, err, _ = run(gpus + ["--index-url", base + "/hostile/simple/", "x==1.0"], sandbox)
    check(rc == 2 and one_error(err, "x==1.0", "has no link to take"),
          "a page of hostile links (file:, javascript:, 100 KB, unterminated): none taken: %d %r"
          % (rc, err))
    rc, out, err, _ = run(gpus + ["--index-url", base + "/badhash/simple/", "demo-ptx==1.0"], sandbox)
    check(rc == 2 and one_error(err, base + "/files/" + files["demo_ptx"], "its sha256 is " + sha(os.path.join(www, files["demo_ptx"]))),
          "a wheel whose sha256 is not the index's: %d %r" % (rc, err))

    def wheel_url(key):
        return base + "/files/" + files[key]

    locks = os.path.join(sandbox, "..", "locks")
    os.makedirs(locks, exist_ok=True)
    h = {k: sha(os.path.join(www, f)) for k, f in files.items()}
    pylock = """lock-version = "1.0"
created-by = "tests/remote.py"
requires-python = ">=3.8"

[[packages]]
name = "proj"
directory = { path = ".", editable = true }

[[packages]]
name = "demo-sm80-sm90"
version = "1.0"
wheels = [{ url = "%s", upload-time = 2025-08-06T14:55:05Z, hashes = { sha256 = "%s" } }]

[[packages]]
name = "demo-ptx"
version = "1.0"
marker = "sys_platform == 'win32'"
wheels = [{ url = "%s", hashes = { sha256 = "%s" } }]

[[packages]]
name = "demo-cu128"
version = "1.0"

[[packages.wheels]]
name = "%s"
url = "%s"

[packages.wheels.hashes]
sha256 = "%s"
""" % (wheel_url("demo_sm80_sm90"), h["demo_sm80_sm90"], wheel_url("demo_ptx"), h["demo_ptx"],
       files["demo_cu128"], wheel_url("demo_cu128"), h["demo_cu128"])

    def uv_package(name, key):
        """A uv.lock [[package]] table of one of the test index's wheels."""
        return """
[[package]]
name = "%s"
version = "1.0"
source = { registry = "%s/simple" }
wheels = [{ url = "%s", hash = "sha256:%s" }]
""" % (name, base, wheel_url(key), h[key])

    uvlock = """version = 1
revision = 3
requires-python = ">=3.8"

[[package]]
name = "proj"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "demo-sm80-sm90" },
    { name = "demo-ptx", marker = "sys_platform == 'win32'" },
]

[package.dev-dependencies]
dev = [
    { name = "demo-cu128" },
]

[[package]]
name = "demo-sm80-sm90"
version = "1.0"
source = { registry = "%s/simple" }
wheels = [
    { url = "%s", hash = "sha256:%s", size = 1 },
]

""" % (base, wheel_url("demo_sm80_sm90"), h["demo_sm80_sm90"]) + uv_package("demo-ptx", "demo_ptx") + \
        uv_package("demo-cu128", "demo_cu128")
    reqs = """# pinned with hashes, as pip-compile writes them
--index-url %s/simple/
-e .
demo-sm80-sm90==1.0 \\
    --hash=sha256:%s
demo-ptx==1.0 ; sys_platform == "win32"
demo_cu128==1.0 --hash=sha256:%s  # via proj
""" % (base, h["demo_sm80_sm90"], h["demo_cu128"])
    def facts(libs):
        """What a lock's environment does not change: an environment also says what a library
        needs that the environment lacks (libcudart here), a wheel read alone does not. A wheel
        whose sha256 is known is read for every GPU (its facts go to the cache): what it says of
        its libraries, their cubins' release too, is what a read for two GPUs says."""
        out = {}
        for p, lib in libs.items():
            lib = json.loads(json.dumps(lib))
            for v in lib["verdicts"]:
                v.pop("warnings", None)
                v.pop("needs", None)
            out[p] = lib
        return out

    want = facts({p: l for p, l in disk.items() if "demo_ptx" not in p and "big_demo" not in p})
    for name, text in (("pylock.toml", pylock), ("uv.lock", uvlock), ("requirements.txt", reqs)):
        path = os.path.join(locks, name)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err, _ = run(gpus + [path], sandbox)
        got = facts(libraries(out))
        inp = json.loads(out)["inputs"][0] if out else {}
        if got != want:
            for p in sorted(set(got) | set(want)):
                if got.get(p) != want.get(p):
                    print("DIFF", p, json.dumps(got.get(p))[:600], json.dumps(want.get(p))[:600], file=sys.stderr)
        check(rc == 1 and got == want and err == "" and inp.get("kind") == "environment" and
              sorted(d["source"] for d in inp["distributions"]) == ["lock", "lock"],
              "%s: rc %d, kind %s, the two wheels its markers keep, as from disk: %s; %s"
              % (name, rc, inp.get("kind"), got == want, err.strip()[:300]))
        # the project itself (a packaged one, as `uv export` and `pip lock .` write it): a note
        notes = [n for n in inp.get("notes", []) if ": judged for Python " not in n]
        check(len(notes) == 1 and notes[0].startswith(path + ": ") and
              "a local directory" in notes[0] and ("proj" in notes[0] or "-e ." in notes[0]),
              "%s: the project, a local directory, is one note: %r" % (name, notes))

    # the same requirements split as projects keep them: a shared file named by -r, versions
    # from a constraints file named by -c (pip reads both relative to the file naming them)
    os.makedirs(os.path.join(locks, "reqs"), exist_ok=True)
    for name, text in (("reqs/common.txt", "demo-sm80-sm90 \\\n    --hash=sha256:%s\n"
                        "demo-ptx==1.0 ; sys_platform == \"win32\"\n" % h["demo_sm80_sm90"]),
                       ("reqs/constraints.txt", "demo-sm80-sm90==1.0\nDemo.CU128==1.0\nother==2\n"),
                       ("requirements.txt", "--index-url %s/simple/\n-r reqs/common.txt\n"
                        "-c reqs/constraints.txt\ndemo_cu128 --hash=sha256:%s\n"
                        % (base, h["demo_cu128"]))):
        with open(os.path.join(locks, name), "w") as f:
            f.write(text)
    rc, out, err, _ = run(gpus + [os.path.join(locks, "requirements.txt")], sandbox)
    inp = json.loads(out)["inputs"][0] if out else {}
    check(rc == 1 and facts(libraries(out)) == want and err == "" and
          sorted(d["name"] for d in inp.get("distributions", [])) == ["demo-cu128", "demo-sm80-sm90"],
          "requirements.txt with -r and -c: the same two wheels (rc %d, %r)" % (rc, err[:300]))

    # --extra: a uv.lock's project extras, installed only when asked for (PyTorch's guide for uv
    # puts each CUDA variant in one), the others named in a note; an extra it lacks is an error.
    extras_lock = """version = 1
revision = 3
requires-python = ">=3.8"

[[package]]
name = "proj"
version = "0.1.0"
source = { virtual = "." }

[package.optional-dependencies]
cu = [{ name = "demo-cu128" }]
ptx = [{ name = "demo-ptx" }]

""" + uv_package("demo-ptx", "demo_ptx") + uv_package("demo-cu128", "demo_cu128")
    path = os.path.join(locks, "uv.lock")
    with open(path, "w") as f:
        f.write(extras_lock)
    for extra, dists, left, code in ((None, [], "extras cu, ptx install", 0),
                                     ("cu", ["demo-cu128"], "extra ptx installs", 0),
                                     ("nope", [], "extras cu, ptx install", 2)):
        rc, out, err, _ = run(gpus + ([] if extra is None else ["--extra", extra]) + [path],
                              sandbox)
        inp = json.loads(out)["inputs"][0] if out else {}
        names = sorted(d["name"] for d in inp.get("distributions", []))
        notes = [n for n in inp.get("notes", []) if ": judged for Python " not in n]
        errs = [l for l in err.splitlines() if l]
        check(rc == code and names == dists and len(notes) == 1 and left in notes[0] and
              (errs == [] if extra != "nope" else
               errs == ["smcheck: %s: --extra nope: the project declares no such extra" % path]),
              "uv.lock --extra %s: rc %d, distributions %r, notes %r, errors %r"
              % (extra, rc, names, notes, errs))

    bad = [("pylock.toml", "lock-version = = 1\n", "not TOML: line 1"),
           ("requirements.txt", "demo-ptx>=1.0.x\n",
            "line 1: 'demo-ptx>=1.0.x' is not a requirement pip takes"),
           ("pylock.toml", pylock.replace(h["demo_cu128"], "0" * 64), "its sha256 is"),
           ("pylock.toml", pylock.replace("manylinux_2_28_x86_64", "win_amd64"), "no wheel for")]
    for name, text, words in bad:
        path = os.path.join(locks, name)
        with open(path, "w") as f:
            f.write(text)
        rc, out, err, _ = run(gpus + [path, wheel_url("demo_ptx")], sandbox)
        lines = [l for l in err.splitlines() if l]
        named = [l for l in lines if l.startswith("smcheck: " + path + ": ") or
                 l.startswith("smcheck: " + base)]
        check(rc == 2 and lines and len(named) == len(lines) and any(words in l for l in lines),
              "%s (%s): rc %d, errors naming it: %r" % (name, words, rc, err.strip()[:400]))
        check(any(p.startswith(wheel_url("demo_ptx")) for p in libraries(out)),
              "%s (%s): the wheel beside it is still judged" % (name, words))
    cache_checks(base, locks, sandbox, gpus, pylock, want, facts)
    choice_checks(locks, sandbox, gpus, reqs, want, facts)
    fragment_checks(wheel_url("demo_ptx"), h["demo_ptx"], h["demo_cu128"], sandbox, gpus)
    listed_checks(base, wheel_url("demo_ptx"), h["demo_ptx"], sandbox, gpus)
    shutil.rmtree(locks)


def fragment_checks(url, digest, other, sandbox, gpus):
    """A wheel URL with pip's "#sha256=HEX" fragment: the bytes are checked against it, and its
    facts are kept under it, so that the same URL again reads nothing from the network."""
    shutil.rmtree(os.path.join(sandbox, ".cache"), ignore_errors=True)
    rc0, out0, err0, _ = run(gpus + [url], sandbox)
    keyed = url + "#sha256=" + digest.upper()  # pip takes the digits in either case
    rc, out, err, _ = run(gpus + [keyed], sandbox)
    records = [f for _, _, fs in os.walk(os.path.join(sandbox, ".cache", "smcheck")) for f in fs]
    check(rc == rc0 and err == err0 == "" and out == out0.replace(url, keyed) and
          records == [digest + ".json"],
          "URL#sha256=: the report of the plain URL, its facts kept under that sha256: %d %s %r"
          % (rc, records, err[:300]))
    offline = dict(http_proxy="http://127.0.0.1:1", no_proxy=None, NO_PROXY=None)
    rc, out2, err, _ = run(gpus + [keyed], sandbox, **offline)
    check(rc == rc0 and out2 == out and err == "",
          "URL#sha256= again, the network unreachable: from the cache, the same (%d %r)"
          % (rc, err[:300]))
    rc, out, err, _ = run(gpus + [url], sandbox, **offline)
    check(rc == 2 and one_error(err, url, ""),
          "the plain URL, the network unreachable: not from the cache, one error (%d %r)"
          % (rc, err[:300]))
    typo = url + "#sha256=" + digest[:63]
    rc, out, err, _ = run(gpus + [typo], sandbox)
    check(rc == 2 and one_error(err, typo, "not 64 hex digits") and not libraries(out),
          "URL#sha256= of 63 digits: one error naming it, nothing read (%d %r)" % (rc, err[:300]))
    wrong = url + "#md5=x&sha256=" + other
    rc, out, err, _ = run(gpus + [wrong], sandbox)
    check(rc == 2 and one_error(err, wrong, "its sha256 is %s, not %s" % (digest, other)),
          "URL#...&sha256= of another file: one error naming it (%d %r)" % (rc, err[:300]))


def listed_checks(base, url, digest, sandbox, gpus):
    """A wheel URL without #sha256= that an index serving it lists (its own host, or PyPI's files
    host for PyPI): the index's sha256 checks it and keys its facts, so that the same URL again
    reads none of its bytes (the server counts what it sends). An index elsewhere is not asked;
    an index whose sha256 is wrong makes it an error, as pip's check would."""
    shutil.rmtree(os.path.join(sandbox, ".cache"), ignore_errors=True)
    ours = ["--index-url", base + "/simple/"]
    rc0, out0, err0, _ = run(gpus + [url], sandbox)  # PyPI, the default, does not serve it
    records = [f for _, _, fs in os.walk(os.path.join(sandbox, ".cache", "smcheck")) for f in fs]
    check(records == [] and err0 == "", "a plain URL the default index does not serve: nothing "
          "asked of it, nothing cached (%r %r)" % (records, err0[:300]))
    rc, out, err, _ = run(gpus + ours + [url], sandbox)
    records = [f for _, _, fs in os.walk(os.path.join(sandbox, ".cache", "smcheck")) for f in fs]
    check(rc == rc0 and out == out0 and err == "" and records == [digest + ".json"],
          "a plain URL its index lists: the same report, its facts kept under the index's sha256 "
          "(%d %r %r)" % (rc, records, err[:300]))
    before = served(base)
    rc, out, err, _ = run(gpus + ours + [url], sandbox)
    check(rc == rc0 and out == out0 and err == "" and served(base) == before,
          "the same URL again: from the cache, none of its bytes sent (%d bytes, %r)"
          % (served(base) - before, err[:300]))
    rc, out, err, _ = run(gpus + ["--index-url", base + "/badhash/simple/", url], sandbox)
    check(rc == 2 and one_error(err, url, "its sha256 is " + digest),
          "an index that gives it another sha256: one error naming the URL (%d %r)"
          % (rc, err[:300]))


def cache_checks(base, locks, sandbox, gpus, pylock, want, facts):
    """The facts of wheels whose sha256 the lock gives are kept under HOME/.cache/smcheck: a
    second check reads nothing from the network (the URLs made unreachable), a damaged record is
    an error and read again, --no-cache writes nothing."""
    path = os.path.join(locks, "pylock.toml")
    with open(path, "w") as f:
        f.write(pylock)
    shutil.rmtree(os.path.join(sandbox, ".cache"), ignore_errors=True)
    rc0, out0, _, _ = run(gpus + [path], sandbox)
    records = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(sandbox, ".cache", "smcheck"))
               for f in fs]
    check(len(records) == 2 and all(r.endswith(".json") for r in records),
          "two records in the cache: %s" % records)
    with open(path, "w") as f:
        f.write(pylock.replace(base, "http://127.0.0.1:1"))
    rc, out, err, _ = run(gpus + [path], sandbox)
    got = {p.replace("http://127.0.0.1:1", base): l for p, l in facts(libraries(out)).items()}
    for lib in got.values():
        lib["path"] = lib["path"].replace("http://127.0.0.1:1", base)
    check(rc == rc0 and got == want and err == "",
          "the lock again, its URLs unreachable: from the cache, the same (rc %d, %r)" % (rc, err[:300]))
    with open(records[0], "r+b") as f:
        f.truncate(100)
    with open(path, "w") as f:
        f.write(pylock)
    rc, out, err, _ = run(gpus + [path], sandbox)
    lines = [l for l in err.splitlines() if l]
    check(rc == 2 and len(lines) == 1 and "in the cache" in lines[0] and facts(libraries(out)) == want,
          "a damaged record: one error, read again: %d %r" % (rc, err[:300]))
    rc, out, err, _ = run(gpus + [path], sandbox)
    check(rc == rc0 and err == "", "and replaced: %d %r" % (rc, err[:300]))
    shutil.rmtree(os.path.join(sandbox, ".cache"))
    rc, out, err, _ = run(gpus + ["--no-cache", path], sandbox)
    check(rc == rc0 and not os.path.exists(os.path.join(sandbox, ".cache")),
          "--no-cache: nothing kept (%d)" % rc)


def choice_checks(locks, sandbox, gpus, reqs, want, facts):
    """A requirements.txt names no wheel: its pins with --hash lines are looked up on the index,
    and the wheel chosen is kept in the cache beside the facts, so that a second check asks no
    index (every request sent to a proxy that is not there). A damaged choice is an error and is
    asked again."""
    path = os.path.join(locks, "requirements.txt")
    with open(path, "w") as f:
        f.write(reqs)
    shutil.rmtree(os.path.join(sandbox, ".cache"), ignore_errors=True)
    rc0, out0, err0, _ = run(gpus + [path], sandbox)
    records = {}
    for d, _, fs in os.walk(os.path.join(sandbox, ".cache", "smcheck")):
        for name in fs:
            with open(os.path.join(d, name)) as f:
                records[os.path.join(d, name)] = json.loads(f.readline())["format"]
    choices = sorted(p for p, k in records.items() if k == "smcheck-choice")
    check(rc0 == 1 and err0 == "" and len(choices) == 2 and len(records) == 4,
          "requirements.txt: two wheels' facts and two choices kept: %s" % sorted(records.values()))
    offline = dict(http_proxy="http://127.0.0.1:1", https_proxy="http://127.0.0.1:1",
                   no_proxy=None, NO_PROXY=None)
    rc, out, err, _ = run(gpus + [path], sandbox, **offline)
    check(rc == rc0 and out == out0 and err == "",
          "requirements.txt again, the network unreachable: from the cache, the same (rc %d, %r)"
          % (rc, err[:300]))
    with open(choices[0], "r+b") as f:
        f.truncate(40)
    rc, out, err, _ = run(gpus + [path], sandbox)
    lines = [l for l in err.splitlines() if l]
    check(rc == 2 and len(lines) == 1 and lines[0].startswith("smcheck: " + path + ": ") and
          "choice of wheel in the cache" in lines[0] and facts(libraries(out)) == want,
          "a damaged choice: one error naming the lock, asked again: %d %r" % (rc, err[:300]))
    rc, out, err, _ = run(gpus + [path], sandbox, **offline)
    check(rc == rc0 and out == out0 and err == "", "and replaced: %d %r" % (rc, err[:300]))


def tls_checks(www, sandbox, gpus, wheels):
    """HTTPS: the certificate of fixtures/tls trusted through SSL_CERT_FILE (and CURL_CA_BUNDLE)
    gives the report HTTP gives; untrusted, one error naming the URL."""
    tls = os.path.join(FIX, "tls")
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www, "--tls",
                               os.path.join(tls, "cert.pem"), os.path.join(tls, "key.pem")],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = "https://127.0.0.1:%d" % int(server.stdout.readline())
        w = [w for w in wheels if "sm80_sm90" in w][0]
        rc_l, out_l, _, _ = run(gpus + [os.path.join(www, w)], sandbox)
        url = "%s/files/%s" % (base, w)
        for var in ("SSL_CERT_FILE", "CURL_CA_BUNDLE"):
            other = "CURL_CA_BUNDLE" if var == "SSL_CERT_FILE" else "SSL_CERT_FILE"
            rc, out, err, _ = run(gpus + ["--no-cache", url], sandbox,
                                  **{var: os.path.join(tls, "cert.pem"), other: None})
            check(rc == rc_l and out == out_l.replace(os.path.join(www, w), url),
                  "%s with %s: rc %d (disk %d), same JSON; stderr %s"
                  % (url, var, rc, rc_l, err.strip()[:300]))
        rc, out, err, _ = run(gpus + ["--no-cache", url], sandbox, SSL_CERT_FILE=None,
                              CURL_CA_BUNDLE=None)
        check(rc == 2 and one_error(err, url, "certificate"),
              "%s untrusted: rc %d, one error naming it (%r)" % (url, rc, err.strip()[:300]))
    finally:
        server.kill()
        server.wait()


def specifier_checks(work, sandbox):
    """Requirements as pip reads them, on an index of its own: spec-demo 1.0, 1.1, 1.2 (yanked),
    1.3 (a cp39 wheel alone) and 2.0rc1, each the demo_ptx wheel under that name. Ranges, a bare
    name, extras, pre-releases and yanked files choose as pip does, the choice said; nothing
    that matches names the releases there are; requirements.txt lines the same."""
    www = os.path.join(work, "specs")
    os.mkdir(www)
    demo = [f for f in os.listdir(os.path.join(FIX, "demo")) if f.startswith("demo_ptx-")][0]
    tags = demo.split("-", 2)[2]  # cp312-cp312-manylinux_2_28_x86_64.whl
    for v, t in (("1.0", tags), ("1.1", tags), ("1.2", tags), ("2.0rc1", tags),
                 ("1.3", "cp39-cp39-manylinux_2_28_x86_64.whl")):
        shutil.copy(os.path.join(FIX, "demo", demo), os.path.join(www, "spec_demo-%s-%s" % (v, t)))
    with open(os.path.join(www, "spec_demo-1.2-" + tags + ".yanked"), "w") as f:
        f.write("broken build\n")
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        base = "http://127.0.0.1:%d" % int(server.stdout.readline())
        env = ("cp312", "manylinux_2_28_x86_64")
        for pages in ("simple", "html/simple"):
            idx = ["scan", "--index-url", "%s/%s/" % (base, pages), "--python-version", "3.12",
                   "--platform", "linux-x86_64", "--format", "json"]
            for spec, version, why in (
                    ("spec-demo>=1.0", "1.1", "1.2 yanked, 1.3 no wheel for cp312, 2.0rc1 a pre-release"),
                    ("spec-demo", "1.1", "a bare name: the newest"),
                    ("spec-demo ~= 1.0", "1.1", "compatible release"),
                    ("spec-demo!=1.1", "1.0", "excluded"),
                    ("spec-demo==1.*", "1.1", "a wildcard"),
                    ("spec-demo>=1.0,<1.1", "1.0", "several clauses"),
                    ("spec-demo==1.2", "1.2", "pinned: a yanked file is taken"),
                    ("spec-demo>=2.0rc1", "2.0rc1", "a clause names a pre-release"),
                    ("spec-demo>1.3", "2.0rc1", "only a pre-release matches"),
                    ("spec-demo[gpu]>=1.0", "1.1", "extras")):
                rc, out, err, _ = run(idx + [spec], sandbox)
                doc = json.loads(out) if out else {"inputs": []}
                paths = [l["path"] for i in doc["inputs"] for l in i["libraries"]]
                notes = [n for i in doc["inputs"] for n in i.get("notes", [])]
                exact = spec.endswith("==1.2")
                said = "%s: %s, the newest with a wheel for %s %s" % (spec, version, *env)
                check(rc == 0 and err == "" and paths and
                      all("/spec_demo-%s-" % version in p for p in paths) and
                      (exact or said in notes) and
                      ("[gpu]" not in spec or any("extras [gpu] are not judged" in n for n in notes)),
                      "%s (%s, %s pages): %s; notes %r; %s" % (spec, why, pages, paths[:1], notes, err))
            for spec, words in (
                    ("spec-demo>1.1,<2", "no wheel of spec-demo >1.1,<2 for cp312 manylinux_2_28_x86_64"),
                    ("spec-demo>1.1,<2", "1 yanked (taken only when pinned with ==)"),
                    ("spec-demo>=3", "no release of spec-demo matches '>=3'"),
                    ("spec-demo>=3", "the newest releases with wheels: 2.0rc1, 1.3, 1.2"),
                    ("spec-demo==1.05", "no file of spec-demo 1.05 on the index page"),
                    ("spec-demo==1.05", "the nearest releases with wheels: 1.3, 2.0rc1"),
                    ("spec-demo==0.5", "the nearest releases with wheels: 1.0")):
                rc, out, err, _ = run(idx + [spec], sandbox)
                check(rc == 2 and one_error(err, spec, words),
                      "%s, %s pages: one error: %r (%d %r)" % (spec, pages, words, rc, err.strip()))
        # Text names the wheel's libraries by its file name, the URL once.
        rc, out, err, _ = run(["--gpu", "sm_80,sm_120", "--index-url", base + "/simple/",
                               "--python-version", "3.12", "--platform", "linux-x86_64",
                               "spec-demo>=1.0"], sandbox)
        url = base + "/files/spec_demo-1.1-" + tags
        rows = [l for l in out.splitlines() if "spec_demo-1.1-" in l]
        check(rc == 0 and out.count(url) == 1 and "  from " + url + "\n" in out and
              len(rows) == 2 and rows[1].split()[-1] == "spec_demo-1.1-%s!demo_ptx/_kernels.so" % tags,
              "text: the URL once (\"from URL\"), the library by the wheel's file name: %r" % rows)
        reqs = os.path.join(sandbox, "..", "requirements-spec.txt")
        with open(reqs, "w") as f:
            f.write("# ranges, as pip reads them\nspec-demo >=1.0, <1.1\n")
        rc, out, err, _ = run(["scan", "--index-url", base + "/simple/", "--python-version", "3.12",
                               "--platform", "linux-x86_64", "--format", "json", reqs], sandbox)
        doc = json.loads(out) if out else {"inputs": []}
        paths = [l["path"] for i in doc["inputs"] for l in i["libraries"]]
        notes = [n for i in doc["inputs"] for n in i.get("notes", [])]
        check(rc == 0 and paths and all("/spec_demo-1.0-" in p for p in paths) and
              any("spec-demo>=1.0, <1.1: 1.0, the newest with a wheel for cp312" in n for n in notes),
              "requirements.txt: a range resolved as pip would: %r; %r; %s" % (paths[:1], notes, err))
        # A lock of one Python is judged for it without --python-version, and says so; one that
        # fixes none is judged for the default, said.
        cp311 = "spec_demo-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
        shutil.copy(os.path.join(www, "spec_demo-1.0-" + tags), os.path.join(www, cp311))
        locks = os.path.join(sandbox, "..", "py-locks")
        os.makedirs(locks, exist_ok=True)
        pylock = os.path.join(locks, "pylock.toml")
        with open(pylock, "w") as f:
            f.write('lock-version = "1.0"\ncreated-by = "tests"\n\n[[packages]]\nname = "spec-demo"\n'
                    'version = "1.0"\nwheels = [{ url = "%s/files/%s", hashes = { sha256 = "%s" } }]\n'
                    % (base, cp311, sha(os.path.join(www, cp311))))
        reqs311 = os.path.join(locks, "requirements.txt")
        with open(reqs311, "w") as f:
            f.write("spec-demo @ %s/files/%s\n" % (base, cp311))
        for lock, how in ((pylock, "each of its 1 wheel is built for cp311"),
                          (reqs311, "each of its 1 wheel is built for cp311")):
            rc, out, err, _ = run(["scan", "--format", "json", "--platform", "linux-x86_64", lock],
                                  sandbox)
            doc = json.loads(out) if out else {"inputs": []}
            paths = [l["path"] for i in doc["inputs"] for l in i["libraries"]]
            notes = [n for i in doc["inputs"] for n in i.get("notes", [])]
            check(rc == 0 and err == "" and paths and all(cp311 in p for p in paths) and
                  notes == ["%s: judged for Python 3.11: %s" % (lock, how)],
                  "%s of cp311 wheels, no --python-version: judged for 3.11, said (%d %r %r)"
                  % (os.path.basename(lock), rc, notes, err[:300]))
        rc, out, err, _ = run(["scan", "--format", "json", "--platform", "linux-x86_64",
                               "--python-version", "3.12", pylock], sandbox)
        check(rc == 2 and "no wheel for cp312" in err,
              "the same pylock.toml with --python-version 3.12: refused as before (%d %r)" % (rc, err[:300]))
        # A digest-addressed URL (PyPI's /packages/AB/CD/<BLAKE2b-256>/NAME) cannot change: once
        # read, it is answered from the cache, with neither the index nor the file asked (the
        # server is gone); a /files/ URL is not.
        name = "spec_demo-1.1-" + tags
        with open(os.path.join(www, name), "rb") as f:
            b2 = hashlib.blake2b(f.read(), digest_size=32).hexdigest()
        fixed = "%s/packages/%s/%s/%s/%s" % (base, b2[:2], b2[2:4], b2[4:], name)
        args = ["--gpu", "sm_80", "--format", "json", "--index-url", base + "/digest/simple/"]
        rc1, out1, err1, _ = run(args + [fixed], sandbox)
        server.kill()
        server.wait()
        rc2, out2, err2, _ = run(args + [fixed], sandbox)
        rc3, _, err3, _ = run(args + [base + "/files/" + name], sandbox)
        check(rc1 == 0 and err1 == "" and (rc2, out2, err2) == (rc1, out1, err1) and rc3 == 2,
              "an immutable URL read once is judged again with the server gone (%d %d %r; "
              "a /files/ URL: %d %r)" % (rc1, rc2, err2[:200], rc3, err3[:200]))
    finally:
        server.kill()
        server.wait()


def main():
    work = tempfile.mkdtemp(prefix="smcheck-remote-")
    www, sandbox = os.path.join(work, "www"), os.path.join(work, "sandbox")
    os.mkdir(www)
    os.mkdir(sandbox)
    demos = sorted(os.path.join(FIX, "demo", f) for f in os.listdir(os.path.join(FIX, "demo"))
                   if f.endswith(".whl"))
    for d in demos:
        shutil.copy(d, www)
    as_zip64(big_wheel(www, demos[-1] if "sm80_sm90" in demos[-1] else
                       [d for d in demos if "sm80_sm90" in d][0]))
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "httpd.py"), www],
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        base = "http://127.0.0.1:%d" % port
        wheels = sorted(f for f in os.listdir(www) if f.endswith(".whl"))
        gpus = ["--gpu", "sm_80,sm_120", "--format", "json"]

        # The same report over the network as from disk, for each way a server may serve it.
        for w in wheels:
            rc_l, out_l, _, _ = run(gpus + [os.path.join(www, w)], sandbox)
            for how in ("files", "norange", "redirect/3/files"):
                url = "%s/%s/%s" % (base, how, w)
                rc, out, err, _ = run(gpus + [url], sandbox)
                want = out_l.replace(os.path.join(www, w), url)
                check(rc == rc_l and out == want,
                      "%s: rc %d (disk %d), same JSON as from disk: %s; stderr %s"
                      % (url, rc, rc_l, out == want, err.strip()[:300]))
        big = [w for w in wheels if w.startswith("big_demo") and "zip64" not in w][0]
        if READS:  # remote.c's reads, in the orders that move its stream, against the file
            for extra in ([], [sha(os.path.join(www, big))]):
                p = subprocess.run([READS, "%s/files/%s" % (base, big), os.path.join(www, big)] + extra,
                                   capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, no_proxy="127.0.0.1", NO_PROXY="127.0.0.1"))
                check(p.returncode == 0, "test_remote %s: %s" % (
                    "with the sha256" if extra else "", p.stdout.strip()[-600:]))
        rc, out, err, _ = run(["scan", "--format", "json", "%s/files/%s" % (base, big)], sandbox)
        check(rc == 0 and '"sm_80"' in out and err == "", "scan of the big wheel over HTTP: %d %s" % (rc, err))
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check(peak < 64 * 1024, "peak RSS of the runs so far %d KiB, under 64 MiB" % peak)

        # Failures: one line naming the URL, exit 2, the other input still judged.
        good = "%s/files/%s" % (base, wheels[0])
        cases = [
            ("%s/status/404/%s" % (base, big), [], "HTTP 404"),
            ("%s/status/500/%s" % (base, big), [], "HTTP 500"),
            ("%s/loop/%s" % (base, big), [], "redirect"),
            ("%s/redirect/20/files/%s" % (base, big), [], "redirect"),
            ("%s/truncate/%s" % (base, big), [], ""),
            ("%s/slow/%s" % (base, big), ["--timeout", "2"], "timed out"),
            ("http://127.0.0.1:1/files/%s" % big, [], ""),
        ]
        for url, extra, words in cases:
            rc, out, err, secs = run(gpus + extra + [url, good], sandbox)
            lines = [l for l in err.splitlines() if l]
            check(rc == 2 and len(lines) == 1 and lines[0].startswith("smcheck: " + url + ": ")
                  and words.lower() in lines[0].lower(),
                  "%s: rc %d, one error line naming it (%r)" % (url, rc, err.strip()[:300]))
            try:
                judged = [i for i in json.loads(out)["inputs"] if i["path"] == good]
            except ValueError:
                judged = []
            check(len(judged) == 1 and judged[0]["libraries"] and not judged[0]["errors"],
                  "%s: the good wheel beside it is still judged" % url)
            check(secs < 30, "%s: took %.1f s" % (url, secs))

        specs_and_locks(base, www, sandbox, gpus)
        specifier_checks(work, sandbox)
        if API:
            allow_checks(base, www, sandbox)
        tls_checks(www, sandbox, gpus, wheels)

        written = [os.path.relpath(os.path.join(d, f), sandbox) for d, _, fs in os.walk(sandbox)
                   for f in fs]
        check(all(w.startswith(".cache/smcheck/v3/") for w in written),
              "nothing but the cache written to HOME, TMPDIR or the working directory: %s"
              % written[:5])
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
