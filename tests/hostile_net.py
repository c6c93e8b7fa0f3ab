#!/usr/bin/env python3
"""hostile_net.py SMCHECK FIXTURES: the network, lock and cache paths against what a hostile or
careless server, lock or cache gives (issue 46), through tests/httpd.py on 127.0.0.1.

- No secret leaves: every way a URL comes in (a wheel URL, --index-url, --extra-index-url,
  PIP_INDEX_URL, a requirements file's options, a pylock.toml's and a uv.lock's wheel URLs, a
  redirect that adds credentials, percent-encoded user information), run for the text report,
  JSON with --sarif beside it, and with failures: the secret is in no output, no error line, no
  file written (the cache included), while the server saw it (its /auth/ pages answer 401
  without it).

- Only the pinned bytes are judged: a wheel whose sha256 is not the one the URL or the index
  gives, and one that changes between the range reads (its ETag or Last-Modified moving, or,
  where the server says nothing, a member whose CRC fails), is an error with no library judged
  from it, while the wheel beside it is judged. A lock's local wheel is checked against the
  lock's sha256 or --hash values too, a lock path that is not a regular .whl file is refused by
  name (/etc/passwd, a directory), a pylock.toml file: URL is read as the local wheel it names,
  and a cached choice of wheel whose sha256 the requirement's --hash values do not allow is not
  used (said, and asked of the index again).

- The cache stays inside itself: a symbolic link in place of its version directory, its fan-out
  directory or a record is an error for that record, the wheel is read from the network and
  judged, and nothing is written where the link points.
- Bounded: each hostile case ends within 20 s with a peak RSS under 256 MiB (FACTOR, the third
  argument, scales both for builds with sanitizers): a body or an index page sent one byte every
  250 ms fails with --timeout 3 (the speed limit), naming the rate; index pages of 200 MB (2 MB
  gzipped), JSON and HTML, are read as they come, a gzip bomb stops at its cap; a pylock.toml of
  200,000 packages and a uv.lock of 800,000 dependency edges are read, a TOML array of 14 million
  values is refused by name; a cache record of 3 million rows is refused by its size, one of
  700,000 read.

Prints one line per check and "N passed, M failed".
"""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

from harness import check, finish, long, measured, quick

HERE = os.path.dirname(os.path.abspath(__file__))
SMCHECK = os.path.abspath(sys.argv[1])
FIX = os.path.abspath(sys.argv[2])
FACTOR = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0  # for builds with sanitizers
TIME, RSS = 20 * FACTOR, 256 * 1024 * FACTOR  # s, KiB
# ASan keeps freed memory aside for a while; a small quarantine keeps the peak about the program.
os.environ.setdefault("ASAN_OPTIONS", "quarantine_size_mb=16")
sys.path.insert(0, HERE)
from httpd import SECRET  # noqa: E402  (the password its /auth/ pages want)

# A cache record's header, as this smcheck writes it (from smcheck --version and the reader).
READER = subprocess.run([SMCHECK, "--version"], capture_output=True, text=True).stdout.split()[-1]
IMAGE_FIELDS = ["kind", "variant", "compression", "arch", "version_major", "version_minor",
                "offset", "header_size", "stored_size", "size", "flags", "release", "text_arch",
                "text_variant", "text_isa"]
CONTAINER_FIELDS = ["offset", "size", "section", "member", "relocatable", "bare_cubin",
                    "first_image", "image_count", "kernels", "kernel_names"]

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


