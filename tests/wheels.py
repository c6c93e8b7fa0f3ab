#!/usr/bin/env python3
"""Tests of wheels and Python environments, on the inputs tests/make_wheels.py assembles (what
each must give is in fixtures/wheels.md).

Usage: wheels.py SMCHECK FIXTURES_DIR
Checks: a wheel's inventory equals that of its files unpacked; the wheel's facts (name, version,
local version, platform, CUDA runtime and where it says so); Windows DLLs; each broken wheel
gives its one-line error and still reports its good member; environments attribute each library to
its distribution (dist-info RECORD, egg-info, conda-meta) or list it unowned, and a distribution's
status is the worst of its libraries. Prints "N passed, M failed".
"""
import base64
import bz2
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
import zlib

from harness import check, corpus, equal, finish

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_wheels  # noqa: E402

SMCHECK, FIXTURES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))



def counts(lib):
    """A library's token counts as {token: count}."""
    return {c["token"]: c["count"] for c in lib["token_counts"]}

def run(*args, cwd=None, inflate=None):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1")
    if inflate:
        env["SMCHECK_INFLATE"] = inflate
    p = subprocess.run([SMCHECK, *args], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def scan_json(path, *extra, cwd=None):
    rc, out, err = run("scan", "--format", "json", *extra, path, cwd=cwd)
    return rc, json.loads(out)["inputs"][0], err


def inventory(inp, strip):
    """path (relative to strip) -> (containers, images) of an input's libraries."""
    return {lib["path"][len(strip):]: (lib["containers"], counts(lib))
            for lib in inp["libraries"]}


def main():
    out = tempfile.mkdtemp(prefix="smcheck-wheels-")
    try:
        shared, done = corpus("wheels")  # copied: these checks write beside its files
        subprocess.run(["cp", "-a", shared + "/.", out], check=True)  # hard links kept
        done()
        wheels(out)
        environments(out)
        rollups(out)
        support(out)
        stores(out)
        situation(out)
        runtime(out)
        requirement_paths(out)
        windows_on_arm(out)
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", out])
        shutil.rmtree(out, ignore_errors=True)
    return finish()


def wheels(out):
    demo = "demo_cuda-1.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
    rc, inp, err = scan_json(demo, cwd=out)
    check(rc == 0 and err == "", "demo wheel: exit 0, nothing on stderr")
    check(inp["kind"] == "wheel", "demo wheel: kind wheel")
    dist = inp["distributions"][0] if inp.get("distributions") else {}
    check((dist.get("name"), dist.get("version"), dist.get("local_version")) ==
          ("demo-cuda", "1.0+cu130", "cu130"), "demo wheel: name, version, local version")
    check(dist.get("platform") == "manylinux_2_28_x86_64", "demo wheel: platform tag")
    check(dist.get("cuda") == "13.0" and dist.get("cuda_source") == "demo_cuda/version.py",
          "demo wheel: CUDA runtime from version.py")
    # The same files unpacked give the same inventory.
    unpacked = os.path.join(out, "unpacked")
    with zipfile.ZipFile(os.path.join(out, demo)) as z:
        z.extractall(unpacked)
    _, flat, _ = scan_json(unpacked)
    a, b = inventory(inp, demo + "!"), inventory(flat, unpacked + "/")
    check(len(a) == 4 and a == b, "demo wheel: inventory equals the unpacked files' (%d libraries)" % len(a))
    check(sorted(dist.get("libraries", [])) == sorted(l["path"] for l in inp["libraries"]),
          "demo wheel: every library belongs to its distribution")
    # A member over 8 MiB goes through the stream reader: a toolkit library, when there is one.
    big = "/usr/local/cuda/lib64/libcublas.so.13"
    if os.path.isfile(big):
        path = os.path.join(out, "big-1.0-py3-none-manylinux_2_28_x86_64.whl")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            z.write(big, "big/libcublas.so.13")
        _, winp, _ = scan_json(path, "--detail")
        _, finp, _ = scan_json(os.path.realpath(big), "--detail")
        wl, fl = winp["libraries"][0], finp["libraries"][0]
        same = (wl["containers"], counts(wl), wl["container_list"]) == \
               (fl["containers"], counts(fl), fl["container_list"])
        check(same and wl["containers"] > 100,
              "a 54 MB member streamed: the same containers, sections and images as the file")
    else:
        print("skip   a large streamed member (no CUDA toolkit here)")

    rc, inp, _ = scan_json("demo_win-1.0-cp312-cp312-win_amd64.whl", cwd=out)
    libs = {l["path"].split("!")[1]: l for l in inp["libraries"]}
    check(rc == 0 and sorted(libs) == ["demo_win/kern_cuda.dll"] and
          libs["demo_win/kern_cuda.dll"]["cudart_soname"] == "cudart64_12.dll" and
          counts(libs["demo_win/kern_cuda.dll"]) == {"sm_75": 1, "sm_80": 2, "sm_90": 1,
                                                       "compute_90": 1},
          "Windows wheel: its DLLs are read (PE): device code, and cudart64_12.dll imported; a "
          "DLL without device code is no library (exit 0)")
    dist = inp["distributions"][0]
    check(dist["platform"] == "win_amd64", "Windows wheel: platform win_amd64")

    rc, inp, _ = scan_json("nodevice-2.0-py3-none-any.whl", cwd=out)
    check(rc == 0 and inp["libraries"] == [] and inp["distributions"][0]["name"] == "nodevice",
          "pure-Python wheel: no library, exit 0")

    good = "demo/good.so"
    cases = [
        ("bad_corrupt.whl", "bad_corrupt.whl: not a readable zip archive", False),
        ("bad_truncated.whl", "bad_truncated.whl: not a readable zip archive", False),
        ("bad_bomb.whl", "bad_bomb.whl!big/zeros.so: claims 209715264 bytes, past the cap", True),
        ("bad_claims.whl", "bad_claims.whl!huge/claims.so: claims 98784247808 bytes", True),
        ("bad_dupes.whl", "bad_dupes.whl: member name demo/dup.so appears more than once", True),
        ("bad_dotdot.whl", "bad_dotdot.whl: member name ../../evil.so points outside", True),
        ("bad_encrypted.whl", "bad_encrypted.whl: member demo/secret.so is encrypted: not read", True),
        ("bad_record.whl", "bad_record.whl: RECORD says demo/lib.so has 12345 bytes", False),
        ("bad_crc.whl", "bad_crc.whl!demo/bad.so: cannot inflate: CRC error", True),
        ("bad_deflate.whl", "bad_deflate.whl!demo/cut.so: cannot inflate: ", True),
    ]
    for name, message, has_good in cases:
        rc, outtext, err = run("scan", "--max-inflate", "64M", name, cwd=out)
        check(rc == 2 and ("smcheck: " + message) in err, f"{name}: exit 2, '{message}'")
        if has_good:
            check(f"{name}!{good}: 4 containers, 10 images" in outtext,
                  f"{name}: the good member is still reported")
    # ISA-L (the default where built in) and zlib (SMCHECK_INFLATE=zlib) inflate every member to
    # the same bytes, or to the same error: the same report of every wheel here, and of a bad
    # CRC and a cut deflate stream the bytes that came out are still read.
    rc, outtext, err = run("scan", "bad_deflate.whl", cwd=out)
    check("bad_deflate.whl!demo/cut.so: 1 container, 4 images" in outtext,
          "bad_deflate.whl: what inflated before the cut is read")
    isal = "the deflate stream ends early" in err
    print("info   deflated members inflate through %s" % ("ISA-L" if isal else "zlib"))
    for name in sorted(os.listdir(out)):
        if not name.endswith(".whl"):
            continue
        a = run("scan", "--format", "json", "--max-inflate", "64M", name, cwd=out)
        b = run("scan", "--format", "json", "--max-inflate", "64M", name, cwd=out,
                inflate="zlib")
        # The one message that differs: libzip says "CRC error" of a stream cut short.
        cut = lambda t: t.replace("the deflate stream ends early", "CRC error")
        same = a[0] == b[0] and cut(a[1]) == b[1] and cut(a[2]) == b[2]
        check(same, f"{name}: the same report through ISA-L and zlib")
    # One long member inflated by more than one thread (pinflate.c; pieces of 16 KiB here, so
    # that a member of a few MiB has enough of them, and the reader waits for the helpers, so
    # that some pieces are theirs): the report of inflating it in order. The
    # member is a fixture with a section of text-like filler added, deflated at level 6.
    pad = os.path.join(out, "pad.bin")
    words = [b"sm_90 ", b"compute_80 ", b"kernel ", b"cubin\n", b"fatbin ", b"0x7fff ", b"ptx "]
    seed = 12345
    with open(pad, "wb") as f:
        chunk = []
        for _ in range(600000):
            seed = (seed * 1103515245 + 12345) & 0x7fffffff
            chunk.append(words[seed % len(words)])
        f.write(b"".join(chunk))
    big = os.path.join(out, "big.so")
    subprocess.run(["objcopy", "--add-section", ".smcheck_pad=" + pad,
                    os.path.join(FIXTURES, "nvcc", "variants.so"), big], check=True)
    with zipfile.ZipFile(os.path.join(out, "long_member.whl"), "w", zipfile.ZIP_DEFLATED) as z:
        z.write(big, "demo/big.so")
    env_pieces = dict(os.environ, SMCHECK_INFLATE_PIECE="16384")
    in_order = run("scan", "--format", "json", "--detail", "-j1", "long_member.whl", cwd=out)
    for jobs in ("-j2", "-j4") if isal else ():  # pinflate.c is ISA-L's
        p = subprocess.run([SMCHECK, "scan", "--format", "json", "--detail", jobs,
                            "long_member.whl"], cwd=out, capture_output=True, text=True,
                           env=dict(env_pieces, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1"),
                           timeout=120)
        m = re.search(r"inflated in pieces: (\d+) served from helpers", p.stderr)
        check(p.returncode == in_order[0] and p.stdout == in_order[1] and m and int(m.group(1)),
              "long_member.whl at %s, in pieces: the report of -j1 (%s pieces from helpers)" %
              (jobs, m.group(1) if m else "no"))
    if not isal:
        print("info   built without ISA-L: no member is inflated in pieces")
    # Every wheel here, its long members in pieces of 4 KiB (a zip bomb's zeros among them): the
    # report of inflating in order, errors and all.
    for name in sorted(n for n in os.listdir(out) if n.endswith(".whl")):
        a = run("scan", "--format", "json", "--max-inflate", "64M", "-j1", name, cwd=out)
        p = subprocess.run([SMCHECK, "scan", "--format", "json", "--max-inflate", "64M", "-j4",
                            name], cwd=out, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, SMCHECK_INFLATE_PIECE="4096",
                                    SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1"))
        err = re.sub(r"smcheck: inflated in pieces: .*\n", "", p.stderr)
        same = (p.returncode, p.stdout, err) == a
        if not same:  # say how
            print("info   -j1: exit %d, stderr %r\ninfo   -j4: exit %d, stderr %r, stdout %s" % (
                a[0], a[2][:600], p.returncode, p.stderr[:600],
                "the same" if p.stdout == a[1] else "differs"))
        check(same, f"{name}: in pieces of 4 KiB, the same report")
    # More threads than may hold an open archive at once (3): they wait for one in turn, and the
    # report of all the wheels together is the same as from one thread.
    names = sorted(n for n in os.listdir(out) if n.endswith(".whl"))
    one = run("scan", "--format", "json", "--max-inflate", "64M", "-j1", *names, cwd=out)
    many = run("scan", "--format", "json", "--max-inflate", "64M", "-j9", *names, cwd=out)
    check(one == many and '"libraries"' in one[1],
          "all %d wheels at -j9 (3 archive readers at once): the report of -j1" % len(names))
    rc, outtext, err = run("scan", "bad_dotdot.whl", cwd=out)
    check("member name /abs/evil2.so points outside the archive" in err,
          "bad_dotdot.whl: the absolute name too")
    rc, outtext, err = run("scan", "bad_record.whl", cwd=out)
    check("RECORD lists demo/missing.so, which the wheel does not hold" in err and
          "bad_record.whl!demo/lib.so: 4 containers" in outtext,
          "bad_record.whl: a missing file, and the lied-about member still read")
    rc, outtext, err = run("scan", "bad_dupes.whl", cwd=out)
    check(outtext.count("bad_dupes.whl!demo/dup.so:") == 2, "bad_dupes.whl: both copies listed")
    # The bomb inflated under a cap above its size is no library (an ELF header, then zeros).
    rc, outtext, err = run("scan", "bad_bomb.whl", cwd=out)
    check(rc == 0 and "zeros.so" not in outtext, "bad_bomb.whl under the default cap: read through")
    rc, outtext, err = run("scan", "--max-inflate-total", "1M", "bad_bomb.whl", cwd=out)
    check(rc == 2 and "past the cap of 1048576 bytes for one input" in err,
          "--max-inflate-total stops an input")

    rc, outtext, err = run("scan", "--max-members", "100", "many_members.whl", cwd=out)
    check(rc == 2 and "many_members.whl: 20005 members, more than 100: the rest are not read (--max-members)" in err,
          "--max-members: the message, exit 2")
    rc, outtext, err = run("scan", "many_members.whl", cwd=out)
    check(rc == 0 and "many_members.whl!many/libmulti.so: 4 containers" in outtext,
          "20,000 members: the one library found, exit 0")

    # Judging a wheel: its distribution takes the worst status of its libraries.
    rc, o, err = run("--gpu", "sm_75,sm_120", "--format", "json", demo, cwd=out)
    inp = json.loads(o)["inputs"][0]
    dist = inp["distributions"][0]
    worst = worst_of(inp, dist["libraries"])
    check([v["status"] for v in dist["verdicts"]] == worst,
          "demo wheel: its status is the worst of its libraries per target (%s)" % worst)
    layouts(out)


ORDER = ["ok", "jit", "partial", "none"]


def pad_member(data, mib=9):
    """The fixture grown past the 8 MiB that are read whole, so that it streams: zeros after an
    ELF file's last byte, or an archive member of zeros."""
    if data[:8] == b"!<arch>\n":
        pad = b"\0" * (mib << 20)
        hdr = ("%-16s%-12s%-6s%-6s%-8s%-10d`\n" % ("pad.bin/", "0", "0", "0", "644", len(pad)))
        return data + (b"\n" if len(data) % 2 else b"") + hdr.encode() + pad
    return data + b"\0" * (mib << 20)


def layouts(out):
    """Every fixture, and each grown past 8 MiB: in a wheel and unpacked, judged with --detail,
    the same libraries, containers, sections, members, images, findings, runtimes and verdicts."""
    fixtures = os.path.join(os.path.dirname(HERE), "fixtures")
    files = {}
    for sub in ("nvcc", "gen"):
        for name in sorted(os.listdir(os.path.join(fixtures, sub))):
            with open(os.path.join(fixtures, sub, name), "rb") as f:
                data = f.read()
            files["layouts/%s/%s" % (sub, name)] = data
            if sub == "gen" and name in ("far_names.so", "far_names_odd.so", "unaligned.so", "archive_offsets.a",
                                         "extnum_be.so", "garbage_many.so", "cudart11.so",
                                         "mentions_cudart.so", "hostile_nested.so", "ldata.so",
                                         "cudart_flood.so"):
                files["layouts/big/" + name] = pad_member(data)
    path = os.path.join(out, "layouts.zip")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in files.items():
            z.writestr(name, data)
    unpacked = os.path.join(out, "layouts-unpacked")
    with zipfile.ZipFile(path) as z:
        z.extractall(unpacked)
    judge = ("--gpu", "7.5,8.0,9.0,12.0", "--driver", "12.8", "--detail", "--verify",
             "--format", "json")
    rc1, o1, _ = run(*judge, path)
    rc2, o2, _ = run(*judge, unpacked)
    a = {l["path"].split("!", 1)[1]: l for l in json.loads(o1)["inputs"][0]["libraries"]}
    b = {l["path"][len(unpacked) + 1:]: l for l in json.loads(o2)["inputs"][0]["libraries"]}
    for l in list(a.values()) + list(b.values()):
        l.pop("path")
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    check(rc1 == rc2 and not differ and len(a) > 40,
          "fixtures in a zip and unpacked, 9 grown past 8 MiB: the same judged detail JSON "
          "(%d libraries%s)" % (len(a), "; differ: " + ", ".join(differ[:5]) if differ else ""))

def worst_of(inp, paths):
    libs = {l["path"]: l for l in inp["libraries"]}
    n = len(next(iter(libs.values()))["verdicts"]) if libs else 0
    return [max((libs[p]["verdicts"][t]["status"] for p in paths), key=ORDER.index, default="ok")
            for t in range(n)]


def owners(inp, root):
    """library path relative to root -> owning distribution name (None when unowned)."""
    names = {}
    for d in inp["distributions"]:
        for p in d["libraries"]:
            names[p] = d["name"]
    return {l["path"][len(root) + 1:]: names.get(l["path"]) for l in inp["libraries"]}


def environments(out):
    sp = "lib/python3.12/site-packages/"
    expect = {
        "venv": {
            sp + "demo_cuda/_C.so": "demo-cuda",
            sp + "demo_cuda/kernels/kernel.cubin": "demo-cuda",
            sp + "demo_cuda/lib/libmulti.so": "demo-cuda",
            sp + "demo_cuda/lib/libvariants.so": "demo-cuda",
            sp + "other_pkg/libother.so": "other-pkg",
            sp + "legacy_pkg/liblegacy.so": "legacy-pkg",
            sp + "stray/libstray.so": None,
        },
        "conda": {
            "lib/libcudart_like.so": "cudatoolkit",
            sp + "torch/lib/libtorch_like.so": "pytorch",
            sp + "pip_pkg/libpip.so": "pip-pkg",
        },
        "rootfs": {
            "usr/lib/python3/dist-packages/deb_pkg/libdeb.so": "deb-pkg",
            "usr/local/lib/python3.12/site-packages/local_pkg/liblocal.so": "local-pkg",
            "opt/venv/" + sp + "venv_pkg/libvenv.so": "venv-pkg",
            "usr/local/cuda/lib64/libcuda_like.so": None,
        },
    }
    for tree, want in expect.items():
        root = os.path.join(out, tree)
        rc, inp, err = scan_json(root)
        got = owners(inp, root)
        if tree == "rootfs":  # root reads secret/ (mode 000); others are told it is unreadable
            got.pop("secret/libhidden.so", None)
        check(inp["kind"] == "environment", f"{tree}: kind environment")
        check(got == want, f"{tree}: every library attributed to its distribution, or unowned")
        if got != want:
            print("   got:", json.dumps(got, indent=1), file=sys.stderr)
        check(not any("libescape" in l["path"] for l in inp["libraries"]),
              f"{tree}: no link followed out of the tree")
        rc, o, err = run("--gpu", "sm_75,sm_90,sm_120", "--format", "json", root)
        jinp = json.loads(o)["inputs"][0]
        ok = all([v["status"] for v in d.get("verdicts", [])] == worst_of(jinp, d["libraries"])
                 for d in jinp["distributions"] if d["libraries"])
        check(ok, f"{tree}: each distribution's status is the worst of its libraries")
    # A RECORD that lies about a library's size, and a library two distributions claim.
    record = os.path.join(out, "venv", sp, "other_pkg-0.5.dist-info", "RECORD")
    with open(record) as f:
        lines = [l for l in f.read().splitlines()]
    lines = [l.rsplit(",", 1)[0] + ",12345" if l.startswith("other_pkg/libother.so,") else l
             for l in lines]
    with open(record, "w") as f:
        f.write("\n".join(lines) + "\n")
    legacy = os.path.join(out, "venv", sp, "legacy_pkg-0.1-py3.12.egg-info", "installed-files.txt")
    with open(legacy, "a") as f:
        f.write("../other_pkg/libother.so\n")
    rc, text, err = run("scan", os.path.join(out, "venv"))
    check(rc == 2 and "other_pkg/libother.so: the RECORD of other-pkg says 12345 bytes; the file has" in err,
          "a RECORD that lies about a library's size: a finding, exit 2")
    check("other_pkg/libother.so: claimed by both" in err, "a library two distributions claim: a finding")
    rc, text, err = run("--gpu", "sm_75", os.path.join(out, "venv"))
    check("[demo-cuda 1.0+cu130] dist-info" in text and "no distribution claims these:" in text,
          "venv text report: grouped by distribution, then the unowned")
    rc, text, err = run("scan", os.path.join(out, "conda"))
    check("[cudatoolkit 12.4.1] conda" in text, "conda text report names the conda package")


def situation(out):
    """Issue 24: the answer lies around the device code (tests/make_wheels.py, situation/)."""
    s = os.path.join(out, "situation")
    arm = os.path.join(s, "torch-2.8.0-cp311-cp311-manylinux_2_28_aarch64.whl")
    rc, doc = judged(arm, "gb10")
    st, vs = dist_status(doc, "torch")
    d = doc["inputs"][0]["distributions"][0]
    check(st == ["cpu-only"] and rc == 1 and vs[0]["cpu_only"] == "torch/version.py: cuda = None"
          and "the GPU will not be used" in vs[0]["reason"] and vs[0]["next"] and
          d["cuda"] is None and doc["overall"][0]["status"] == "cpu-only",
          "a CPU-only torch (version.py cuda = None) on a GB10: cpu-only, exit 1, and no CUDA from "
          "a Requires-Dist whose marker is for x86_64 (%s, %s, cuda %s)" % (st, rc, d["cuda"]))
    # Installed, the same: the environment's text report names it (it has no library), and its
    # own "cuda = None" beats the Requires-Dist line (whose marker an environment cannot read).
    env_dir = os.path.join(s, "cpu_env")
    rc, doc = judged(env_dir, "gb10")
    st, vs = dist_status(doc, "torch")
    d = doc["inputs"][0]["distributions"][0]
    rc_t, text, _ = run("--gpu", "gb10", env_dir)
    check(st == ["cpu-only"] and rc == 1 and rc_t == 1 and d["cuda"] is None and
          "[torch 2.8.0] dist-info; 0 libraries; sm_121 cpu-only" in text,
          "a CPU-only torch installed: cpu-only, named in the text report, no CUDA line (%s, %s)"
          % (st, d["cuda"]))
    rc2, _ = judged(arm, "gb10", "--fail-on", "none,allow-cpu-only")
    rc3, _ = judged(arm, "gb10", "--fail-on", "never")
    check(rc2 == 0 and rc3 == 0, "--fail-on none,allow-cpu-only and never let it pass (%s, %s)"
          % (rc2, rc3))
    rc, doc = judged(os.path.join(s, "torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl"), "9.0")
    st, _ = dist_status(doc, "torch")
    d = doc["inputs"][0]["distributions"][0]
    check(st == ["ok"] and rc == 0 and d["cuda"] == "12.8" and d["cuda_source"] == "torch/version.py",
          "its x86_64 twin, a CUDA build: ok, CUDA 12.8 by its own version.py (%s, %s)"
          % (st, d["cuda_source"]))
    rc, text, _ = run("--gpu", "gb10", "--format", "sarif", arm)
    results = json.loads(text)["runs"][0]["results"]
    check([r["ruleId"] for r in results] == ["cpu-only"] and results[0]["level"] == "error",
          "SARIF: one cpu-only result, an error (%s)" % [r["ruleId"] for r in results])
    tag = "cp311-cp311-manylinux_2_28_x86_64"
    got = {}
    for dist in ("onnxruntime", "onnxruntime_gpu", "plainpkg"):
        rc, doc = judged(os.path.join(s, "%s-1.20.1-%s.whl" % (dist, tag)), "8.6")
        got[dist] = (doc["inputs"][0]["distributions"][0]["verdicts"][0]["status"], rc)
    check(got == {"onnxruntime": ("cpu-only", 1), "onnxruntime_gpu": ("ok", 0),
                  "plainpkg": ("no-device-code", 0)},
          "onnxruntime is the CPU build by name, onnxruntime-gpu runs, a package that never uses "
          "the GPU is not flagged (%s)" % got)
    # bitsandbytes 0.39.1: the loader takes the _nocublaslt twin when the last GPU it enumerates
    # is below 7.5, once for the whole process.
    bnb = os.path.join(s, "bitsandbytes-0.39.1-py3-none-any.whl")
    seen = {}
    for gpus in ("7.0", "7.0+7.5", "7.5+7.0", "7.0,7.5"):
        rc, doc = judged(bnb, gpus)
        st, vs = dist_status(doc, "bitsandbytes")
        seen[gpus] = (st, rc, vs[0]["reason"])
    check(seen["7.0"][:2] == (["ok"], 0) and seen["7.0+7.5"][:2] == (["none", "ok"], 1) and
          "once for the whole machine" in seen["7.0+7.5"][2] and
          "compute capability 7.5" in seen["7.0+7.5"][2] and
          seen["7.5+7.0"][:2] == (["ok", "ok"], 0) and seen["7.0,7.5"][:2] == (["ok", "ok"], 0),
          "bitsandbytes 0.39.1: ok on a V100 alone; with a T4 enumerated last the machine loads "
          "the cuBLASLt library, none on the V100, and the reason says so (%s)"
          % {k: v[:2] for k, v in seen.items()})
    rc, doc = judged(bnb, "7.0", "--platform", "linux-aarch64")
    libs = doc["inputs"][0]["libraries"]
    causes = {l["verdicts"][0]["cause"] for l in libs}
    st, _ = dist_status(doc, "bitsandbytes")
    check(st == ["none"] and rc == 1 and causes == {"platform"} and
          any(l["verdicts"][0]["next"] == "a build of it for linux-aarch64" for l in libs),
          "its x86-64 libraries in a py3-none-any wheel, judged for linux-aarch64: none, cause "
          "platform (%s, %s)" % (st, causes))
    rc, doc = judged(bnb, "7.0", "--platform", "linux-x86_64")
    check(dist_status(doc, "bitsandbytes")[0] == ["ok"] and rc == 0,
          "the same for linux-x86_64: ok")
    mixed = os.path.join(s, "mixed-1.0-cp311-cp311-manylinux_2_28_aarch64.whl")
    rc, doc = judged(mixed, "8.7")
    inp = doc["inputs"][0]
    lib = {l["path"].split("!")[1]: l["verdicts"][0] for l in inp["libraries"]}
    check(lib["mixed/_C.so"]["cause"] == "platform" and lib["mixed/_arm.so"]["status"] == "ok" and
          any("mixed/_C.so: a linux-x86_64 library in a wheel tagged manylinux_2_28_aarch64" in n
              for n in inp["notes"]),
          "a wheel tagged aarch64 that ships an x86-64 library: a note, and that library cannot "
          "load (%s)" % inp["notes"])
    mistagged = os.path.join(s, "mistagged-1.0-cp311-cp311-manylinux_2_28_x86_64.whl")
    rc, doc = judged(mistagged, "8.0", "--platform", "linux-x86_64")
    inp = doc["inputs"][0]
    v = inp["libraries"][0]["verdicts"][0]
    check(rc == 1 and v["status"] == "none" and v["cause"] == "platform" and
          any("its file name is for linux-x86_64 and its WHEEL file for linux-aarch64" in n
              for n in inp["notes"]),
          "a wheel named for x86_64 whose WHEEL file says aarch64, with an AArch64 library: pip "
          "installs it on x86-64 by its name, so the library is none there, and the two tags are "
          "said (%s, %s)" % (v["status"], inp["notes"]))
    # --driver of every era; a branch newer than the tables is said.
    plain = os.path.join(s, "plainpkg-1.20.1-%s.whl" % tag)
    rc, doc = judged(plain, "7.0", "--driver", "410.48")
    check(rc == 0 and doc["driver"]["cuda_version"] == "10.0", "--driver 410.48 is CUDA 10.0 (%s)"
          % doc["driver"])
    rc, doc = judged(plain, "7.0", "--driver", "999")
    check(rc == 0 and "newer than any smcheck knows" in doc["driver"]["source"] and
          doc["driver"]["cuda_version"] == "13.4",
          "--driver 999: accepted, and the report says it is newer than the tables (%s)"
          % doc["driver"])
    rc, doc = judged(bnb, "7.0", "--driver", "10.0")
    lib = {l["path"].split("!")[1]: l["verdicts"][0] for l in doc["inputs"][0]["libraries"]}
    twin = lib["bitsandbytes/libbitsandbytes_cuda118_nocublaslt.so"]
    check(twin["cause"] == "runtime-newer" and rc == 1 and
          twin["next"] == "a driver of 418.39 or newer (CUDA 10.1)",
          "a CUDA 10.1 runtime on a CUDA 10.0 driver: none before start-up, the next step the "
          "10.1 driver (%s, %s)" % (twin["cause"], twin["next"]))
    # The local GPUs are one machine: a V100 and a T4, enumerated in that order (the stub driver),
    # and the environment's BNB_CUDA_VERSION where the loader reads it.
    stub = sys.argv[3] if len(sys.argv) > 3 else ""
    check(os.path.exists(stub), "the stub driver is given (%r)" % stub)
    env = dict(os.environ, SMCHECK_LIBCUDA=stub, STUB_DRIVER_VERSION="12080",
               STUB_DEVICES="Tesla V100-SXM2-16GB|7.0|0;Tesla T4|7.5|0")
    env.pop("BNB_CUDA_VERSION", None)
    p = subprocess.run([SMCHECK, "--format", "json", bnb], capture_output=True, text=True, env=env)
    doc = json.loads(p.stdout) if p.stdout else {"inputs": [{"distributions": []}]}
    st, vs = dist_status(doc, "bitsandbytes")
    check(st == ["none", "ok"] and p.returncode == 1 and vs[0]["alternatives"]["chosen_for_machine"],
          "the local V100 and T4: one choice for the machine, by the T4, none on the V100 (%s)" % st)
    bnb44 = os.path.join(s, "bitsandbytes-0.45.5-py3-none-manylinux_2_24_x86_64.whl")
    env["STUB_DEVICES"] = "Tesla V100-SXM2-16GB|7.0|0"
    seen = []
    for over in (None, "118"):
        e = dict(env, BNB_CUDA_VERSION=over) if over else env
        for gpu in ([], ["--gpu", "7.0"]):
            p = subprocess.run([SMCHECK, *gpu, "--format", "json", bnb44], capture_output=True,
                               text=True, env=e)
            st, vs = dist_status(json.loads(p.stdout), "bitsandbytes")
            seen.append((st, vs[0]["reason"]))
    check([x[0] for x in seen] == [["ok"], ["ok"], ["none"], ["ok"]] and
          "BNB_CUDA_VERSION=118 picks" in seen[2][1],
          "BNB_CUDA_VERSION=118 where it runs (the local V100) loads cuda118, none there; named "
          "GPUs do not read this machine's environment (%s)" % seen)
    p = subprocess.run([SMCHECK, "--format", "json", bnb44], capture_output=True, text=True,
                       env=dict(env, BNB_CUDA_VERSION="129"))
    st, vs = dist_status(json.loads(p.stdout), "bitsandbytes")
    check(st == ["none"] and p.returncode == 1 and
          vs[0]["alternatives"]["missing_cuda"] == "12.9" and
          not vs[0]["alternatives"]["chosen_by_torch"] and
          vs[0]["reason"].startswith("BNB_CUDA_VERSION=129 asks for libbitsandbytes_cuda129.so") and
          vs[0]["next"].startswith("BNB_CUDA_VERSION=121 (libbitsandbytes_cuda121.so runs here)"),
          "BNB_CUDA_VERSION=129 names a file the wheel does not ship: none, and the next step the "
          "setting that runs (%s)" % vs)
    rc, doc = judged(os.path.join(s, "bitsandbytes-0.44.1-py3-none-manylinux_2_24_x86_64.whl"),
                     "7.0,7.5")
    st, vs = dist_status(doc, "bitsandbytes")
    check(st == ["none", "ok"] and rc == 1 and "ships none" in vs[0]["reason"],
          "bitsandbytes 0.44.1 without its _nocublaslt twins on a 7.0 GPU: the file its loader wants "
          "is not there: none (%s, %s)" % (st, vs[0]["reason"]))
    rc, _, err = run("--gpu", "sm_200", bnb)
    check(rc == 64 and "closest: 12.1, 12.0, 11.0" in err, "--gpu sm_200: refused, naming the "
          "closest known (%s)" % err.strip())


def runtime(out):
    """Issue 25: compilers used at run time, CUDA libraries resolved against the environment, a CPU
    build that shadows a GPU one (tests/make_wheels.py, runtime/)."""
    r = os.path.join(out, "runtime")
    # Issue 47: JAX compiles with the nvidia-cuda-nvcc wheel's ptxas: 12.3's knows sm_90a, not
    # sm_120a; without jaxlib nothing uses it.
    rc, doc = judged(os.path.join(r, "jax_nvcc123"), "12.0,9.0")
    st, vs = dist_status(doc, "nvidia-cuda-nvcc-cu12")
    overall = [v["status"] for v in doc.get("overall", [])]
    check(rc == 1 and st == ["compiler", "ok"] and overall[0] == "compiler" and
          overall[1] != "compiler" and
          vs[0]["compiler"]["path"].endswith("nvidia/cuda_nvcc/bin/ptxas") and
          vs[0]["compiler"]["target"] == "sm_120a" and
          [c["kind"] for c in doc["inputs"][0]["compilers"]] == ["xla-ptxas"] and
          "JAX fails at its first jit" in vs[0]["reason"] and
          "nvidia-cuda-nvcc-cu12 12.8 or newer" in (vs[0]["next"] or ""),
          "JAX with nvidia-cuda-nvcc-cu12 12.3: its ptxas does not know sm_120a: compiler, the "
          "next step a newer nvcc wheel; on an H100, ok", (rc, st, overall, vs[0].get("next")))
    # Where it runs, JAX gives XLA CUDA_ROOT's ptxas, else the wheel's over XLA_FLAGS' data dir.
    for extra, want in (({"CUDA_ROOT": "/opt/cuda-12.8"}, "ok"),
                        ({"XLA_FLAGS": "--xla_gpu_cuda_data_dir=/opt/cuda-12.8"}, "compiler")):
        env = dict(os.environ, SMCHECK_LIBCUDA=sys.argv[3] if len(sys.argv) > 3 else "",
                   STUB_DRIVER_VERSION="13000", STUB_DEVICES="NVIDIA GeForce RTX 5090|12.0|1", **extra)
        p = subprocess.run([SMCHECK, "--format", "json", os.path.join(r, "jax_nvcc123")],
                           capture_output=True, text=True, env=env)
        st, vs = dist_status(json.loads(p.stdout), "nvidia-cuda-nvcc-cu12") if p.stdout else (None, [{}])
        check(st == [want] and (want == "compiler" or
                                vs[0]["compiler"]["override"] == "CUDA_ROOT=/opt/cuda-12.8"),
              "JAX on a local RTX 5090 with %s: %s (JAX names CUDA_ROOT's ptxas to XLA, else the "
              "wheel's, whatever XLA_FLAGS says)" % (list(extra)[0], want), (st, p.stderr[-200:]))
    rc, doc = judged(os.path.join(r, "nvcc123_alone"), "12.0")
    st, _ = dist_status(doc, "nvidia-cuda-nvcc-cu12")
    check(rc == 0 and st != ["compiler"], "the same nvcc wheel without JAX: its ptxas is used by "
          "nothing judged", (rc, st))
    # numba-cuda: NVVM 12.0 does not know the compute_120 NVRTC 12.8 chooses on an RTX 5090;
    # CUDA 13.0's pair knows nothing before 7.5 (a V100: NVRTC's CCSupportError, NVVM too), and
    # on a Rubin (10.7) NVRTC 13.0 chooses compute_103, which the driver compiles: ok.
    rc, doc = judged(os.path.join(r, "numba_nvvm120"), "12.0,9.0")
    st, vs = dist_status(doc, "nvidia-cuda-nvcc-cu12")
    nv, _ = dist_status(doc, "nvidia-cuda-nvrtc-cu12")
    check(rc == 1 and st == ["compiler", "ok"] and nv == ["ok", "ok"] and
          vs[0]["compiler"]["path"].endswith("nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so") and
          "numba-nvvm" in [c["kind"] for c in doc["inputs"][0]["compilers"]] and
          vs[0]["compiler"]["target"] == "compute_120"
          and "numba-cuda's kernels fail to compile" in vs[0]["reason"] and
          "nvidia-cuda-nvcc-cu12 12.8 or newer" in (vs[0]["next"] or ""),
          "numba-cuda with NVVM 12.0 and NVRTC 12.8 on an RTX 5090: its NVVM does not know "
          "compute_120: compiler, the next step a newer nvcc wheel; on an H100, ok",
          (rc, st, nv, vs[0].get("reason"), vs[0].get("next")))
    rc, doc = judged(os.path.join(r, "numba_cu13"), "7.0,10.7")
    st, vs = dist_status(doc, "nvidia-nvvm")
    nv, nvs = dist_status(doc, "nvidia-cuda-nvrtc")
    check(rc == 1 and st == ["compiler", "ok"] and nv == ["compiler", "ok"] and
          [v["compiler"]["target"] for v in vs] == ["compute_70", "compute_103"] and
          nvs[1]["compiler"]["target"] == "compute_103" and
          (vs[0]["next"] or "").startswith("nvidia-cuda-nvcc-cu12 12.0 to 12.9 (pip install -U "
                                           "'nvidia-cuda-nvcc-cu12>=12.0')"),
          "numba-cuda with CUDA 13.0's NVRTC and NVVM: a V100 is known to neither (compiler); a "
          "Rubin gets compute_103 PTX: ok", (rc, st, nv, [v.get("next") for v in vs]))
    rc, doc = judged(os.path.join(r, "nvvm_alone"), "7.0")
    st, _ = dist_status(doc, "nvidia-nvvm")
    check(st == ["no-device-code"] and [c["kind"] for c in doc["inputs"][0]["compilers"]] ==
          ["nvrtc", "numba-nvvm"], "the same wheels without numba-cuda: the NVVM is used by "
          "nothing judged (%s)" % st, st)
    gpus = "12.1,11.0,12.0,10.0,8.0"  # GB10, Thor, RTX 5090, B200, A100
    seen = {}
    for env_dir in ("triton35", "triton36", "triton33"):
        rc, doc = judged(os.path.join(r, env_dir), gpus)
        st, vs = dist_status(doc, "triton")
        seen[env_dir] = (st, [v["compiler"]["target"] for v in vs],
                         [v["compiler"]["path"].rsplit("/", 1)[1] for v in vs])
    check(seen["triton35"][0] == ["compiler", "compiler", "ok", "ok", "ok"] and
          seen["triton35"][1] == ["sm_121a", "sm_110a", "sm_120a", "sm_100a", "sm_80"] and
          seen["triton36"][0] == ["ok", "compiler", "ok", "ok", "ok"] and
          seen["triton36"][2] == ["ptxas-blackwell"] * 4 + ["ptxas"] and
          seen["triton33"][0] == ["compiler", "compiler", "ok", "ok", "ok"] and
          seen["triton33"][2] == ["ptxas-blackwell"] * 4 + ["ptxas"],
          "Triton 3.5.0's ptxas (12.8) knows neither sm_121a nor sm_110a; 3.6.0's ptxas-blackwell "
          "(12.9) knows sm_121a, not sm_110a; 3.3.1 uses ptxas-blackwell (12.8) from 10.0 (%s)"
          % seen)
    env35 = os.path.join(r, "triton35")
    rc, doc = judged(env35, "12.1")
    st, vs = dist_status(doc, "triton")
    torch_st, _ = dist_status(doc, "torch")
    check(rc == 1 and torch_st == ["ok"] and doc["overall"][0]["status"] == "compiler" and
          "does not know sm_121a" in vs[0]["reason"] and "CUDA 12.8" in vs[0]["reason"] and
          vs[0]["next"].startswith("Triton 3.6.0 or newer") and
          "TRITON_PTXAS_PATH" in vs[0]["next"],
          "torch runs on a GB10, Triton 3.5.0 cannot compile for it: compiler, exit 1, and the "
          "next step is Triton 3.6.0 or a newer ptxas (%s, %s)" % (rc, vs[0]["next"]))
    rc2, _ = judged(env35, "12.1", "--fail-on", "none,allow-compiler")
    rc3, _ = judged(env35, "12.1", "--fail-on", "none,allow-cpu-only")
    rc4, _ = judged(env35, "12.1", "--fail-on", "partial,allow-cpu-only,allow-compiler")
    rc5, _, err = run("--gpu", "12.1", "--fail-on", "none,allow-nothing", env35)
    check((rc2, rc3, rc4, rc5) == (0, 1, 0, 64) and "allow-compiler" in err,
          "--fail-on none,allow-compiler lets it pass; allow-cpu-only does not; both together; an "
          "unknown allowance is refused (%s)" % ((rc2, rc3, rc4, rc5),))
    env = dict(os.environ, SMCHECK_LIBCUDA=sys.argv[3] if len(sys.argv) > 3 else "",
               STUB_DRIVER_VERSION="13000", STUB_DEVICES="NVIDIA GB10|12.1|1",
               TRITON_PTXAS_PATH="/opt/cuda-12.9/bin/ptxas")
    p = subprocess.run([SMCHECK, "--format", "json", env35], capture_output=True, text=True, env=env)
    st, vs = dist_status(json.loads(p.stdout), "triton") if p.stdout else (None, [{}])
    check(st == ["ok"] and p.returncode == 0 and
          vs[0]["compiler"]["override"] == "TRITON_PTXAS_PATH=/opt/cuda-12.9/bin/ptxas",
          "the local GB10 where TRITON_PTXAS_PATH names another ptxas: not judged, ok (%s)" % st)
    rc, text, _ = run("--gpu", "12.1,8.0", env35)
    check("[triton 3.5.0] dist-info; 0 libraries" in text and
          "sm_121 compiler: Triton 3.5.0's ptxas (CUDA 12.8, its own text)" in text and
          "compiler: a compiler used at run time" in text,
          "the text report names Triton, says why, and the legend says what compiler means")
    rc, text, _ = run("--gpu", "12.1", "--format", "sarif", env35)
    results = json.loads(text)["runs"][0]["results"]
    check([x["ruleId"] for x in results] == ["compiler"] and results[0]["level"] == "error",
          "SARIF: one compiler result, an error (%s)" % [x["ruleId"] for x in results])
    # NVRTC 12.4: its builtins' name says the release; 12.0 is past it, 9.0 is not.
    rc, doc = judged(os.path.join(r, "nvrtc124"), "12.0,9.0")
    st, vs = dist_status(doc, "nvidia-cuda-nvrtc-cu12")
    comp = doc["inputs"][0]["compilers"]
    check(st == ["compiler", "ok"] and rc == 1 and comp[0]["kind"] == "nvrtc" and
          comp[0]["cuda"] == "12.4" and comp[0]["cuda_source"] ==
          "libnvrtc-builtins.so.12.4 beside it" and
          vs[0]["next"] == "an NVRTC of CUDA 12.8 or newer (nvidia-cuda-nvrtc-cu12 12.8 or newer)",
          "NVRTC 12.4 (its builtins' name) does not know sm_120: compiler; it knows sm_90 (%s, %s)"
          % (st, comp))
    # NVRTC 11.7 does not know sm_89; torch 1.13 and later ask it for compute_86 there (PTX the
    # driver compiles: pytorch/pytorch#87611), 1.12 for sm_89, CuPy for the GPU's own.
    got = {}
    for env_dir in ("nvrtc117_torch113", "nvrtc117_torch112", "nvrtc117_cupy"):
        rc, doc = judged(os.path.join(r, env_dir), "8.9,8.6")
        st, vs = dist_status(doc, "nvidia-cuda-nvrtc-cu11")
        got[env_dir] = (rc, st, [v["compiler"]["target"] for v in vs])
    check(got["nvrtc117_torch113"] == (0, ["ok", "ok"], ["compute_86", "sm_86"]) and
          got["nvrtc117_torch112"] == (1, ["compiler", "ok"], ["sm_89", "sm_86"]) and
          got["nvrtc117_cupy"] == (1, ["compiler", "ok"], ["sm_89", "sm_86"]),
          "NVRTC 11.7 on an RTX 4090: ok for torch 1.13 (it asks for compute_86), compiler for "
          "torch 1.12 and beside CuPy (they ask for sm_89) (%s)" % got)
    rc, doc = judged(os.path.join(r, "nvrtc117_torch113"), "8.9")
    st, vs = dist_status(doc, "nvidia-cuda-nvrtc-cu11")
    check(vs[0]["reason"].endswith("compiles for compute_86 (its users cap what they ask for at "
                                   "what it knows: PTX the driver compiles)"),
          "the report says torch asks for compute_86 (%s)" % vs[0]["reason"])
    # onnxruntime-gpu 1.19.2 needs libcudnn.so.9: beside cuDNN 8 it cannot load; with cuDNN 9 it
    # runs; alone in a venv it relies on the host's libraries (a caution, not a failure).
    got = {}
    for env_dir in ("ort_cudnn8", "ort_cudnn9", "ort_host"):
        rc, doc = judged(os.path.join(r, env_dir), "8.0")
        lib = doc["inputs"][0]["libraries"][0]["verdicts"][0]
        got[env_dir] = (rc, lib["status"], lib["cause"], lib["needs"], lib["next"], lib["warnings"])
    c8, c9, host = got["ort_cudnn8"], got["ort_cudnn9"], got["ort_host"]
    check(c8[:3] == (1, "none", "needs") and
          c8[3] == {"soname": "libcudnn.so.9", "other_major": "libcudnn.so.8", "from_host": False,
                    "more_missing": 0}
          and "nvidia-cudnn-cu12 9.x" in c8[4] and
          c9[:4] == (0, "ok", "loads", None) and
          host[:3] == (0, "ok", "loads") and host[3]["from_host"] and
          host[3]["soname"] == "libcublasLt.so.12" and host[3]["more_missing"] == 3 and
          "libcublasLt.so.12 and 3 more CUDA libraries" in host[5] and "relies on the host" in host[5],
          "onnxruntime-gpu 1.19.2: none beside libcudnn.so.8 (the next step the cuDNN 9 wheel), "
          "ok beside libcudnn.so.9, and alone a caution that it relies on the host (%s)" % got)
    # The same library in a complete root (an image's files, or a directory with etc/ and usr/):
    # what the root lacks, nothing provides.
    root = os.path.join(out, "runtime_root")
    for d in ("etc", "usr", "proc"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copytree(os.path.join(r, "ort_host", "lib"), os.path.join(root, "usr", "lib"))
    rc, doc = judged(root, "8.0")
    lib = doc["inputs"][0]["libraries"][0]["verdicts"][0]
    check(rc == 1 and lib["cause"] == "needs" and lib["needs"]["other_major"] is None,
          "in a root filesystem without the CUDA libraries it needs: none, cause needs (%s)"
          % lib["needs"])
    # onnxruntime installed after onnxruntime-gpu: its files win, the GPU build is CPU-only; the
    # other way round the GPU build runs and the CPU one's record is not called CPU-only.
    got = {}
    for env_dir in ("ort_shadow_cpu", "ort_shadow_gpu"):
        rc, doc = judged(os.path.join(r, env_dir), "8.0")
        dists = {d["name"]: d for d in doc["inputs"][0]["distributions"]}
        got[env_dir] = (rc, dists["onnxruntime-gpu"]["verdicts"][0]["status"],
                        dists["onnxruntime"]["verdicts"][0]["status"],
                        dists["onnxruntime-gpu"]["shadowed_by"],
                        dists["onnxruntime-gpu"]["verdicts"][0]["next"])
    sc, sg = got["ort_shadow_cpu"], got["ort_shadow_gpu"]
    check(sc[:3] == (1, "cpu-only", "cpu-only") and sc[3]["name"] == "onnxruntime" and
          "onnxruntime_pybind11_state" in sc[3]["evidence"] and
          sc[4] == "pip uninstall -y onnxruntime onnxruntime-gpu, then pip install onnxruntime-gpu"
          and sg[:4] == (0, "ok", "no-device-code", None),
          "onnxruntime installed after onnxruntime-gpu shadows it (cpu-only, the evidence a file, "
          "the next step a clean reinstall); installed before, the GPU build runs (%s)" % got)


def requirement_paths(out):
    """A wheel's path in a requirements.txt is relative to the working directory, as pip and uv
    take it (-r and -c name files relative to the file); one that is not there is an error that
    names it."""
    demo = "demo_cuda-1.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
    work = os.path.join(out, "reqpaths")
    os.makedirs(os.path.join(work, "sub", "w"))
    os.makedirs(os.path.join(work, "w"))
    with open(os.path.join(work, "sub", "requirements.txt"), "w") as f:
        f.write("./w/%s\n" % demo)
    shutil.copy(os.path.join(out, demo), os.path.join(work, "w", demo))
    rc, out_json, err = run("scan", "--format", "json", "sub/requirements.txt", cwd=work)
    doc = json.loads(out_json)
    names = [d["name"] for d in doc["inputs"][0]["distributions"]]
    check(rc == 0 and names == ["demo-cuda"] and err == "",
          "requirements.txt naming ./w/WHEEL from another directory: the wheel under the working "
          "directory is read (%d, %s, %r)" % (rc, names, err))
    shutil.move(os.path.join(work, "w", demo), os.path.join(work, "sub", "w", demo))
    rc, _, err = run("scan", "sub/requirements.txt", cwd=work)
    check(rc == 2 and err.strip() == "smcheck: ./w/%s: No such file or directory" % demo,
          "the wheel only beside the file, not under the working directory: one error naming "
          "the path, exit 2 (%d, %r)" % (rc, err))


def windows_on_arm(out):
    """Issue 47: a win_arm64 wheel whose DLL is ARM64 (fixtures/gen/pe_cuda12.dll with its COFF
    machine made 0xAA64): judged for windows-arm64 (or win_arm64) it runs; for --platform
    windows-amd64 it is called out as a DLL for another platform; the DLL's own platform is said."""
    data = bytearray(open(os.path.join(FIXTURES, "gen", "pe_cuda12.dll"), "rb").read())
    coff = struct.unpack_from("<I", data, 0x3C)[0] + 4
    struct.pack_into("<H", data, coff, 0xAA64)
    path = os.path.join(out, "woa-1.0-py3-none-win_arm64.whl")
    members = [("woa/kernels.dll", bytes(data)),
               ("woa-1.0.dist-info/METADATA", b"Metadata-Version: 2.1\nName: woa\nVersion: 1.0\n"),
               ("woa-1.0.dist-info/WHEEL", b"Wheel-Version: 1.0\nTag: py3-none-win_arm64\n")]
    record = "".join("%s,sha256=%s,%d\n" % (n, base64.urlsafe_b64encode(
        hashlib.sha256(d).digest()).rstrip(b"=").decode(), len(d)) for n, d in members)
    with zipfile.ZipFile(path, "w") as z:
        for n, d in members + [("woa-1.0.dist-info/RECORD",
                                (record + "woa-1.0.dist-info/RECORD,,\n").encode())]:
            z.writestr(n, d)
    for platform in ("windows-arm64", "win_arm64", "windows-amd64", "linux-aarch64"):
        rc, doc = judged(path, "sm_80", "--platform", platform)
        lib = doc["inputs"][0]["libraries"][0]
        v = lib["verdicts"][0]
        right = platform in ("windows-arm64", "win_arm64")
        check(((rc, v["status"]) == (0, "ok") if right else
               (rc == 1 and v["status"] == "none" and v["cause"] == "platform" and
                "a Windows DLL for arm64: it cannot load on %s" % platform in v["reason"])),
              "a win_arm64 wheel's ARM64 DLL, --platform %s: %s" % (
                  platform, "runs" if right else "the wrong platform, said"),
              (rc, v))


def judged(path, gpus, *extra):
    rc, out, err = run("--gpu", gpus, "--format", "json", *extra, path)
    return rc, json.loads(out)


def dist_status(doc, name):
    inp = doc["inputs"][0]
    for d in inp.get("distributions", []):
        if d["name"] == name:
            return [v["status"] for v in d["verdicts"]], d["verdicts"]
    return None, None


def libraries_of(doc):
    return {l["path"].rsplit("/lib/", 1)[-1].split("!")[-1]: l for l in doc["inputs"][0]["libraries"]}


def support(out):
    """Issue 29: what NVIDIA documents for its libraries decides on GPUs the bytes cannot tell
    (data/support.tsv), and how torch uses them decides what that means for an environment
    (data/uses.tsv)."""
    tag = "py3-none-manylinux_2_28_x86_64"
    rc, doc = judged(os.path.join(out, "nvidia_cusparselt_cu12-0.6.3-%s.whl" % tag), "7.5,8.0,10.0")
    st, vs = dist_status(doc, "nvidia-cusparselt-cu12")
    lib = libraries_of(doc)["libcusparseLt.so.0"]
    v = lib["verdicts"]
    check(st == ["none", "ok", "none"] and rc == 1 and v[0]["cause"] == "unsupported" and
          v[2]["cause"] == "unsupported" and not v[0]["unused"] and
          v[0]["support"]["compute_capabilities"] == ["8.0", "8.6", "8.7", "8.9", "9.0"] and
          v[0]["support"]["refused"] and not v[0]["support"]["documented"] and
          v[1]["support"]["documented"] and v[0]["next"].startswith("none: NVIDIA supports no "
                                                                   "release of it") and
          "NVIDIA supports this release of it on compute capability 8.0, 8.6, 8.7, 8.9 and 9.0 "
          "only, and it refuses other GPUs when it starts" in v[0]["reason"],
          "cuSPARSELt 0.6.3 alone: none on a T4 and a B200 (not among the GPUs NVIDIA supports), "
          "ok on an A100 (%s)" % st)
    rc, doc = judged(os.path.join(out, "support_env"), "7.0,7.5,8.0")
    libs = libraries_of(doc)
    sp = libs["libcusparseLt.so.0"]["verdicts"]
    st, vs = dist_status(doc, "nvidia-cusparselt-cu12")
    check(sp[1]["status"] == "none" and sp[1]["unused"] and sp[1]["used_by"] == "torch" and
          sp[0]["unused"] and not sp[2]["unused"] and st[1] == "ok",
          "beside torch, cuSPARSELt is unused where NVIDIA does not support it: torch calls it only "
          "there (%s)" % st)
    st, vs = dist_status(doc, "torch")
    linalg = libs["libtorch_cuda_linalg.so"]
    check(linalg["role"] == "on-demand" and linalg["verdicts"][1]["status"] == "none" and
          st[1] == "partial" and vs[1]["on_demand"] and
          vs[1]["reason"] == "its linear algebra (torch.linalg, MAGMA) fails: "
                             "libtorch_cuda_linalg.so, which it loads at the first call of it, is "
                             "none here; the rest runs",
          "torch whose linear algebra has no code for a T4: partial, and says what fails (%s, %s)"
          % (st, vs[1]["reason"]))
    st, vs = dist_status(doc, "nvidia-cudnn-cu12")
    ops = libs["libcudnn_ops.so.9"]["verdicts"]
    check(st[0] == "none" and ops[0]["cause"] == "unsupported" and ops[0]["support"]["from"] == "7.5"
          and st[1] == "ok" and ops[0]["next"] == "a release of nvidia-cudnn-cu12 before 9.11.0, "
          "which NVIDIA supports on compute capability 7.0 (data/support.tsv)",
          "cuDNN 9.11 on a V100: none, whatever sm_70 code it keeps; on a T4 ok (%s)" % st)
    rc, text, _ = run("--gpu", "7.0", os.path.join(out, "support_env"))
    check("NVIDIA supports this release of it from compute capability 7.5 on" in text,
          "the text report says why cuDNN 9.11 does not run on a V100")
    rc, doc = judged(os.path.join(out, "vllm-0.9.1-cp38-abi3-manylinux1_x86_64.whl"), "6.1,7.0,8.0")
    st, vs = dist_status(doc, "vllm")
    fa2 = libraries_of(doc)["vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so"]["verdicts"]
    check(st == ["none", "ok", "ok"] and [v["unused"] for v in fa2] == [True, True, False] and
          fa2[1]["used_by"] == "vllm",
          "vllm's FlashAttention (sm_80 and up) is unused below 8.0, where vllm picks another "
          "backend: vllm ok on a V100, none on 6.1 by its _C (%s)" % st)
    rc, doc = judged(os.path.join(out, "support_env_9102"), "7.0")
    st, vs = dist_status(doc, "nvidia-cudnn-cu12")
    check(st == ["ok"], "cuDNN 9.10.2 runs on a V100 (%s)" % st)


def stores(out):
    """Issue 29: loose cubins in one distribution are a store its loader picks from by GPU: it
    serves a GPU some file is for, the others are not loaded there, and where none is for the GPU
    it holds code for other GPUs only (gated, not a failure). The text report gives it one row."""
    whl = os.path.join(out, "cubinstore-1.0-py3-none-manylinux_2_28_x86_64.whl")
    rc, doc = judged(whl, "8.9,7.0,9.0")
    st, vs = dist_status(doc, "cubinstore")
    roles = {l["role"] for l in doc["inputs"][0]["libraries"]}
    unused = [[v["unused"] for v in l["verdicts"]] for l in doc["inputs"][0]["libraries"]]
    check(st == ["ok", "ok", "gated"] and rc == 0 and roles == {"store"} and
          [v["store"] for v in vs] == [{"files": 2, "serving": 1, "status": "ok"},
                                       {"files": 2, "serving": 1, "status": "ok"},
                                       {"files": 2, "serving": 0, "status": "gated"}] and
          sorted(unused) == [[False, True, True], [True, False, True]],
          "a store of cubins: ok where a file serves, gated where none does, exit 0 (%s, %s)"
          % (st, unused))
    rc, text, _ = run("--gpu", "8.9,7.0,9.0", whl)
    rows = [l for l in text.splitlines() if "cubinstore/cubins" in l]
    check(len(rows) == 1 and "a store of 2 cubin files its loader picks from by GPU (serving: 1 1 0"
          in rows[0], "the text report gives the store one row (%s)" % rows)


def rollups(out):
    """Issue 9's roll-up: a distribution is judged by its own code; vendored libraries make it
    partial at worst, alternatives are one choice, gated libraries do not count unless they are
    all it has; the exit status follows the distributions."""
    tag = "py3-none-manylinux_2_28_x86_64"
    rc, doc = judged(os.path.join(out, "vend-1.0-%s.whl" % tag), "9.0")
    st, vs = dist_status(doc, "vend")
    lib = {l["path"].split("!")[1]: l for l in doc["inputs"][0]["libraries"]}
    check(lib["vend.libs/libcusparseLt-1a2b3c4d.so.0"]["verdicts"][0]["status"] == "none" and
          lib["vend.libs/libcusparseLt-1a2b3c4d.so.0"]["role"] == "vendored" and
          st == ["partial"] and vs[0]["vendored"] and rc == 0,
          "a vendored library that cannot run makes its distribution partial, not none (exit 0)")
    rc, doc = judged(os.path.join(out, "alt-1.0-%s.whl" % tag), "9.0,6.1")
    st, vs = dist_status(doc, "alt")
    check(st == ["ok", "none"] and vs[0]["alternatives"] == {"choices": 2, "serving": 1,
                                                                   "chosen_by_torch": False,
                                                                   "chosen_by_gpu": None,
                                                                   "chosen_for_machine": False,
                                                                   "missing_cuda": None},
          "alternatives in a lone wheel: the best that serves the GPU (%s)" % st)
    rc, doc = judged(os.path.join(out, "rollup_env"), "9.0")
    st, vs = dist_status(doc, "alt")
    check(st == ["none"] and vs[0]["alternatives"]["chosen_by_torch"] and rc == 1 and
          vs[0]["library"].endswith("libalt_cuda118.so"),
          "alternatives in an environment: the one torch's CUDA (cu118) picks, which is none (exit 1)")
    # The file torch's CUDA names is not among the alternatives: bitsandbytes' loader loads none
    # of them (bitsandbytes#1688: torch for CUDA 12.9, no libbitsandbytes_cuda129.so); a package
    # without a loader rule is judged by the best of them, as before.
    rc, doc = judged(os.path.join(out, "missing_alt_env"), "9.0")
    st, vs = dist_status(doc, "bitsandbytes")
    ast, avs = dist_status(doc, "alt")
    v = vs[0] if vs else {}
    check(st == ["none"] and rc == 1 and v["library"] is None and
          v["alternatives"] == {"choices": 2, "serving": 1, "chosen_by_torch": True,
                                "chosen_by_gpu": None, "chosen_for_machine": False,
                                "missing_cuda": "12.9"} and
          "torch 2.8.0+cu129's CUDA 12.9 asks for libbitsandbytes_cuda129.so" in v["reason"] and
          v["next"].startswith("a torch built for CUDA 12.8, for which it ships "
                               "libbitsandbytes_cuda128.so") and
          ast == ["ok"] and avs[0]["alternatives"]["missing_cuda"] is None and
          not avs[0]["alternatives"]["chosen_by_torch"],
          "the alternative torch's CUDA names is missing: bitsandbytes none (nothing loaded, the "
          "next step a torch for CUDA 12.8), alt without a loader rule the best of them (%s, %s)"
          % (vs, ast))
    libs = {l["path"].split("site-packages/")[1]: l["verdicts"][0] for l in doc["inputs"][0]["libraries"]}
    check(libs["bitsandbytes/libbitsandbytes_cuda128.so"]["unused"] and
          libs["bitsandbytes/libbitsandbytes_cuda128.so"]["status"] == "ok",
          "its alternatives are each marked not loaded (%s)" % libs)
    rc, out_text, _ = run("--gpu", "9.0,6.1", os.path.join(out, "missing_alt_env"))
    check(out_text.count("asks for libbitsandbytes_cuda129.so") == 1 and
          "sm_90, sm_61 none: the installed torch 2.8.0+cu129's CUDA 12.9 asks for" in out_text,
          "the text report says why once for both GPUs:\n%s" % out_text)
    # bitsandbytes 0.50 falls back to the nearest file of torch's CUDA major.
    got = {}
    for label in ("cu129", "cu117"):
        rc, doc = judged(os.path.join(out, "nearest_env_" + label), "9.0")
        st, vs = dist_status(doc, "bitsandbytes")
        got[label] = (st, rc, os.path.basename(vs[0]["library"] or ""),
                      vs[0]["alternatives"]["chosen_by_torch"], vs[0]["alternatives"]["missing_cuda"],
                      "the loader takes the nearest of the same major" in vs[0]["reason"])
    check(got == {"cu129": (["ok"], 0, "libbitsandbytes_cuda128.so", True, None, True),
                  "cu117": (["none"], 1, "libbitsandbytes_cuda118.so", True, None, True)},
          "bitsandbytes 0.50: torch for 12.9 loads cuda128 (the highest below), for 11.7 cuda118 "
          "(the lowest above) (%s)" % got)
    rc, sarif, _ = run("--gpu", "9.0", "--format", "sarif", os.path.join(out, "missing_alt_env"))
    errors = [(r["ruleId"], r["message"]["text"].split(" ")[0])
              for r in json.loads(sarif)["runs"][0]["results"] if r["level"] == "error"]
    check(errors == [("alternative-missing", "bitsandbytes")] and rc == 1,
          "SARIF: the missing alternative is the one error, at bitsandbytes (%s)" % errors)
    # Issue 23: none of the alternatives runs on sm_120 with a 12.4 driver, but cuda128's would
    # with 12.8: that driver is the distribution's next step, checked by judging again.
    rc, doc = judged(os.path.join(out, "alt-1.0-%s.whl" % tag), "12.0", "--driver", "12.4")
    st, vs = dist_status(doc, "alt")
    nxt = vs[0]["next"] or ""
    rc2, doc2 = judged(os.path.join(out, "alt-1.0-%s.whl" % tag), "12.0", "--driver", "12.8")
    st2, _ = dist_status(doc2, "alt")
    check(st == ["none"] and nxt.startswith("a driver of 570.26 or newer (CUDA 12.8): "
                                             "libalt_cuda128.so") and st2 == ["ok"],
          "alternatives none with this driver: the driver with which one runs is the next step, "
          "and with it the distribution is ok (%r, then %s)" % (nxt, st2))
    # A wheelhouse of symbolic links is not followed, and says so.
    links = os.path.join(out, "linkhouse")
    os.makedirs(links)
    os.symlink(os.path.join(out, "alt-1.0-%s.whl" % tag), os.path.join(links, "alt-1.0-%s.whl" % tag))
    rc, doc = judged(links, "9.0")
    notes = doc["inputs"][0]["notes"]
    check(any("1 package file is a symbolic link, not followed" in n for n in notes),
          "a wheelhouse of symbolic links: a note says its package files were not followed (%s)"
          % notes)
    # Issue 23: two Pythons, each with its torch and alt: each alt loads what the torch in its own
    # site-packages picks, and its reason names that torch.
    rc, doc = judged(os.path.join(out, "two_torch_env"), "9.0")
    alts = {d["location"].split("/")[-3]: d["verdicts"][0] for d in doc["inputs"][0]["distributions"]
            if d["name"] == "alt"}
    py310, py312 = alts.get("python3.10", {}), alts.get("python3.12", {})
    check(py310.get("status") == "none" and "torch 2.0.0+cu118's CUDA picks (of 2 torches" in
          py310.get("reason", "") and py312.get("status") == "ok" and
          "torch 2.7.0+cu128's CUDA picks" in py312.get("reason", "") and rc == 1,
          "two torches: each alt's alternative is the one its own torch picks, named (%s | %s)"
          % (py310.get("reason"), py312.get("reason")))
    # Issue 23: a directory of wheel files is no environment: the torch wheel beside alt chooses
    # none of its alternatives (as `alt-1.0...whl` alone: the best, ok on 9.0), and advise finds
    # no torch installed there.
    rc, doc = judged(os.path.join(out, "wheelhouse"), "9.0")
    st, vs = dist_status(doc, "alt")
    check(doc["inputs"][0]["kind"] == "directory" and st == ["ok"] and
          not vs[0]["alternatives"]["chosen_by_torch"] and rc == 0,
          "a wheelhouse is a directory of separate wheels: its torch wheel chooses no alternative "
          "(%s, %s)" % (doc["inputs"][0]["kind"], st))
    rc, text, err = run("advise", "--builds-table", os.path.join(HERE, "builds_fixture.tsv"),
                        "--gpu", "9.0", os.path.join(out, "wheelhouse"))
    check(rc == 0 and "installed:" not in text and "no torch, torchvision or torchaudio installed"
          in err, "advise on a wheelhouse: a torch wheel is not an installed torch")
    # Issue 12: a variant.json's claims, checked library by library; a broken one is an error.
    rc, doc = judged(os.path.join(out, "variant-1.0-%s-cu128.whl" % tag), "9.0")
    var = [d for d in doc["inputs"][0]["distributions"] if d["name"] == "variant"][0]["variant"]
    check(var["label"] == "cu128" and len(var["claims"]) == 6 and
          var["not_backed"] == [
              "nvidia :: sm_arch :: 75_real: not backed by variant/_C.so: no sm_75 in 1 of its 1 containers",
              "nvidia :: cuda_version_lower_bound :: 11.8: not backed by variant/_C.so: built by "
              "CUDA 12, which no driver older than CUDA 12.0 runs"],
          "variant.json: each claim its library does not back, and only those (%s)" % var)
    rc, out_, err = run("scan", os.path.join(out, "variant-1.0-%s-cu128.whl" % tag))
    check("serves: cubins 8.0 8.6 8.9 9.0 10.0 10.3 12.0; not 5.2 6.0 6.1 7.0 7.5" in out_ and
          "nvidia :: sm_arch :: 80_real 90_real 100_real 120_real 120_virtual" in out_ and
          "some not backed by its libraries:" in out_,
          "scan says what a library serves, and in wheel-variant terms")
    rc, out_, err = run("scan", os.path.join(out, "badvariant-1.0-%s.whl" % tag))
    check(rc == 2 and err.count("\n") == 1 and
          "badvariant-1.0.dist-info/variant.json: not JSON" in err and "_C.so" in out_,
          "a variant.json that is not JSON: one line naming it, the wheel still scanned (%r)" % err)
    # Issue 13: conda packages, .tar.bz2 and .conda, read in place, equal to the files unpacked.
    def libs_of(path):
        rc, inp, err = scan_json(path)
        return rc, inp, err, {l["path"].split("!")[-1] if "!" in l["path"]
                              else os.path.relpath(l["path"], path):
                              (l["containers"], counts(l), l["token_sets"], l["findings"])
                              for l in inp["libraries"]}
    rc1, inp1, err1, bz = libs_of(os.path.join(out, "demo-cuda-1.0-cuda128_0.tar.bz2"))
    rc2, inp2, err2, cz = libs_of(os.path.join(out, "demo-cuda-1.0-cuda128_0.conda"))
    rc3, inp3, err3, un = libs_of(os.path.join(out, "conda_unpacked"))
    strip = lambda d: {k: v[:3] for k, v in d.items()}
    check(sorted(bz) == ["lib/libdemo.so", "lib/libextra.so"] and bz == cz and
          strip(bz) == strip(un),
          "conda: .tar.bz2 and .conda give the same libraries, as the files unpacked (%s %s)"
          % (sorted(bz), sorted(un)))
    d = inp1["distributions"][0]
    check((d["name"], d["version"], d["tag"], d["platform"], d["cuda"], d["source"]) ==
          ("demo-cuda", "1.0", "cuda128_0", "linux-64", "12.8", "conda-package") and
          len(d["libraries"]) == 2 and rc1 == 2 and
          bz["lib/libextra.so"][3] == [{"offset": None,
                                        "message": "not in the package's info/paths.json"}],
          "conda: the distribution from info/index.json, and a library paths.json does not list")
    rc, out_, err = run("scan", os.path.join(out, "escape-1.0-0.tar.bz2"))
    check(rc == 2 and "a member named ../escape.so would land outside the package: not read" in err
          and "a member named /etc/abs.so would land outside the package" in err and
          "lib/libdemo.so" in out_, "conda: members that would leave the root are errors, the rest read")
    rc, out_, err = run("scan", "--max-inflate", "64M", os.path.join(out, "bomb-1.0-0.tar.bz2"))
    check(rc == 2 and "bomb-1.0-0.tar.bz2!lib/libbomb.so: inflates past 67108864 bytes "
          "(--max-inflate): not read" in err,
          "conda: a bz2 bomb stops at --max-inflate, named")
    rc, out_, err = run("scan", os.path.join(out, "cut-1.0-0.tar.bz2"))
    check(rc == 2 and "cut-1.0-0.tar.bz2: truncated bzip2 input" in err,
          "conda: a truncated package is one error naming it (%r)" % err)
    # A .tar.bz2 met in a directory walk that is no conda package is a note, and what it holds
    # is still reported; named on the command line it is an error.
    tb = os.path.join(out, "tarball_dir")
    os.makedirs(tb, exist_ok=True)
    shutil.copy(os.path.join(out, "cut-1.0-0.tar.bz2"), os.path.join(tb, "cut.tar.bz2"))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        with open(os.path.join(out, "conda_unpacked", "lib", "libdemo.so"), "rb") as f:
            data = f.read()
        ti = tarfile.TarInfo("src/libdemo.so")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    with open(os.path.join(tb, "sources.tar.bz2"), "wb") as f:
        f.write(bz2.compress(buf.getvalue()))
    rc, inp, err = scan_json(tb)
    check(any("sources.tar.bz2: no info/index.json: a tarball, not a conda package" in n
              for n in inp["notes"]) and
          any(l["path"].endswith("sources.tar.bz2!src/libdemo.so") for l in inp["libraries"]),
          "conda: a tarball a walk meets that is no package: a note, and its libraries reported")
    rc, inp_b, _ = scan_json(os.path.join(out, "big-1.0-0.tar.bz2"))
    rc, inp_u, _ = scan_json(os.path.join(out, "conda_big"))
    big_p = [(l["containers"], counts(l), l["token_sets"]) for l in inp_b["libraries"]]
    big_u = [(l["containers"], counts(l), l["token_sets"]) for l in inp_u["libraries"]]
    check(big_p == big_u and len(big_p) == 1,
          "conda: a member past 16 MiB, streamed from a temporary file, as the same file on disk")
    # Issue 13: container images read in place: layers applied with whiteouts, top down.
    def image_libs(path, *extra):
        rc, inp, err = scan_json(path, *extra)
        key = lambda p: p.split("!", 1)[1] if "!" in p else "/" + os.path.relpath(p, path)
        return rc, inp, err, {key(l["path"]): (l["containers"], counts(l), l["token_sets"])
                              for l in inp["libraries"]}, {key(l["path"]): l.get("layer")
                                                            for l in inp["libraries"]}
    got = {}
    for name in ("image_oci", "image_oci.tar", "image_docker.tar", "image_unpacked"):
        got[name] = image_libs(os.path.join(out, name))
    want = ["/opt/data/libnew.so", "/opt/venv/lib/python3.11/site-packages/imgpkg/_C.so",
            "/usr/lib/libbase.so", "/usr/lib/libtop.so"]
    check(all(sorted(g[3]) == want for g in got.values()) and
          got["image_oci"][3] == got["image_oci.tar"][3] == got["image_docker.tar"][3] ==
          got["image_unpacked"][3],
          "images: OCI layout, oci-archive and docker save give what the same filesystem unpacked "
          "gives (overwritten, whited out, opaque) (%s)" % {k: sorted(v[3]) for k, v in got.items()})
    links = {n: [l.get("links") for l in g[1]["libraries"] if l["path"].endswith("libtop.so")]
             for n, g in got.items()}
    check(links["image_oci"] == [["%s!/usr/lib/libtop.so.1" % os.path.join(out, "image_oci")]] and
          links["image_unpacked"] == [[os.path.join(out, "image_unpacked", "usr/lib/libtop.so.1")]],
          "images: a hard link in a layer is the same file, reported as its link (%s)" % links)
    # Issue 26: the same layouts with openat2 out of play (kernels before 5.6, seccomp filters):
    # the opener by components gives the same; and nothing outside a layout is opened whatever
    # its manifest.json names (".." in a short name, one past PATH_MAX, an absolute path).
    os.environ["SMCHECK_NO_OPENAT2"] = "1"
    try:
        same = {name: image_libs(os.path.join(out, name))[3] == got[name][3]
                for name in ("image_oci", "image_unpacked")}
        rc, inp, err, libs, _ = image_libs(os.path.join(out, "image_escape"))
    finally:
        del os.environ["SMCHECK_NO_OPENAT2"]
    rc2, inp2, err2, libs2, _ = image_libs(os.path.join(out, "image_escape"))
    msgs = [e["message"] for e in inp["errors"]]
    check(all(same.values()) and sorted(libs) == ["/usr/lib/libin.so"] and libs2 == libs and
          rc == rc2 == 2 and sum("names a layer outside the image" in m for m in msgs) == 3 and
          any("names a config outside the image" in m for m in msgs) and
          not any("libout" in p for p in libs) and "image_escape_outside" not in
          json.dumps([l["path"] for l in inp["libraries"]]),
          "images without openat2: the same libraries; a manifest.json naming a config and layers "
          "outside the layout (.., past PATH_MAX, absolute): refused, each said, the layout's own "
          "layer read (%s, %s, %s)" % (same, sorted(libs), msgs))
    gz = os.path.join(out, "image_docker.tar.gz")
    with open(os.path.join(out, "image_docker.tar"), "rb") as f, open(gz, "wb") as g:
        g.write(gzip.compress(f.read(), mtime=0))
    check(image_libs(gz)[3] == got["image_docker.tar"][3],
          "images: a gzip-compressed docker save (image.tar.gz) reads as the tarball does")
    rc, inp, _, libs, layers = got["image_oci"]
    d = inp["distributions"][0]
    check(inp["kind"] == "image" and d["name"] == "imgpkg" and len(d["libraries"]) == 1 and
          d["libraries"][0].endswith("!/opt/venv/lib/python3.11/site-packages/imgpkg/_C.so"),
          "images: a venv inside is an environment: its distribution claims its library")
    layer_of = {p: (l or "")[-8:] for p, l in layers.items()}
    check(len({layer_of["/usr/lib/libbase.so"], layer_of["/usr/lib/libtop.so"],
               layer_of["/opt/venv/lib/python3.11/site-packages/imgpkg/_C.so"]}) == 3 and
          all(l.startswith("blobs/sha256/") for l in layers.values()),
          "images: each library says the layer it comes from (%s)" % layer_of)
    rc, inp, _, libs, _ = image_libs(os.path.join(out, "image_oci"), "--platform", "linux/arm64")
    check(sorted(libs) == ["/opt/data/libold.so",
                           "/opt/venv/lib/python3.11/site-packages/imgpkg/_C.so",
                           "/usr/lib/libbase.so", "/usr/lib/libgone.so"],
          "images: --platform picks the arm64 image of a nested multi-platform index (%s)" % sorted(libs))
    rc, out_, err = run("scan", "--platform", "windows-amd64", os.path.join(out, "image_oci"))
    check(rc == 2 and "no image for windows/amd64 in its index (it has linux/amd64, linux/arm64)"
          in err, "images: a platform the index lacks is an error naming what it has (%r)" % err)
    rc, out_, err = run("--gpu", "rtx-4090", "--driver", "12.4", "--format", "json",
                        os.path.join(out, "image_docker.tar"))
    v = json.loads(out_)["inputs"][0]
    check(rc == 1 and v["require_cuda"].startswith("NVIDIA_REQUIRE_CUDA=cuda>=12.8") and
          v["compat_cuda"] == "12.8" and v["verdicts"][0]["status"] == "none" and
          v["verdicts"][0]["reason"].startswith("the image asks for CUDA 12.8") and
          "forward-compatibility package (CUDA 12.8) works on data-center GPUs" in
          v["verdicts"][0]["reason"],
          "images: NVIDIA_REQUIRE_CUDA above the driver fails the image on a GeForce, and says why")
    rc, out_, err = run("--gpu", "l4", "--driver", "12.4", "--format", "json",
                        os.path.join(out, "image_docker.tar"))
    v = json.loads(out_)["inputs"][0]
    check(v["verdicts"][0].get("compat_cuda") == "12.8" and
          not v["verdicts"][0]["reason"].startswith("the image asks"),
          "images: on a data-center GPU the image's forward-compatibility package stands in for "
          "the older driver, and the verdict says so (%s)" % v["verdicts"][0])
    rc, out_, err = run("scan", "--max-inflate", "64M", os.path.join(out, "image_hostile.tar"))
    check(rc == 2 and "an entry named ../../escape.so would land outside the root: not read" in err
          and "a whiteout of nothing: ignored" in err and
          "image_hostile.tar!/usr/lib/libbomb.so: larger than 67108864 bytes" in err and
          "image_hostile.tar!/usr/lib/libok.so" in out_,
          "images: hostile layers (escaping names, an empty whiteout, a bomb) are errors, the rest read")
    rc, inp, err = scan_json(os.path.join(out, "image_opaque_root.tar"))
    check(rc == 2 and [l["path"].split("!")[1] for l in inp["libraries"]] == ["/usr/lib/libmine.so"]
          and "/usr/lib/hl.so is a hard link to ../../../etc/passwd, outside the root: not followed"
          in err, "images: an opaque root hides every layer below; a hard link out of the root is "
          "an error (%r)" % err)
    # Issue 26: what images cost is bounded by their caps, and the edges read right.
    def timed_scan(path):
        t = time.monotonic()
        rc, inp, err = scan_json(path)
        return time.monotonic() - t, rc, inp, [e["message"] for e in inp.get("errors", [])]
    secs, rc, inp, msgs = timed_scan(os.path.join(out, "image_fanout"))
    check(secs < 2 and [l["path"].split("!")[1] for l in inp["libraries"]] == ["/usr/lib/libfan.so"]
          and not msgs, "images: an index listed 24 times a level, 4 levels deep, is read once "
          "per index (%.2f s, %s)" % (secs, msgs))
    secs, rc, inp, msgs = timed_scan(os.path.join(out, "image_breadth"))
    check(rc == 2 and not inp["libraries"] and
          any(m == "index.json: an index of more than 256 manifests: the rest are not read"
              for m in msgs) and
          sum("more than 64 indexes, manifests and configs, or 32 MiB of them: it and the rest "
              "are not read" in m for m in msgs) == 1,
          "images: an index of 300 entries, 100 of them nested indexes: each cap said once, "
          "naming the index and the cap (%s)" % msgs)
    for name, words in (("image_cycle", "lists itself as an index: a cycle"),
                        ("image_cycle2", "an index that leads to it: a cycle"),
                        ("image_deep", "indexes nested deeper than 4: not read")):
        secs, rc, inp, msgs = timed_scan(os.path.join(out, name))
        check(rc == 2 and secs < 2 and any(words in m for m in msgs) and
              not any("lists no image manifest" in m for m in msgs),
              "images: %s: said as what it is, not as an index that lists nothing (%s)"
              % (name, msgs))
    secs, rc, inp, msgs = timed_scan(os.path.join(out, "image_repeat.tar"))
    check(secs < 3 and [l["path"].split("!")[1] for l in inp["libraries"]] == ["/usr/lib/librep.so"]
          and any("199 of its layer listings repeat a layer listed above them" in n
                  for n in inp["notes"]),
          "images: a layer listed 200 times (above and below a whiteout of its file) is read "
          "once, at its top listing (%.2f s, %s)" % (secs, inp["notes"]))
    rc, inp, err, libs, _ = image_libs(os.path.join(out, "image_links.tar"))
    cuda = got["image_oci"][3]["/opt/venv/lib/python3.11/site-packages/imgpkg/_C.so"]
    check(sorted(libs) == ["/opt/keep/libkeep.so", "/usr/lib/libb.so", "/usr/lib/libc.so",
                           "/usr/lib/libd.so"] and libs["/usr/lib/libb.so"] == cuda ==
          libs["/usr/lib/libd.so"] and libs["/usr/lib/libc.so"] != cuda and rc == 0,
          "images: a hard-linked twin keeps the bytes when its target is whited out or "
          "overwritten; a whiteout of a directory hides a path past 4096 bytes below it (%s, %r)"
          % (sorted(libs), err))
    rc, out_, err = run("--gpu", "sm_80", "--format", "json", os.path.join(out, "image_conda.tar.gz"))
    v = json.loads(out_)["inputs"][0]
    owner = [d["name"] for d in v["distributions"]
             if any(str(x).endswith("/opt/conda/lib/libconda.so") for x in d["libraries"])]
    capped = [l for l in err.splitlines() if "past the image's metadata in all, 64 MiB: not read" in l]
    check(owner == ["condapkg"] and len(capped) == 1,
          "images: a conda prefix's record is kept as what is read of it (its library owned); "
          "records past 64 MiB of metadata in all are said, not held (%s, %d said)" % (owner, len(capped)))
    rc, out_, err = run("scan", os.path.join(out, "image_badlayer.tar"))
    lines = err.splitlines()
    check(rc == 2 and len(lines) == len(set(lines)) == 2 and "(null)" not in err and
          sum(": Unrecognized archive format" in l for l in lines) == 1 and
          sum("truncated gzip input" in l for l in lines) == 1 and
          all("image_badlayer.tar: layer blobs/sha256/" in l for l in lines) and "libgood.so" in out_,
          "images: a layer that is not a tar and one cut short: each error once, naming the file "
          "and the layer, never (null) (%r)" % err)
    secs, rc, inp, msgs = timed_scan(os.path.join(out, "image_whiteouts"))
    # 7.8 s before the set (re-sorted per layer), 0.8 s after; sanitizers make it 5x slower.
    with open(SMCHECK, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    check(secs < (20 if sanitized else 4) and [l["path"].split("!")[1] for l in inp["libraries"]] == ["/usr/lib/libwh.so"],
          "images: 300 layers of 1000 whiteouts each: the hidden paths are kept in a set updated "
          "per layer, not sorted again (%.2f s)" % secs)
    # A `docker save | gzip` of 60 honest layers (1 MiB of noise and a library each) is indexed
    # in one pass, not inflated from the start for every member: within a few times what zlib
    # takes to inflate it once, and the same as the plain tarball.
    rnd = random.Random(26)
    hexa = bytes.maketrans(bytes(range(256)), b"0123456789abcdef" * 16)  # inflated, not copied
    lib = open(os.path.join(FIXTURES, "gen", "cuda128.so"), "rb").read()
    many = []
    for i in range(60):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tf:
            for name, data in (("usr/lib/lib%02d.so" % i, lib),
                               ("usr/share/noise%02d" % i, rnd.randbytes(1 << 20).translate(hexa))):
                ti = tarfile.TarInfo(name)
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
        many.append(buf.getvalue())
    gz60 = os.path.join(out, "image_60.tar.gz")
    make_wheels.gz_save(gz60, many)
    plain60 = os.path.join(out, "image_60.tar")
    with gzip.open(gz60, "rb") as f, open(plain60, "wb") as g:
        g.write(f.read())
    t = time.monotonic()
    with open(gz60, "rb") as f:
        zlib.decompress(f.read(), 31)
    floor = time.monotonic() - t
    secs, rc, inp, msgs = timed_scan(gz60)
    libs60 = [l["path"].split("!")[1] for l in inp["libraries"]]
    same = image_libs(plain60)[3] == image_libs(gz60)[3]
    check(rc == 0 and len(libs60) == 60 and same and secs < 6 * floor + 1,
          "images: a gzipped docker save of 60 layers is indexed in one pass, then each layer "
          "inflated once from a place near it: as its plain tarball, within a few times zlib's "
          "time (%.2f s; zlib alone %.2f s; %d libraries; %s)" % (secs, floor, len(libs60), msgs))
    # Issue 12: a torch that is none is told what to install instead, from the builds table.
    table = os.path.join(HERE, "builds_fixture.tsv")
    rc, doc = judged(os.path.join(out, "rollup_env"), "6.1", "--builds-table", table)
    st, vs = dist_status(doc, "torch")
    check(st == ["none"] and vs[0]["next"] == "torch 3.0.0 cu126: pip install --force-reinstall "
          "torch==3.0.0+cu126 --index-url https://download.pytorch.org/whl/cu126",
          "a torch that is none, installed, names the build that replaces it, pinned with its "
          "variant and forced (%s)" % vs[0].get("next"))
    # Issue 22: advise for an environment that has torch: what is installed, and commands that
    # replace it (a pin without the local label is satisfied by 2.0.0+cu118: pip and uv would do
    # nothing), or that it is the build to keep.
    env = os.path.join(out, "rollup_env")
    rc, text, err = run("advise", "--builds-table", table, "--gpu", "6.1", env)
    check(rc == 0 and "installed: torch 2.0.0+cu118 (in %s)" % env in text and
          "replace with: torch 3.0.0 cu126" in text and
          "  pip install --force-reinstall torch==3.0.0+cu126 --index-url "
          "https://download.pytorch.org/whl/cu126\n" in text and
          "  uv pip install --reinstall-package torch torch==3.0.0+cu126 --index-url " in text,
          "advise ENV: the installed torch and the forced, pinned commands that replace it", text)
    rc, out_, err = run("advise", "--builds-table", table, "--gpu", "6.1", "--format", "json", env)
    doc = json.loads(out_)
    check(doc["installed"] == {"environment": env, "torch": "2.0.0+cu118", "torchvision": None,
                               "torchaudio": None} and doc["recommended"]["installed"] is False
          and doc["recommended"]["pip"].startswith("pip install --force-reinstall torch==3.0.0+cu126"),
          "advise ENV --format json: installed and the replacing command (%s)" % doc["installed"])
    env = os.path.join(out, "torch_env")
    rc, text, err = run("advise", "--builds-table", table, "--gpu", "9.0", "--driver", "13.0", env)
    check(rc == 0 and "installed: torch 3.0.0, torchvision 0.99.0" in text and
          "keep: torch 3.0.0 cu130" in text and "(installed)" in text and "pip install" not in
          text.split("\n\n")[1].split("every build")[0].split("the best build")[0],
          "advise ENV: the advised build is the one installed: kept, no command", text)
    rc, text, err = run("advise", "--builds-table", table, "--gpu", "6.1", env)
    check(rc == 0 and "pip install --force-reinstall torch==3.0.0+cu126 --index-url" in text and
          "no torchvision release is known for torch 3.0.0: the installed one stays" in text,
          "advise ENV: a companion with no known release is said to stay", text)
    rc, text, err = run("advise", "--builds-table", table, "--gpu", "6.1",
                        os.path.join(FIXTURES, "nvcc"))
    check(rc == 0 and "installed:" not in text and "no torch, torchvision or torchaudio "
          "installed there" in err and "  pip install torch==3.0.0+cu126 --index-url" in text,
          "advise PATH without torch: says so, and the plain install command (%r)" % err)
    rc, doc = judged(os.path.join(out, "gated-1.0-%s.whl" % tag), "8.0")
    st, vs = dist_status(doc, "gated")
    lib = {l["path"].split("!")[1]: l for l in doc["inputs"][0]["libraries"]}
    check(lib["gated/_flash_sm90a.so"]["verdicts"][0]["status"] == "gated" and st == ["ok"] and
          rc == 0, "a gated library beside the distribution's own code does not fail it")
    rc, doc = judged(os.path.join(out, "gatedonly-1.0-%s.whl" % tag), "8.0,9.0")
    st, vs = dist_status(doc, "gatedonly")
    check(st == ["none", "ok"] and vs[0]["all_gated"] and rc == 1,
          "a distribution whose every library is gated cannot run: none on 8.0, ok on 9.0 (exit 1)")
    rc, doc = judged(os.path.join(out, "nodevice-2.0-py3-none-any.whl"), "9.0")
    st, _ = dist_status(doc, "nodevice")
    check(st == ["no-device-code"] and doc["overall"][0]["status"] == "no-device-code" and rc == 0,
          "a wheel without device code: no device code, not ok (exit 0)")


if __name__ == "__main__":
    sys.exit(main())
