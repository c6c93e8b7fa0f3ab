#!/usr/bin/env python3
"""hostile.py SMCHECK GEN_PY [FACTOR]: the hostile corpus (fixtures/gen.py --hostile) through
smcheck: listing, --verify --detail, and judging (text and JSON). Every run must end within 20 s
with a peak RSS under 256 MiB and at most 4 MiB of output (FACTOR scales time and memory, for
builds with sanitizers), exit 0, 1 or 2 (no crash), print JSON that is valid UTF-8, and write
nothing to the terminal with C0 or C1 controls in it. Some cases check what they must say, and a
stream that outgrows its bounds must read as the same bytes on disk. Prints one line per check
and "N passed, M failed"."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import check, corpus as shared_corpus, equal, finish, long, measured, quick

smcheck, gen = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
factor = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
TIME, RSS, OUTPUT = 20 * factor, 256 * 1024 * factor, 4 << 20  # s, KiB, bytes
# ASan keeps freed memory aside for a while; a small quarantine keeps the peak about the program.
os.environ.setdefault("ASAN_OPTIONS", "quarantine_size_mb=16")
MODES = [["scan"], ["scan", "--verify", "--detail"], ["--gpu", "sm_120", "--detail"],
         ["--gpu", "sm_80,sm_120", "--verify", "--format", "json"]]
CONTROLS = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
# The corpus's floods, for the long part (with the trees of make_trees).
LONG = {"members_500k.whl", "many_members.whl", "images_flood.whl", "metadata_flood.conda",
        "skip_bomb.conda", "skip_total.conda", "skip_bomb_image.tar"}

def run(args, cwd, **extra):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1", **extra)
    return measured([smcheck] + args, cwd, env, 3 * TIME, OUTPUT)


def make_trees(work, corpus):
    """The long part's trees: 1,000 hard links, floods of RECORD and conda-meta rows, paths of
    thousands of bytes: (the name a check calls it by, its folder, its name there) of each."""
    # The same file under 1,000 hard links.
    links = os.path.join(work, "links")
    os.mkdir(links)
    first = os.path.join(links, "lib0000.so")
    shutil.copy(os.path.join(corpus, "decode_bomb.whl"), os.path.join(links, "w.whl"))
    with open(os.path.join(corpus, "nested_candidates.so"), "rb") as f, open(first, "wb") as g:
        g.write(f.read())
    for k in range(1, 1000):
        os.link(first, os.path.join(links, "lib%04d.so" % k))
    # An environment whose RECORDs are floods: one of 20 MB, two of 3.75M rows (15 MB each).
    site = os.path.join(work, "env", "lib", "python3.12", "site-packages")
    for k, size in enumerate([20 << 20, 15 << 20, 15 << 20]):
        info = os.path.join(site, "flood%d-1.0.dist-info" % k)
        os.makedirs(info)
        with open(os.path.join(info, "RECORD"), "wb") as f:
            f.write(b"a,,\n" * (size // 4))
        with open(os.path.join(info, "METADATA"), "wb") as f:
            f.write(b"Metadata-Version: 2.1\nName: flood%d\nVersion: 1.0\n" % k)
    shutil.copy(os.path.join(corpus, "nested_candidates.so"), os.path.join(site, "x.so"))
    # A RECORD of 1M rows in a directory 3,000 bytes deep: each row's path joins that
    # directory (3 GB if every one were kept).
    deep = os.path.join(work, "deepenv", *(["d" * 250] * 12))
    info = os.path.join(deep, "deep-1.0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "RECORD"), "wb") as f:
        f.write(b"a,,\n" * 1000000)
    with open(os.path.join(info, "METADATA"), "wb") as f:
        f.write(b"Metadata-Version: 2.1\nName: deep\nVersion: 1.0\n")
    shutil.copy(os.path.join(corpus, "nested_candidates.so"), os.path.join(deep, "x.so"))
    # The wheel of 500,000 members at the end of a path of 3,900 bytes.
    deepwheel = os.path.join(work, "deepwheel", *(["w" * 250] * 15))
    os.makedirs(deepwheel)
    try:
        os.link(os.path.join(corpus, "members_500k.whl"),
                os.path.join(deepwheel, "hostile-1.0-py3-none-any.whl"))
    except OSError:  # the shared corpus on another file system
        shutil.copy(os.path.join(corpus, "members_500k.whl"),
                    os.path.join(deepwheel, "hostile-1.0-py3-none-any.whl"))
    # A conda-meta record of 15 MiB: 3.9M names in its files list.
    meta = os.path.join(work, "condaenv", "conda-meta")
    os.makedirs(meta)
    with open(os.path.join(meta, "flood-1.0-0.json"), "wb") as f:
        f.write(b'{"files": [' + b'"a",' * (15 << 18) + b'"lib/x.so"], "name": "flood", '
                b'"version": "1.0"}')
    os.makedirs(os.path.join(work, "condaenv", "lib"))
    shutil.copy(os.path.join(corpus, "nested_candidates.so"),
                os.path.join(work, "condaenv", "lib", "x.so"))
    return [(b"../" + n, work, n) for n in (b"links", b"env", b"deepenv", b"condaenv", b"deepwheel")]


def main():
    work = tempfile.mkdtemp(prefix="smcheck-hostile-")
    corpus, done = shared_corpus("hostile", os.path.dirname(gen))
    try:
        # The quick part reads the corpus's files but the floods; the long part the floods, and
        # the trees made of them here.
        # Each read from its folder by a relative name: the output's size (a budget) does not
        # depend on where the corpus lies.
        cases = [(n, corpus, n) for n in sorted(os.listdir(os.fsencode(corpus)))
                 if (long() if n.decode("utf-8", "replace") in LONG else quick())]
        if long():
            cases += make_trees(work, corpus)
        said = {}
        for name, folder, path in cases:
            label = name.decode("utf-8", "backslashreplace")
            for mode in MODES:
                what = "%s %s" % (label, " ".join(mode))
                status, secs, rss, out, err, size = run(mode + [path], folder)
                said[(label, " ".join(mode))] = (out[:65536], err[:65536])
                problems = []
                if status not in (0, 1, 2):
                    problems.append("exit status %d" % status)
                if secs > TIME:
                    problems.append("%.1f s" % secs)
                if rss > RSS:
                    problems.append("peak RSS %d MiB" % (rss // 1024))
                if size > OUTPUT:
                    problems.append("%d bytes of output" % size)
                if CONTROLS.search(out) or CONTROLS.search(err):
                    problems.append("a control character in the output")
                if "json" in mode and size <= OUTPUT:
                    try:
                        json.loads(out.decode("utf-8"))
                    except (UnicodeDecodeError, ValueError) as e:
                        problems.append("not valid UTF-8 JSON: %s" % e)
                if any(not line.startswith(b"smcheck: ") for line in err.splitlines()):
                    problems.append("a line on stderr that is no diagnostic")
                check(not problems, "%s (%.1f s, %d MiB)" % (what, secs, rss // 1024),
                      "; ".join(problems))

        def says(label, text, mode="scan"):
            out, err = said[(label, mode)]
            check(text.encode() in out + err, "%s says %r" % (label, text),
                  (out + err).decode("utf-8", "replace")[-600:])

        if quick():
            says("not_a_zip.whl", "not a zip archive")
            says("overlap.whl", "overlap")
            says("claimed_size.whl", "inflates past the 4096 bytes it claims")
            says("findings_flood.so", "more findings, not kept")
            says("record_flood.whl", "RECORD")
            says("metadata_flood.whl", "METADATA")
            out, err = said[("version_py_flood.whl", "--gpu sm_80,sm_120 --verify --format json")]
            check(b"version.py" not in out + err,
                  "version_py_flood.whl: no other package's version.py is read or named",
                  (out + err).decode("utf-8", "replace")[-400:])
            says("decode_bomb.whl", "budget", "scan --verify --detail")
            # One reader of a zip's directory: libzip's, wherever the tail hides another.
            says("eocd_in_comment.whl", "member dup0000000.so overlaps another member's bytes")
            # The Zip64 end record disagrees with the 32-bit one: libzip 1.9 (Debian 12) follows the
            # Zip64 one to the names over one member, 1.11 (Debian 13) refuses the archive. Either
            # way the 32-bit record's innocent directory (the metadata alone) is not the one read.
            out, err = said[("zip64_disagrees.whl", "scan")]
            check(b"member dup0000000.so overlaps another member's bytes" in err or
                  b"zip64_disagrees.whl: not a readable zip archive: " in err,
                  "zip64_disagrees.whl: libzip's directory is read (its overlaps named), or the "
                  "archive refused", err[-600:].decode("utf-8", "replace"))
            says("claims_past_end.whl", "member hostile/huge.so claims more compressed bytes than "
                 "the archive holds before its directory: not read")
            says("claims_past_end.whl", "claims_past_end.whl!hostile/after.so: 1 container")
            says("overlap.conda", "member pkg-dup0000199.tar.zst overlaps another member's bytes")
            says("overlap.conda", "overlap.conda!lib/libx.so: 1 container")
            says("long_fields.whl", "[" + "n" * 1024 + "... (8387584 more bytes) 1.0]",
                 "--gpu sm_120 --detail")
            says("long_fields.whl", "more bytes)", "--gpu sm_80,sm_120 --verify --format json")
            says("record_names.whl", "record_names.whl!hostile/esc-?[31m.so: 1 container")
            out, err = said[("record_names.whl", "scan")]
            check(b"RECORD" not in err, "RECORD rows with a quoted line break and an ESC byte in a "
                  "member name agree with the members", err)
            says("ptx_bombs.whl", "compute_80 image: not verified: past the budget of decompressed "
                 "bytes for one file", "scan --verify --detail")
            for k in ("", "_32", "_be"):  # its section named from a name table in another slice
                says("many_sections%s.so" % k, "824 bytes, .nv_fatbin", "scan --verify --detail")
            says("pe_96_sections.dll", "pe_96_sections.dll: 1 container, 3 images")
            lib = json.loads(said[("pe_96_sections.dll", "--gpu sm_80,sm_120 --verify --format json")][0])
            lib = lib["inputs"][0]["libraries"][0]
            check(lib["findings"] == [] and lib["cudart_soname"] == "cudart64_12.dll",
                  "a valid DLL of 96 sections is read whole: no finding, its imports read", lib)

            # A stream that outgrows its bounds reads as the same bytes on disk.
            def libraries(name):
                out = said[(name, "--gpu sm_80,sm_120 --verify --format json")][0]
                libs = json.loads(out.decode())["inputs"][0]["libraries"]
                return [{k: v for k, v in l.items() if k != "path"} for l in libs]
            equal(libraries("nested_stream.whl"), libraries("nested_big.so"),
                  "nested_stream.whl's member reads as nested_big.so on disk")
            # Where no temporary file can be made, a stream that outgrew its bounds is one error.
            status, _, _, out, err, _ = run(["scan", os.path.join(corpus, "nested_stream.whl")], work,
                                            TMPDIR="/nonexistent")
            check(status == 2 and b"hostile/nested_big.so: cannot make a temporary file to read it "
                                  b"from: No such file or directory" in err,
                  "no temporary file: one clear error, exit 2", f"exit {status}: {err[-400:]!r}")
        if long():
            says("members_500k.whl", "hostile/x.so: 1 container")
            says("../deepwheel", "hostile/x.so: 1 container")
            says("../links", "the same file (read once) at:", "--gpu sm_120 --detail")
            says("../env", "more than 1000000 rows: the rest are not read")
            says("../env", "over the cap of 16 MiB for metadata: not read")
            says("skip_bomb.conda", "skip_bomb.conda!lib/libx.so: 1 container")
            says("skip_total.conda", "skip_total.conda!lib/libx.so: 1 container")
            says("skip_bomb_image.tar", "skip_bomb_image.tar!/usr/lib/libx.so: 1 container")
            for name, what in (("skip_bomb.conda", "--max-inflate-total"),
                               ("skip_bomb_image.tar", "--max-inflate-total")):
                status, _, _, out, err, _ = run(["scan", "--max-inflate-total", "16G",
                                                 os.path.join(corpus, name)], work)
                check(status == 2 and what.encode() in err and b"libx.so" not in out,
                      "%s: a 20 GiB skip counts against %s 16G" % (name, what), err[-400:])
            says("metadata_flood.conda", "cuda-version >=12.8,<13); 2000 libraries")
            _, _, _, out, err, _ = run(["--gpu", "sm_80", "--format", "json",
                                        os.path.join(corpus, "metadata_flood.conda")], work)
            d = json.loads(out)["inputs"][0]
            check(d["distributions"][0]["cuda"] == "12.8" and
                  not any(l["findings"] for l in d["libraries"]),
                  "metadata_flood.conda: the CUDA from the end of 15 MiB of depends; every library "
                  "found in 552,000 paths", err)
            says("../deepenv", "of its files are past the caps for one input's metadata (1000000 "
                 "files, 32 MiB of their paths): those and the metadata after it are not read")
            says("../condaenv", "flood-1.0-0.json: more than 1000000 files listed: the rest are not read")
            status, _, _, out, err, _ = run(["scan", "--max-inflate-total", "8G",
                                             os.path.join(corpus, "skip_total.conda")], work)
            check(status == 2 and b"skip_total.conda!share/z2: declares 3221225472 bytes, which "
                  b"reading or skipping it would inflate, past the package's 8589934592 in all "
                  b"(--max-inflate-total) after 6442451" in err and b"libx.so" not in out,
                  "a conda entry skipped counts against --max-inflate-total", err[-400:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
        done()
    return finish()


sys.exit(main())