def bounded(args, sandbox, **extra):
    """run(), measured: exit status, stdout, stderr, seconds and peak RSS (KiB)."""
    env = dict(os.environ, HOME=sandbox, TMPDIR=sandbox, XDG_CACHE_HOME=os.path.join(sandbox, "cache"),
               no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost",
               SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1", **extra)
    status, secs, rss, out, err, _ = measured([SMCHECK] + args, sandbox, env, 3 * TIME, 4 << 20)
    return status, out.decode(errors="replace"), err.decode(errors="replace"), secs, rss


def within(name, result):
    """Checks that a bounded run kept its bounds; its result."""
    rc, out, err, secs, peak = result
    check(secs < TIME and peak < RSS and rc in (0, 1, 2),
          "%s: within %d s and %d MiB (%.1f s, %d MiB, exit %d)"
          % (name, TIME, RSS // 1024, secs, peak // 1024, rc), err[-400:])
    return result


def bound_checks(base, www, work):
    ptx = [f for f in os.listdir(www) if f.startswith("demo_ptx")][0]
    sandbox = tempfile.mkdtemp(dir=work)
    slow = ["--gpu", "sm_80", "--timeout", "3"]
    for name, args in [
            ("a body sent one byte every 250 ms", ["%s/drip/files/%s" % (base, ptx)]),
            ("an index page sent one byte every 250 ms",
             ["--index-url", base + "/drip/simple/", "demo-ptx==1.0"])]:
        rc, out, err, _, _ = within(name, bounded(slow + args, sandbox))
        check(rc == 2 and "too slow" in err and "bytes a second" in err,
              "%s: an error naming the rate" % name, err[-400:])
    shutil.rmtree(sandbox, ignore_errors=True)


def cache_link_checks(base, www, work):
    ptx = [f for f in os.listdir(www) if f.startswith("demo_ptx")][0]
    key = sha(os.path.join(www, ptx))
    url = "%s/files/%s#sha256=%s" % (base, ptx, key)
    gpus = ["--gpu", "sm_80", "--format", "json"]
    for name, link in [("the version directory", "v3"), ("the fan-out directory", "v3/" + key[:2]),
                       ("the record", "v3/%s/%s.json" % (key[:2], key))]:
        sandbox = tempfile.mkdtemp(dir=work)
        outside = os.path.join(sandbox, "outside")
        os.mkdir(outside)
        where = os.path.join(sandbox, "cache", "smcheck", link)
        os.makedirs(os.path.dirname(where), exist_ok=True)
        os.symlink(outside if not link.endswith(".json") else os.path.join(outside, "r.json"), where)
        record = link.endswith(".json")
        for attempt in ("first", "second"):
            rc, out, err = run(gpus + [url], sandbox)
            libs = libraries_of(out) or {}
            judged = any(p.endswith("demo_ptx/_kernels.so") for p in libs)
            if record and attempt == "second":  # the first run's record took the link's place
                check(rc in (0, 1) and judged and not err and not os.path.islink(where),
                      "a link in place of the record: replaced by the record, not followed",
                      "exit %d: %s" % (rc, err[-400:]))
            else:
                check(rc == 2 and judged and "not followed" in err,
                      "a link in place of %s (%s run): an error for the record, the wheel judged"
                      % (name, attempt), "exit %d: %s" % (rc, err[-400:]))
            check(os.listdir(outside) == [],
                  "a link in place of %s (%s run): nothing written where it points"
                  % (name, attempt), os.listdir(outside))
    shutil.rmtree(sandbox, ignore_errors=True)


def page_bound_checks(base, work):
    """Pages too large to hold: read as they come, keeping the files of the version asked for."""
    sandbox = tempfile.mkdtemp(dir=work)
    for page in ("huge", "hugehtml", "bomb"):  # made once by the server, before the clock runs
        urllib.request.urlopen("%s/%s/simple/demo-ptx/" % (base, page), timeout=120).read()
    for name, page in (("a JSON index page of 1,000,000 files (200 MB, 2 MB gzipped)", "huge"),
                       ("an HTML index page of 1,000,000 links (gzipped)", "hugehtml")):
        rc, out, err, _, _ = within(name, bounded(
            ["--gpu", "sm_80", "--index-url", "%s/%s/simple/" % (base, page), "demo-ptx==1.0"],
            sandbox))
        check(rc in (0, 1) and "demo_ptx/_kernels.so" in out and not err,
              "%s: the version asked for is found and judged" % name, err[-400:])
    rc, out, err, _, _ = within("a gzip bomb of an index page (320 MB of blanks)", bounded(
        ["--gpu", "sm_80", "--index-url", base + "/bomb/simple/", "demo-ptx==1.0"], sandbox))
    check(rc == 2 and "larger than 268435456 bytes (decompressed)" in err,
          "a gzip bomb of an index page: an error at the cap, as it inflates", err[-400:])
    shutil.rmtree(sandbox, ignore_errors=True)


def lock_bound_checks(work):
    """Locks and cache records as large as their caps let them be."""
    sandbox = tempfile.mkdtemp(dir=work)
    gpus = ["--gpu", "sm_80", "--no-cache", "--timeout", "1"]
    wheel = "https://127.0.0.1:9/p%d-1.0-py3-none-win_amd64.whl"  # for no platform judged here
    os.mkdir(os.path.join(sandbox, "pkgs"))
    with open(os.path.join(sandbox, "pkgs", "pylock.toml"), "w") as f:
        f.write('lock-version = "1.0"\ncreated-by = "x"\n')
        for k in range(200000):
            f.write('\n[[packages]]\nname = "p%d"\nversion = "1.0"\nwheels = [{ url = "%s", '
                    'hashes = { sha256 = "%s" } }]\n' % (k, wheel % k, "0" * 64))
    rc, out, err, _, _ = within("a pylock.toml of 200,000 packages (40 MB)",
                                bounded(gpus + ["pkgs/pylock.toml"], sandbox))
    check(rc == 2 and "p0 1.0: no wheel for" in err and "more problems than these" in err,
          "a pylock.toml of 200,000 packages: read, each package judged for the platform",
          err[-300:])
    os.mkdir(os.path.join(sandbox, "edges"))
    n, e = 1000, 800
    with open(os.path.join(sandbox, "edges", "uv.lock"), "w") as f:
        f.write('version = 1\nrevision = 3\nrequires-python = ">=3.8"\n\n[[package]]\n'
                'name = "proj"\nversion = "0.1.0"\nsource = { editable = "." }\n'
                'dependencies = [\n' + "".join('    { name = "p%d" },\n' % k for k in range(n)) + "]\n")
        for k in range(n):
            f.write('\n[[package]]\nname = "p%d"\nversion = "1.0"\nsource = { registry = '
                    '"https://pypi.org/simple" }\ndependencies = [\n%s]\nwheels = [{ url = "%s", '
                    'hash = "sha256:%s" }]\n' % (k, "".join('    { name = "p%d" },\n'
                                                       % ((k + j + 1) % n) for j in range(e)),
                                                wheel % k, "0" * 64))
    rc, out, err, _, _ = within("a uv.lock of 800,000 dependency edges (19 MB)",
                                bounded(gpus + ["edges/uv.lock"], sandbox))
    check(rc == 2 and "p998 1.0: no wheel for" in err,
          "a uv.lock of 800,000 dependency edges: walked to every package", err[-300:])
    os.mkdir(os.path.join(sandbox, "array"))
    with open(os.path.join(sandbox, "array", "pylock.toml"), "w") as f:
        f.write('lock-version = "1.0"\ncreated-by = "x"\nx = [')
        for _ in range(1400):
            f.write("1, " * 10000)
        f.write("1]\n")
    rc, out, err, _, _ = within("a TOML array of 14 million values (42 MB)",
                                bounded(gpus + ["array/pylock.toml"], sandbox))
    check(rc == 2 and "more than 2000000 values: not read" in err,
          "a TOML array of 14 million values: refused by name", err[-300:])
    shutil.rmtree(sandbox, ignore_errors=True)

    # Cache records of rows as small as a row is: 3,000,000 (123 MB) and 700,000 (28 MB).
    key = "ab" * 32
    url = "http://127.0.0.1:9/x-1.0-py3-none-any.whl#sha256=" + key
    for rows, refused in ((3000000, True), (700000, False)):
        sandbox = tempfile.mkdtemp(dir=work)
        d = os.path.join(sandbox, "cache", "smcheck", "v3", key[:2])
        os.makedirs(d)
        doc = {"format": "smcheck-facts", "version": 3, "reader": READER, "sha256": key,
               "image_fields": IMAGE_FIELDS, "container_fields": CONTAINER_FIELDS,
               "input": {"kind": "wheel", "files": 1, "inspected": True, "root": False,
                         "require_cuda": None, "require_cuda_version": 0, "compat_cuda": 0,
                         "errors": [], "errors_more": 0, "notes": [], "notes_more": 0,
                         "distributions": [], "runtime": [], "libraries": [{
                             "path": "!x/lib.so", "file_size": 1, "machine": 62,
                             "windows": False, "links_torch": False, "cudart_major": 0,
                             "cudart_minor": 0, "release": 0, "distribution": None,
                             "layer": None, "needed": [], "links": [], "findings": [],
                             "findings_more": 0, "images": rows, "containers": 0}]}}
        with open(os.path.join(d, key + ".json"), "w") as f:
            f.write(json.dumps(doc, separators=(",", ":")) + "\n")
            chunk = "[2,0,2,75,1,8,0,0,0,1,32785,13020,0,0,0]\n" * 10000  # this process stays
            for _ in range(rows // 10000):                               # small: a child's peak
                f.write(chunk)                                           # starts from its own
        rc, out, err, _, _ = within("a cache record of %d rows" % rows,
                                    bounded(["--gpu", "sm_80", "--timeout", "1", url], sandbox))
        said = "not a regular file of at most 32 MiB" in err
        check(said == refused, "a cache record of %d rows: %s" % (
            rows, "refused by its size" if refused else "read, not refused"), err[-400:])
        shutil.rmtree(sandbox, ignore_errors=True)


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


def libraries_of(out):
    """The libraries of a JSON report, by path; None when it is not JSON."""
    try:
        return {l["path"]: l for i in json.loads(out)["inputs"] for l in i["libraries"]}
    except (ValueError, KeyError):
        return None


def late_wheel(www):
    """A wheel whose ELF member comes first and 6 MiB of stored random bytes after it, so that
    the member lies before the 2 MiB tail smcheck fetches when it opens the file and is read by a
    later range request; the offset of a byte in the middle of its compressed bytes."""
    demo = [f for f in os.listdir(www) if f.startswith("demo_sm80_sm90")][0]
    src = zipfile.ZipFile(os.path.join(www, demo))
    path = os.path.join(www, "late-1.0-cp312-cp312-manylinux_2_28_x86_64.whl")
    members = []
    for info in sorted(src.infolist(), key=lambda i: not i.filename.endswith(".so")):
        name = info.filename.replace("demo_sm80_sm90", "late")
        if not name.endswith("/RECORD"):
            members.append((name, src.read(info), zipfile.ZIP_DEFLATED))
        if name.endswith(".so"):
            members.append(("late/blob.bin", os.urandom(6 << 20), zipfile.ZIP_STORED))
    record = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(
        hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)) for n, d, _ in members)
    members.append(("late-1.0.dist-info/RECORD", (record + "late-1.0.dist-info/RECORD,,\n")
                    .encode(), zipfile.ZIP_DEFLATED))
    with zipfile.ZipFile(path, "w") as z:
        for name, data, how in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, how)
    with zipfile.ZipFile(path) as z:
        so = [i for i in z.infolist() if i.filename.endswith(".so")][0]
        with open(path, "rb") as f:
            f.seek(so.header_offset + 26)
            n, m = int.from_bytes(f.read(2), "little"), int.from_bytes(f.read(2), "little")
        return os.path.basename(path), so.header_offset + 30 + n + m + so.compress_size // 2


def pinned_checks(base, www, work):
    late, at = late_wheel(www)
    ptx = [f for f in os.listdir(www) if f.startswith("demo_ptx")][0]
    good = "%s/files/%s" % (base, ptx)
    gpus = ["--gpu", "sm_80", "--format", "json"]
    sandbox = tempfile.mkdtemp(dir=work)
    rc, out, err = run(gpus + ["%s/files/%s" % (base, late)], sandbox)
    libs = libraries_of(out) or {}
    check(rc in (0, 1) and any(p.endswith("late/_kernels.so") for p in libs),
          "the late wheel served as it is: its library judged", err[-400:])
    cases = [
        ("its ETag moves", "%s/mutate/etag/%d/%s" % (base, at, late), "ETag"),
        ("its Last-Modified moves", "%s/mutate/modified/%d/%s" % (base, at, late), "Last-Modified"),
        ("it changes and says nothing: a CRC error", "%s/mutate/quiet/%d/%s" % (base, at, late),
         "could not be read to its end"),
        ("it changes under a #sha256=", "%s/mutate/quiet/%d/%s#sha256=%s"
         % (base, at, late, sha(os.path.join(www, late))), "nothing in it is judged"),
        ("a #sha256= it does not have", "%s#sha256=%s" % (good.replace(ptx, late), "0" * 64),
         "its sha256 is"),
    ]
    for name, url, words in cases:
        rc, out, err = run(gpus + [url, good], sandbox)
        libs = libraries_of(out)
        check(libs is not None and not any("late" in p for p in libs),
              "%s: no library judged from it" % name, "%s\n%s" % (list(libs or {}), err[-600:]))
        check(rc == 2 and words in err, "%s: an error that says so, exit 2" % name,
              "exit %d: %s" % (rc, err[-600:]))
        check(libs is not None and any(p.startswith(good) for p in libs),
              "%s: the wheel beside it is judged" % name)
    rc, out, err = run(gpus + ["--index-url", base + "/badhash/simple/", "demo-ptx==1.0"], sandbox)
    check(rc == 2 and libraries_of(out) == {} and "its sha256 is" in err,
          "a wheel whose sha256 is not the index's: an error, no library judged",
          "exit %d: %s %s" % (rc, out[-300:], err[-300:]))
    shutil.rmtree(sandbox, ignore_errors=True)


def pylock_of(entries):
    """A pylock.toml of (name, wheel table) entries."""
    out = 'lock-version = "1.0"\ncreated-by = "tests/hostile_net.py"\n'
    for name, wheel in entries:
        out += '\n[[packages]]\nname = "%s"\nversion = "1.0"\nwheels = [%s]\n' % (name, wheel)
    return out


def local_lock_checks(base, www, work):
    ptx = [f for f in os.listdir(www) if f.startswith("demo_ptx")][0]
    cu = [f for f in os.listdir(www) if f.startswith("demo_cu128")][0]
    p_ptx, p_cu = os.path.join(www, ptx), os.path.join(www, cu)
    gpus = ["--gpu", "sm_80", "--format", "json"]
    sandbox = tempfile.mkdtemp(dir=work)
    os.mkdir(os.path.join(sandbox, "dir.whl"))
    good = '{ path = "%s", hashes = { sha256 = "%s" } }' % (p_cu, sha(p_cu))
    cases = [
        ("a local wheel with the lock's sha256", '{ path = "%s", hashes = { sha256 = "%s" } }'
         % (p_ptx, sha(p_ptx)), None),
        ("a file: URL", '{ url = "file://%s", hashes = { sha256 = "%s" } }'
         % (p_ptx.replace("_", "%5F"), sha(p_ptx)), None),
        ("a local wheel whose sha256 is not the lock's",
         '{ path = "%s", hashes = { sha256 = "%s" } }' % (p_ptx, sha(p_cu)), "its sha256 is"),
        ("a lock path that is not a wheel (/etc/passwd)",
         '{ name = "%s", path = "/etc/passwd" }' % ptx, "not a wheel file"),
        ("a lock path to /proc/self/environ",
         '{ name = "%s", path = "/proc/self/environ" }' % ptx, "not a wheel file"),
        ("a lock path to a directory named .whl", '{ name = "%s", path = "dir.whl" }' % ptx,
         "not a regular file"),
    ]
    for name, wheel, words in cases:
        with open(os.path.join(sandbox, "pylock.toml"), "w") as f:
            f.write(pylock_of([("demo-ptx", wheel), ("demo-cu128", good)]))
        rc, out, err = run(gpus + ["pylock.toml"], sandbox)
        libs = libraries_of(out) or {}
        ptx_libs = [p for p in libs if "demo_ptx" in p]
        if words is None:
            check(rc in (0, 1) and ptx_libs and not err, "%s: read" % name,
                  "exit %d: %s %s" % (rc, list(libs), err[-400:]))
        else:
            check(rc == 2 and not ptx_libs and words in err,
                  "%s: an error that says so, nothing read from it" % name,
                  "exit %d: %s %s" % (rc, list(libs), err[-400:]))
        check(any("demo_cu128" in p for p in libs), "%s: the wheel beside it is judged" % name)
    with open(os.path.join(sandbox, "requirements.txt"), "w") as f:
        f.write("%s --hash=sha256:%s --hash=sha256:%s\n" % (p_ptx, "1" * 64, sha(p_cu)))
    rc, out, err = run(gpus + ["requirements.txt"], sandbox)
    check(rc == 2 and libraries_of(out) == {} and "its sha256 is" in err,
          "requirements.txt: a local wheel no --hash allows: an error, nothing read",
          "exit %d: %s" % (rc, err[-400:]))
    shutil.rmtree(sandbox, ignore_errors=True)

    # A choice of wheel in the cache that the requirement's --hash values do not allow.
    sandbox = tempfile.mkdtemp(dir=work)
    with open(os.path.join(sandbox, "requirements.txt"), "w") as f:
        f.write("--index-url %s/simple/\ndemo-ptx==1.0 --hash=sha256:%s\n" % (base, sha(p_ptx)))
    rc, first, err = run(gpus + ["requirements.txt"], sandbox)
    records = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(sandbox, "cache"))
               for f in fs if '"url"' in open(os.path.join(d, f)).read()]
    check(rc in (0, 1) and len(records) == 1, "a requirement with --hash: its choice is cached",
          "exit %d, %d records: %s" % (rc, len(records), err[-300:]))
    for path in records:
        text = open(path).read()
        with open(path, "w") as f:
            f.write(text.replace(sha(p_ptx), sha(p_cu)).replace(ptx, cu))
    rc, out, err = run(gpus + ["requirements.txt"], sandbox)
    check("not among the requirement's --hash values" in err and
          libraries_of(out) == libraries_of(first),
          "a cached choice whose sha256 no --hash allows: said, not used, asked again",
          "exit %d: %s" % (rc, err[-400:]))
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
        if quick():
            secret_checks(base, www, work)
            pinned_checks(base, www, work)
            local_lock_checks(base, www, work)
        if quick():
            cache_link_checks(base, www, work)
            bound_checks(base, www, work)
        if long():  # the floods: pages of a million files, locks and records at their caps
            page_bound_checks(base, work)
            lock_bound_checks(work)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
