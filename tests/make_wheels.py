#!/usr/bin/env python3
"""make_wheels.py OUTDIR: assembles test wheels and Python environment trees from the committed
fixtures (../fixtures/nvcc and ../fixtures/gen, found relative to this script) into OUTDIR.

What each output holds and what a correct scanner must report for it: fixtures/wheels.md.
Python 3 standard library only. Deterministic: the zip files are written by the small writer below
(not zipfile), so every byte is chosen here: members sorted by name, timestamps 1980-01-01 00:00,
Unix mode 0644, deflate level 6. OUTDIR is removed first (after making any mode-000 directory left
by a previous run removable again). One line per output on stdout.
"""
import base64
import bz2
import gzip
import hashlib
import json
import os
import shutil
import stat
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.normpath(os.path.join(HERE, "..", "fixtures"))

STORED, DEFLATED = 0, 8
DOS_TIME, DOS_DATE = 0, (0 << 9) | (1 << 5) | 1  # 1980-01-01 00:00:00
EXT_ATTR = (stat.S_IFREG | 0o644) << 16
MADE_BY = (3 << 8) | 30  # Unix, spec 3.0


def fixture(rel):
    with open(os.path.join(FIX, rel), "rb") as f:
        return f.read()


def deflate(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def record_hash(data):
    d = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


class Member:
    """One zip entry. raw is the bytes stored in the archive (already compressed when method is
    DEFLATED); crc and usize describe the uncompressed data. The *_claim fields and extras let a
    defect be written on purpose."""

    def __init__(self, name, data=None, method=DEFLATED, raw=None, crc=None, usize=None):
        self.name = name
        self.method = method
        if raw is None:
            raw = deflate(data) if method == DEFLATED else data
        self.raw = raw
        self.crc = zlib.crc32(data) if crc is None else crc
        self.usize = len(data) if usize is None else usize
        self.flags = 0
        self.central_usize = None  # what the central directory says, when it lies
        self.central_extra = b""
        self.version_needed = 20


def write_zip(path, members, sort=True):
    """Writes members (sorted by name, stable) as a zip file; returns its bytes."""
    if sort:
        members = sorted(members, key=lambda m: m.name)
    out = bytearray()
    central = bytearray()
    for m in members:
        name = m.name.encode("utf-8")
        off = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, m.version_needed, m.flags, m.method,
                           DOS_TIME, DOS_DATE, m.crc, len(m.raw), m.usize, len(name), 0)
        out += name
        out += m.raw
        cu = m.usize if m.central_usize is None else m.central_usize
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, MADE_BY, m.version_needed,
                               m.flags, m.method, DOS_TIME, DOS_DATE, m.crc, len(m.raw), cu,
                               len(name), len(m.central_extra), 0, 0, 0, EXT_ATTR, off)
        central += name + m.central_extra
    cd_off = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central),
                       cd_off, 0)
    with open(path, "wb") as f:
        f.write(out)
    return bytes(out)


def dist_info_files(dist, version, files, metadata_extra=(), tag=None, record_lines=None,
                    installer=None, root_is_purelib="false"):
    """The dist-info files of a distribution whose other files are `files` {relpath: bytes}.
    Returns {relpath: bytes} including RECORD (correct unless record_lines is given)."""
    di = "%s-%s.dist-info" % (dist.replace("-", "_"), version)
    out = {}
    meta = ["Metadata-Version: 2.1", "Name: %s" % dist, "Version: %s" % version]
    meta += list(metadata_extra)
    out[di + "/METADATA"] = ("\n".join(meta) + "\n").encode()
    if tag is not None:
        out[di + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: smcheck-make_wheels\n"
                              "Root-Is-Purelib: %s\nTag: %s\n" % (root_is_purelib, tag)).encode()
    if installer is not None:
        out[di + "/INSTALLER"] = installer.encode()
    if record_lines is None:
        allf = dict(files)
        allf.update(out)
        record_lines = ["%s,%s,%d" % (p, record_hash(d), len(d)) for p, d in sorted(allf.items())]
    record_lines = list(record_lines) + ["%s/RECORD,," % di]
    out[di + "/RECORD"] = ("\n".join(record_lines) + "\n").encode()
    return out


def wheel(path, dist, version, tag, files, metadata_extra=(), stored=(), record_lines=None,
          extra_members=()):
    """A wheel holding files {name: bytes}; names in `stored` are ZIP_STORED."""
    allf = dict(files)
    allf.update(dist_info_files(dist, version, files, metadata_extra, tag, record_lines,
                                root_is_purelib="true" if tag.endswith("-any") else "false"))
    members = [Member(n, d, STORED if n in stored else DEFLATED) for n, d in allf.items()]
    return write_zip(path, members + list(extra_members))


def fake_pe_dll():
    """A minimal PE32+ DLL image (x86-64): MZ header with e_lfanew 0x80, PE\\0\\0, COFF header,
    a PE32+ optional header and one .text section header. 512 bytes, no device code."""
    b = bytearray(512)
    b[0:2] = b"MZ"
    struct.pack_into("<H", b, 0x02, 0x90)  # bytes on last page
    struct.pack_into("<H", b, 0x04, 3)  # pages
    struct.pack_into("<H", b, 0x08, 4)  # header paragraphs
    struct.pack_into("<I", b, 0x3C, 0x80)  # e_lfanew
    msg = b"This program cannot be run in DOS mode.\r\r\n$"
    b[0x4E:0x4E + len(msg)] = msg
    b[0x80:0x84] = b"PE\0\0"
    # COFF: machine AMD64, 1 section, no time stamp, optional header 0xF0, DLL|EXEC|LARGE_ADDR
    struct.pack_into("<HHIIIHH", b, 0x84, 0x8664, 1, 0, 0, 0, 0xF0, 0x2022)
    opt = 0x98
    struct.pack_into("<HBB", b, opt, 0x20B, 14, 0)  # PE32+, linker 14.0
    struct.pack_into("<I", b, opt + 16, 0x1000)  # AddressOfEntryPoint
    struct.pack_into("<Q", b, opt + 24, 0x180000000)  # ImageBase
    struct.pack_into("<II", b, opt + 32, 0x1000, 0x200)  # section / file alignment
    struct.pack_into("<HH", b, opt + 48, 6, 0)  # subsystem version 6.0
    struct.pack_into("<II", b, opt + 56, 0x2000, 0x200)  # SizeOfImage, SizeOfHeaders
    struct.pack_into("<HH", b, opt + 68, 3, 0x160)  # console subsystem; DLL characteristics
    struct.pack_into("<I", b, opt + 108, 16)  # NumberOfRvaAndSizes
    sec = opt + 0xF0
    b[sec:sec + 8] = b".text\0\0\0"
    struct.pack_into("<IIII", b, sec + 8, 0x10, 0x1000, 0x200, 0x200)
    struct.pack_into("<I", b, sec + 36, 0x60000020)  # code, execute, read
    return bytes(b)


def bomb_member(name, zeros_mib=200):
    """A deflated member: a 64-byte ELF header (from nvcc/multi.so, with no sections and no
    program headers) then zeros_mib MiB of zeros. Built from one full-flushed 1 MiB block repeated,
    so it costs milliseconds; the stream is a valid deflate stream of the whole thing."""
    hdr = bytearray(fixture("nvcc/multi.so")[:64])
    struct.pack_into("<QQ", hdr, 0x20, 0, 0)  # e_phoff, e_shoff
    struct.pack_into("<H", hdr, 0x38, 0)  # e_phnum
    struct.pack_into("<HH", hdr, 0x3C, 0, 0)  # e_shnum, e_shstrndx
    hdr = bytes(hdr)
    mib = bytes(1 << 20)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    head = c.compress(hdr) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    block2 = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    assert block == block2, "deflate of a zero block after a full flush is not repeatable"
    tail = c.flush(zlib.Z_FINISH)
    raw = head + block * zeros_mib + tail
    crc = zlib.crc32(hdr)
    sha = hashlib.sha256(hdr)
    for _ in range(zeros_mib):
        crc = zlib.crc32(mib, crc)
        sha.update(mib)
    usize = len(hdr) + zeros_mib * len(mib)
    m = Member(name, None, DEFLATED, raw=raw, crc=crc, usize=usize)
    digest = "sha256=" + base64.urlsafe_b64encode(sha.digest()).rstrip(b"=").decode()
    return m, "%s,%s,%d" % (name, digest, usize)


# ---------------------------------------------------------------------------------------------
# Wheels

DEMO_VERSION = "1.0+cu130"
DEMO_TAG = "cp312-cp312-manylinux_2_28_x86_64"
DEMO_META = ("Requires-Dist: nvidia-cuda-runtime==13.0.48", "Requires-Dist: numpy")


def demo_cuda_files():
    return {
        "demo_cuda/__init__.py": b"from .version import cuda\n",
        "demo_cuda/_C.so": fixture("nvcc/gplusplus.so"),
        "demo_cuda/kernels/kernel.cubin": fixture("nvcc/kernel.cubin"),
        "demo_cuda/lib/libmulti.so": fixture("nvcc/multi.so"),
        "demo_cuda/lib/libvariants.so": fixture("nvcc/variants.so"),
        "demo_cuda/version.py": b"__version__ = '1.0'\ncuda = '13.0'\n",
    }


def bad_base():
    """The good part every broken wheel carries: distribution demo 1.0 with demo/good.so."""
    return {"demo/__init__.py": b"", "demo/good.so": fixture("nvcc/multi.so")}


BAD_TAG = "py3-none-linux_x86_64"


def make_wheels(out, emit):
    multi = fixture("nvcc/multi.so")

    p = os.path.join(out, "demo_cuda-%s-%s.whl" % (DEMO_VERSION, DEMO_TAG))
    wheel(p, "demo-cuda", DEMO_VERSION, DEMO_TAG, demo_cuda_files(), DEMO_META,
          stored={"demo_cuda/_C.so"})
    emit(p)

    p = os.path.join(out, "demo_win-1.0-cp312-cp312-win_amd64.whl")
    wheel(p, "demo-win", "1.0", "cp312-cp312-win_amd64",
          {"demo_win/__init__.py": b"", "demo_win/kern.dll": fake_pe_dll(),
           "demo_win/kern_cuda.dll": fixture("gen/pe_cuda12.dll")})
    emit(p)

    p = os.path.join(out, "nodevice-2.0-py3-none-any.whl")
    wheel(p, "nodevice", "2.0", "py3-none-any",
          {"nodevice/__init__.py": b"def hello():\n    return 'hello'\n",
           "nodevice/data.txt": b"no device code here\n"})
    emit(p)

    # bad_corrupt: a good wheel whose central directory is overwritten (the end record is kept,
    # so it still points at the directory, which no longer starts with PK\1\2).
    p = os.path.join(out, "bad_corrupt.whl")
    data = bytearray(wheel(p, "demo", "1.0", BAD_TAG, bad_base()))
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_off = struct.unpack_from("<II", data, eocd + 12)
    for i in range(cd_off, cd_off + cd_size):
        data[i] = 0xA5 ^ (i & 0xFF)
    with open(p, "wb") as f:
        f.write(data)
    emit(p)

    # bad_truncated: the first half of a good wheel. Members sort as demo-1.0.dist-info/...,
    # demo/__init__.py, demo/good.so, so the cut falls inside good.so's data and the central
    # directory and end record are gone.
    p = os.path.join(out, "bad_truncated.whl")
    data = wheel(p, "demo", "1.0", BAD_TAG, bad_base())
    with open(p, "wb") as f:
        f.write(data[: len(data) // 2])
    emit(p)

    # bad_bomb: big/zeros.so inflates to 200 MiB + 64 bytes from about 200 KB.
    p = os.path.join(out, "bad_bomb.whl")
    files = bad_base()
    bomb, bomb_line = bomb_member("big/zeros.so")
    wheel(p, "demo", "1.0", BAD_TAG, files, extra_members=[bomb],
          record_lines=sorted(_record_for(files, "demo", "1.0", BAD_TAG) + [bomb_line]))
    emit(p)

    # bad_claims: huge/claims.so holds gplusplus.so, but the central directory says it inflates
    # to 0x17_0000_0000 bytes (98,784,247,808) through a zip64 extra field; the local header
    # tells the truth.
    p = os.path.join(out, "bad_claims.whl")
    files = bad_base()
    gpp = fixture("nvcc/gplusplus.so")
    claim = Member("huge/claims.so", gpp)
    claim.central_usize = 0xFFFFFFFF
    claim.central_extra = struct.pack("<HHQ", 0x0001, 8, 0x17_0000_0000)
    claim.version_needed = 45
    allf = dict(files)
    allf["huge/claims.so"] = gpp
    wheel(p, "demo", "1.0", BAD_TAG, files, extra_members=[claim],
          record_lines=_record_for(allf, "demo", "1.0", BAD_TAG))
    emit(p)

    # bad_dupes: demo/dup.so twice (multi.so first, then gplusplus.so).
    p = os.path.join(out, "bad_dupes.whl")
    files = bad_base()
    d1, d2 = multi, fixture("nvcc/gplusplus.so")
    lines = _record_for(files, "demo", "1.0", BAD_TAG)
    lines += ["demo/dup.so,%s,%d" % (record_hash(d1), len(d1)),
              "demo/dup.so,%s,%d" % (record_hash(d2), len(d2))]
    wheel(p, "demo", "1.0", BAD_TAG, files, record_lines=sorted(lines),
          extra_members=[Member("demo/dup.so", d1), Member("demo/dup.so", d2)])
    emit(p)

    # bad_dotdot: ../../evil.so (multi.so) and /abs/evil2.so (gplusplus.so) next to demo/good.so.
    p = os.path.join(out, "bad_dotdot.whl")
    files = bad_base()
    evil = {"../../evil.so": multi, "/abs/evil2.so": fixture("nvcc/gplusplus.so")}
    allf = dict(files)
    allf.update(evil)
    wheel(p, "demo", "1.0", BAD_TAG, files, record_lines=_record_for(allf, "demo", "1.0", BAD_TAG),
          extra_members=[Member(n, d) for n, d in evil.items()])
    emit(p)

    # bad_encrypted: demo/secret.so has general-purpose flag bit 0 (traditional PKWARE
    # encryption) in both headers; its bytes are garbage (a 12-byte encryption header and 500
    # bytes), so nothing can be inflated. RECORD lists it with the hash of those bytes.
    p = os.path.join(out, "bad_encrypted.whl")
    files = bad_base()
    garbage = b"".join(hashlib.sha256(b"smcheck%d" % i).digest() for i in range(16))[:512]
    enc = Member("demo/secret.so", None, DEFLATED, raw=garbage, crc=0x12345678, usize=35232)
    enc.flags = 0x1
    lines = _record_for(files, "demo", "1.0", BAD_TAG) + [
        "demo/secret.so,%s,%d" % (record_hash(garbage), 35232)]
    wheel(p, "demo", "1.0", BAD_TAG, files, record_lines=sorted(lines), extra_members=[enc])
    emit(p)

    # bad_crc: demo/bad.so (multi.so) inflates to its bytes, but both headers give it a CRC-32
    # one off; bad_deflate: demo/cut.so's deflate stream is cut at half its length (the sizes it
    # claims are multi.so's). RECORD lists them as they should be.
    for kind in ("crc", "deflate"):
        p = os.path.join(out, "bad_%s.whl" % kind)
        files = bad_base()
        name = "demo/bad.so" if kind == "crc" else "demo/cut.so"
        whole = deflate(multi)
        m = (Member(name, multi, crc=zlib.crc32(multi) ^ 1) if kind == "crc" else
             Member(name, multi, raw=whole[:len(whole) // 2]))
        allf = dict(files)
        allf[name] = multi
        wheel(p, "demo", "1.0", BAD_TAG, files,
              record_lines=_record_for(allf, "demo", "1.0", BAD_TAG), extra_members=[m])
        emit(p)

    # bad_record: RECORD gives demo/lib.so (multi.so) a wrong hash and size, and lists
    # demo/missing.so, which is not in the wheel.
    p = os.path.join(out, "bad_record.whl")
    files = {"demo/__init__.py": b"", "demo/lib.so": multi}
    lines = _record_for(files, "demo", "1.0", BAD_TAG)
    wrong = record_hash(b"not the library")
    lines = [("demo/lib.so,%s,%d" % (wrong, 12345)) if l.startswith("demo/lib.so,") else l
             for l in lines]
    lines.append("demo/missing.so,%s,%d" % (record_hash(b"missing"), 7))
    wheel(p, "demo", "1.0", BAD_TAG, files, record_lines=sorted(lines))
    emit(p)

    # many_members: 20,000 tiny text members (stored) and one ELF member, many/libmulti.so.
    p = os.path.join(out, "many_members.whl")
    files = {"many/d%03d/f%05d.txt" % (i // 100, i): b"%d\n" % i for i in range(20000)}
    files["many/libmulti.so"] = multi
    files["many/__init__.py"] = b""
    allf = dict(files)
    allf.update(dist_info_files("many", "1.0", files, tag=BAD_TAG))
    members = [Member(n, d, DEFLATED if n.endswith(".so") or "dist-info" in n else STORED)
               for n, d in allf.items()]
    write_zip(p, members)
    emit(p)


def _record_for(files, dist, version, tag):
    """Correct RECORD lines (without RECORD's own line) for files plus METADATA and WHEEL."""
    di = dist_info_files(dist, version, {}, tag=tag)
    allf = dict(files)
    allf.update({n: d for n, d in di.items() if not n.endswith("/RECORD")})
    return ["%s,%s,%d" % (n, record_hash(d), len(d)) for n, d in sorted(allf.items())]


# ---------------------------------------------------------------------------------------------
# Environment trees


def put(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def install_dist(site, dist, version, files, metadata_extra=(), installer="pip\n",
                 tag="py3-none-any"):
    """Lays out files {relpath: bytes} under site-packages as pip does, with a dist-info holding
    METADATA, INSTALLER, RECORD (paths relative to site), and WHEEL."""
    for rel, data in files.items():
        put(os.path.join(site, rel), data, 0o755 if rel.endswith(".so") else 0o644)
    for rel, data in dist_info_files(dist, version, files, metadata_extra, tag=tag,
                                     installer=installer).items():
        put(os.path.join(site, rel), data)


def venv(root, pyver):
    put(os.path.join(root, "pyvenv.cfg"),
        b"home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
    os.makedirs(os.path.join(root, "bin"), exist_ok=True)
    os.symlink("/usr/bin/python3", os.path.join(root, "bin", "python3"))
    os.symlink("python3", os.path.join(root, "bin", "python"))
    site = os.path.join(root, "lib", "python%s" % pyver, "site-packages")
    os.makedirs(site, exist_ok=True)
    return site


def make_envs(out, emit):
    # venv/
    root = os.path.join(out, "venv")
    site = venv(root, "3.12")
    install_dist(site, "demo-cuda", DEMO_VERSION, demo_cuda_files(), DEMO_META, tag=DEMO_TAG)
    install_dist(site, "other-pkg", "0.5", {"other_pkg/__init__.py": b"",
                                            "other_pkg/libother.so": fixture("nvcc/plain.o")})
    put(os.path.join(site, "stray", "libstray.so"), fixture("nvcc/kernel.fatbin"))
    # legacy_pkg: setup.py install style, egg-info with installed-files.txt (paths relative to
    # the egg-info directory).
    put(os.path.join(site, "legacy_pkg", "__init__.py"), b"")
    put(os.path.join(site, "legacy_pkg", "liblegacy.so"), fixture("gen/old.cubin"), 0o755)
    egg = os.path.join(site, "legacy_pkg-0.1-py3.12.egg-info")
    put(os.path.join(egg, "PKG-INFO"),
        b"Metadata-Version: 1.1\nName: legacy-pkg\nVersion: 0.1\nSummary: legacy\n")
    put(os.path.join(egg, "top_level.txt"), b"legacy_pkg\n")
    put(os.path.join(egg, "installed-files.txt"),
        b"../legacy_pkg/__init__.py\n../legacy_pkg/liblegacy.so\nPKG-INFO\n"
        b"installed-files.txt\ntop_level.txt\n")
    emit(root)

    # conda/
    root = os.path.join(out, "conda")
    meta = os.path.join(root, "conda-meta")
    put(os.path.join(meta, "history"),
        b"==> 2024-01-01 00:00:00 <==\n# cmd: conda create -p prefix cudatoolkit pytorch\n"
        b"+defaults/linux-64::cudatoolkit-12.4.1-h0\n+pytorch/linux-64::pytorch-2.5.1-py3.12_cuda12.4\n")
    sp = "lib/python3.12/site-packages"
    pkgs = [
        ("cudatoolkit", "12.4.1", "h0", "https://repo.anaconda.com/pkgs/main/linux-64",
         {"lib/libcudart_like.so": fixture("nvcc/ptx_only.so")}),
        ("pytorch", "2.5.1", "py3.12_cuda12.4", "https://conda.anaconda.org/pytorch/linux-64",
         {sp + "/torch/__init__.py": b"",
          sp + "/torch/lib/libtorch_like.so": fixture("nvcc/multi.so")}),
    ]
    for name, ver, build, channel, files in pkgs:
        for rel, data in files.items():
            put(os.path.join(root, rel), data, 0o755 if rel.endswith(".so") else 0o644)
        rec = {
            "build": build, "build_number": 0, "channel": channel, "depends": [],
            "files": sorted(files),
            "fn": "%s-%s-%s.tar.bz2" % (name, ver, build), "name": name,
            "paths_data": {"paths": [{"_path": r, "path_type": "hardlink",
                                      "sha256": hashlib.sha256(d).hexdigest(),
                                      "size_in_bytes": len(d)}
                                     for r, d in sorted(files.items())], "paths_version": 1},
            "subdir": "linux-64", "version": ver,
        }
        put(os.path.join(meta, "%s-%s-%s.json" % (name, ver, build)),
            (json.dumps(rec, indent=2, sort_keys=True) + "\n").encode())
    install_dist(os.path.join(root, sp), "pip-pkg", "1.0",
                 {"pip_pkg/__init__.py": b"", "pip_pkg/libpip.so": fixture("nvcc/comp_all.so")})
    emit(root)

    # rootfs/
    root = os.path.join(out, "rootfs")
    install_dist(os.path.join(root, "usr/lib/python3/dist-packages"), "deb-pkg", "3.0",
                 {"deb_pkg/__init__.py": b"", "deb_pkg/libdeb.so": fixture("nvcc/rdc_linked.so")},
                 installer="debian\n")
    install_dist(os.path.join(root, "usr/local/lib/python3.12/site-packages"), "local-pkg", "1.2",
                 {"local_pkg/__init__.py": b"", "local_pkg/liblocal.so": fixture("nvcc/comp_speed.so")})
    site = venv(os.path.join(root, "opt/venv"), "3.12")
    install_dist(site, "venv-pkg", "0.1",
                 {"venv_pkg/__init__.py": b"", "venv_pkg/libvenv.so": fixture("gen/zstd_gen.so")})
    cuda = os.path.join(root, "usr/local/cuda/lib64")
    put(os.path.join(cuda, "libcuda_like.so"), fixture("nvcc/comp_default.so"), 0o755)
    os.symlink("libcuda_like.so", os.path.join(cuda, "libcuda_like.so.1"))  # in-tree link
    os.symlink(".", os.path.join(root, "loop"))  # a loop
    os.makedirs(os.path.join(root, "run"))
    os.mkfifo(os.path.join(root, "run", "fifo"))
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    os.makedirs(lib)
    os.symlink("libgone.so.1", os.path.join(lib, "libdangling.so"))  # dangling
    # absolute link out of the tree, to a real library on this machine: following it is a bug
    os.symlink(os.path.join(FIX, "nvcc", "multi.so"), os.path.join(lib, "libescape.so"))
    put(os.path.join(root, "secret", "libhidden.so"), fixture("nvcc/multi.so"), 0o755)
    os.chmod(os.path.join(root, "secret"), 0)
    emit(root)

    # rollup_env/: torch built for CUDA 11.8, and a distribution with alternatives of which the
    # one for torch's CUDA is loaded (bitsandbytes' shape).
    root = os.path.join(out, "rollup_env")
    site = venv(root, "3.12")
    install_dist(site, "torch", "2.0.0+cu118", {"torch/__init__.py": b"",
                                                "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
    install_dist(site, "alt", "1.0", alt_files())
    emit(root)

    # missing_alt_env/: torch built for CUDA 12.9, bitsandbytes 0.45.5 (whose loader takes the
    # file torch's CUDA names, data/loaders.tsv) and alt (no loader row: the default rule) with
    # the same alternatives, cuda118 and cuda128: neither ships cuda129.
    root = os.path.join(out, "missing_alt_env")
    site = venv(root, "3.12")
    install_dist(site, "torch", "2.8.0+cu129", {"torch/__init__.py": b"",
                                                "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
    install_dist(site, "bitsandbytes", "0.45.5", bnb_alt_files())
    install_dist(site, "alt", "1.0", alt_files())
    emit(root)

    # nearest_env_cu129/, nearest_env_cu117/: bitsandbytes 0.50.0, whose loader falls back to
    # the nearest file of torch's CUDA major (the highest below, else the lowest above).
    for label in ("cu129", "cu117"):
        root = os.path.join(out, "nearest_env_" + label)
        site = venv(root, "3.12")
        install_dist(site, "torch", "2.8.0+" + label,
                     {"torch/__init__.py": b"", "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
        install_dist(site, "bitsandbytes", "0.50.0", bnb_alt_files())
        emit(root)

    # support_env/: what NVIDIA documents for its libraries (data/support.tsv) and how torch uses
    # them (data/uses.tsv), issue 29: torch 2.6.0 with a libtorch_cuda_linalg.so built for
    # sm_80 and up only (loaded on demand: partial on a T4), cuSPARSELt 0.6.3 (8.0 to 9.0 only:
    # none on a T4, which torch beside it never asks of it) and cuDNN 9.11.0 (7.5 and up: none on
    # a V100 whatever its sm_70 modules). support_env_9102/: cuDNN 9.10.2.21 instead, which
    # supports the V100.
    for label, cudnn in (("", "9.11.0.98"), ("_9102", "9.10.2.21")):
        root = os.path.join(out, "support_env" + label)
        site = venv(root, "3.12")
        install_dist(site, "torch", "2.6.0", {
            "torch/__init__.py": b"", "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so"),
            "torch/lib/libtorch_cuda_linalg.so": fixture("gen/cuda128.so")})
        install_dist(site, "nvidia-cusparselt-cu12", "0.6.3",
                     {"nvidia/cusparselt/lib/libcusparseLt.so.0": fixture("gen/cuda128.so")})
        install_dist(site, "nvidia-cudnn-cu12", cudnn,
                     {"nvidia/cudnn/lib/libcudnn_ops.so.9": fixture("gen/old.cubin")})
        emit(root)

    # two_torch_env/: a root with two Pythons, each with its torch and alt: the alternative
    # loaded is the one the torch beside it picks (issue 23: the report says which).
    root = os.path.join(out, "two_torch_env")
    for pyver, version in (("3.10", "2.0.0+cu118"), ("3.12", "2.7.0+cu128")):
        site = os.path.join(root, "usr", "lib", "python%s" % pyver, "site-packages")
        install_dist(site, "torch", version, {"torch/__init__.py": b"",
                                              "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
        install_dist(site, "alt", "1.0", alt_files())
    emit(root)

    # torch_env/: the PyPI default build of a release, with torchvision (issue 22: advise says
    # it is installed already, or replaces both).
    root = os.path.join(out, "torch_env")
    site = venv(root, "3.12")
    install_dist(site, "torch", "3.0.0", {"torch/__init__.py": b"",
                                          "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
    install_dist(site, "torchvision", "0.99.0", {"torchvision/__init__.py": b""})
    emit(root)


def alt_files():
    """A library built once per CUDA, one loaded at run time: cuda118 for old GPUs only, cuda128
    for the newer ones."""
    return {"alt/__init__.py": b"", "alt/libalt_cuda118.so": fixture("gen/old.cubin"),
            "alt/libalt_cuda128.so": fixture("gen/cuda128.so")}


def bnb_alt_files():
    """alt's two libraries under bitsandbytes' names."""
    return {k.replace("alt/libalt", "bitsandbytes/libbitsandbytes").replace("alt/", "bitsandbytes/"): v
            for k, v in alt_files().items()}


def make_rollup_wheels(out, emit):
    """Wheels whose status is not simply their worst library's (issue 9's roll-up)."""
    tag = "py3-none-manylinux_2_28_x86_64"
    # vend: its own code, and a vendored library (auditwheel's vend.libs/) built for old GPUs.
    p = os.path.join(out, "vend-1.0-%s.whl" % tag)
    wheel(p, "vend", "1.0", tag, {"vend/__init__.py": b"", "vend/_C.so": fixture("gen/cuda128.so"),
                                  "vend.libs/libcusparseLt-1a2b3c4d.so.0": fixture("gen/old.cubin")})
    emit(p)
    p = os.path.join(out, "alt-1.0-%s.whl" % tag)
    wheel(p, "alt", "1.0", tag, alt_files())
    emit(p)
    # wheelhouse/: the alt wheel beside a torch wheel built for CUDA 11.8 (issue 23: nothing is
    # installed there, so torch's CUDA chooses no alternative).
    house = os.path.join(out, "wheelhouse")
    os.makedirs(house)
    wheel(os.path.join(house, "alt-1.0-%s.whl" % tag), "alt", "1.0", tag, alt_files())
    wheel(os.path.join(house, "torch-2.0.0+cu118-%s.whl" % tag), "torch", "2.0.0+cu118", tag,
          {"torch/__init__.py": b"", "torch/lib/libtorch_cuda.so": fixture("nvcc/multi.so")})
    emit(house)
    # gated: its own code and a FlashAttention-3-like sm_90a library; gatedonly: only that.
    p = os.path.join(out, "gated-1.0-%s.whl" % tag)
    wheel(p, "gated", "1.0", tag, {"gated/_C.so": fixture("gen/cuda128.so"),
                                   "gated/_flash_sm90a.so": fixture("gen/gated_only.so")})
    emit(p)
    # cubinstore: loose cubin files its loader picks from by GPU (flashinfer-cubin's shape): one
    # for sm_89, one for sm_70.
    p = os.path.join(out, "cubinstore-1.0-%s.whl" % tag)
    wheel(p, "cubinstore", "1.0", tag, {"cubinstore/__init__.py": b"",
                                        "cubinstore/cubins/k_sm89.cubin": fixture("nvcc/kernel.cubin"),
                                        "cubinstore/cubins/k_sm70.cubin": fixture("gen/old.cubin")})
    emit(p)
    # vllm's shape: its _C for sm_70 and up (= gen/main_arch.so) and FlashAttention for sm_80 and
    # up (= gen/cuda128.so), which vllm imports only from 8.0 (data/uses.tsv).
    p = os.path.join(out, "vllm-0.9.1-cp38-abi3-manylinux1_x86_64.whl")
    wheel(p, "vllm", "0.9.1", "cp38-abi3-manylinux1_x86_64",
          {"vllm/__init__.py": b"", "vllm/_C.abi3.so": fixture("gen/main_arch.so"),
           "vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so": fixture("gen/cuda128.so")})
    emit(p)
    # nvidia_cusparselt_cu12 0.6.3 alone: none on a T4 (NVIDIA supports it on 8.0 to 9.0).
    p = os.path.join(out, "nvidia_cusparselt_cu12-0.6.3-%s.whl" % tag)
    wheel(p, "nvidia-cusparselt-cu12", "0.6.3", tag,
          {"nvidia/cusparselt/lib/libcusparseLt.so.0": fixture("gen/cuda128.so")})
    emit(p)
    p = os.path.join(out, "gatedonly-1.0-%s.whl" % tag)
    wheel(p, "gatedonly", "1.0", tag, {"gatedonly/_flash_sm90a.so": fixture("gen/gated_only.so")})
    emit(p)
    # variant: a wheel variant (PEP 825 draft) whose variant.json claims more than its library
    # (gen/cuda128.so: sm_80 sm_90 sm_100 sm_120 compute_120, CUDA 12 by Requires-Dist) backs:
    # 75_real and a lower bound of 11.8 are not backed; the rest are; another namespace is not
    # checked. badvariant: a variant.json that is not JSON.
    claims = {"variants": {"cu128": {"nvidia": {
        "sm_arch": ["90_real", "120_real", "75_real", "120_virtual"],
        "cuda_version_lower_bound": ["11.8"]}, "x86_64": {"level": ["v3"]}}}}
    files = {"variant/_C.so": fixture("gen/cuda128.so")}
    files.update({"variant-1.0.dist-info/variant.json": json.dumps(claims).encode()})
    p = os.path.join(out, "variant-1.0-%s-cu128.whl" % tag)
    wheel(p, "variant", "1.0", tag, files,
          metadata_extra=("Requires-Dist: nvidia-cuda-runtime-cu12==12.8.90",))
    emit(p)
    files = {"badvariant/_C.so": fixture("gen/cuda128.so"),
             "badvariant-1.0.dist-info/variant.json": b"{not json"}
    p = os.path.join(out, "badvariant-1.0-%s.whl" % tag)
    wheel(p, "badvariant", "1.0", tag, files)
    emit(p)


def make_situation_wheels(out, emit):
    """Issue 24: wheels whose answer lies around their device code, in situation/."""
    out = os.path.join(out, "situation")
    os.makedirs(out)
    cuda_marker = ('Requires-Dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" '
                   'and platform_machine == "x86_64"',)
    # torch's CPU-only aarch64 wheel (PyPI before 2.11): version.py says cuda = None, no device
    # code, and the CUDA dependency's marker excludes aarch64. Its x86_64 twin is a CUDA build.
    cpu_py = b"__version__ = '2.8.0+cpu'\ndebug = False\ncuda: Optional[str] = None\nhip = None\n"
    for tag, files in (("cp311-cp311-manylinux_2_28_aarch64",
                        {"torch/__init__.py": b"", "torch/version.py": cpu_py}),
                       ("cp311-cp311-manylinux_2_28_x86_64",
                        {"torch/__init__.py": b"",
                         "torch/version.py": b"__version__ = '2.8.0+cu128'\ncuda = '12.8'\n",
                         "torch/lib/libtorch_cuda.so": fixture("gen/cuda128.so")})):
        p = os.path.join(out, "torch-2.8.0-%s.whl" % tag)
        wheel(p, "torch", "2.8.0", tag, files, metadata_extra=cuda_marker)
        emit(p)
    # The same CPU-only torch installed (a venv): its version.py read from site-packages.
    install_dist(venv(os.path.join(out, "cpu_env"), "3.11"), "torch", "2.8.0",
                 {"torch/__init__.py": b"", "torch/version.py": cpu_py}, metadata_extra=cuda_marker,
                 tag="cp311-cp311-manylinux_2_28_aarch64")
    emit(os.path.join(out, "cpu_env"))
    # onnxruntime is the CPU build by its name; onnxruntime-gpu the GPU one; a package that never
    # uses a GPU is never called CPU-only.
    tag = "cp311-cp311-manylinux_2_28_x86_64"
    for dist, files in (("onnxruntime", {"onnxruntime/__init__.py": b""}),
                        ("onnxruntime_gpu", {"onnxruntime/__init__.py": b"",
                                             "onnxruntime/capi/libonnxruntime_providers_cuda.so":
                                                 fixture("gen/cuda128.so")}),
                        ("plainpkg", {"plainpkg/__init__.py": b""})):
        p = os.path.join(out, "%s-1.20.1-%s.whl" % (dist, tag))
        wheel(p, dist.replace("_", "-"), "1.20.1", tag, files)
        emit(p)
    # bitsandbytes 0.39.1's shape (py3-none-any, x86-64 libraries): one library per CUDA, and a
    # _nocublaslt twin the loader takes when the last GPU it enumerates is below 7.5. Plain:
    # an sm_75 cubin (gen/long_kernel.so); twin: an sm_70 cubin (gen/cudart101.so).
    files = {"bitsandbytes/__init__.py": b"",
             "bitsandbytes/libbitsandbytes_cuda118.so": fixture("gen/long_kernel.so"),
             "bitsandbytes/libbitsandbytes_cuda118_nocublaslt.so": fixture("gen/cudart101.so")}
    p = os.path.join(out, "bitsandbytes-0.39.1-py3-none-any.whl")
    wheel(p, "bitsandbytes", "0.39.1", "py3-none-any", files)
    emit(p)
    # bitsandbytes 0.45.5's shape (no _nocublaslt twins), two CUDAs: cuda118 for sm_75, cuda121
    # for sm_70 (and 7.5); BNB_CUDA_VERSION=118 where it runs makes it load cuda118.
    files = {"bitsandbytes/__init__.py": b"",
             "bitsandbytes/libbitsandbytes_cuda118.so": fixture("gen/long_kernel.so"),
             "bitsandbytes/libbitsandbytes_cuda121.so": fixture("gen/cudart101.so")}
    # The same files as 0.44.1: its loader wants a _nocublaslt twin below 7.5, which is missing.
    for version in ("0.45.5", "0.44.1"):
        p = os.path.join(out, "bitsandbytes-%s-py3-none-manylinux_2_24_x86_64.whl" % version)
        wheel(p, "bitsandbytes", version, "py3-none-manylinux_2_24_x86_64", files)
        emit(p)
    # A wheel tagged for aarch64 that ships an x86-64 library.
    p = os.path.join(out, "mixed-1.0-cp311-cp311-manylinux_2_28_aarch64.whl")
    wheel(p, "mixed", "1.0", "cp311-cp311-manylinux_2_28_aarch64",
          {"mixed/_C.so": fixture("gen/cuda128.so"), "mixed/_arm.so": fixture("gen/aarch64.so")})
    emit(p)
    # A wheel whose file name says x86_64 and whose WHEEL file says aarch64, holding an AArch64
    # library: pip installs it by its name, on x86-64, where the library does not load.
    p = os.path.join(out, "mistagged-1.0-cp311-cp311-manylinux_2_28_x86_64.whl")
    wheel(p, "mistagged", "1.0", "cp311-cp311-manylinux_2_28_aarch64",
          {"mistagged/_arm.so": fixture("gen/aarch64.so")})
    emit(p)


def stub_elf(text=b"", e_type=3):
    """A stand-in for a binary smcheck reads only by name and text (a ptxas, libnvrtc): an x86-64
    ELF header without sections, then text."""
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    hdr = ident + struct.pack("<HHIQQQIHHHHHH", e_type, 62, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
    return hdr + b"\0" + text + b"\0"


def ptxas_stub(release):
    """A ptxas's --version text, as its bytes hold it (the third copy is printf's template)."""
    return stub_elf(b"Cuda compilation tools, release %s, V%s.93\0Build cuda_%s\0"
                    b"Cuda compilation tools, release %%d.%%d, V%%s" % (
                        release.encode(), release.encode(), release.encode()), e_type=2)


def make_runtime(out, emit):
    """Issue 25: environments whose answer lies in what runs beside the device code: Triton's
    ptxas, NVRTC, CUDA libraries of another major, in runtime/."""
    out = os.path.join(out, "runtime")
    torch_files = {"torch/__init__.py": b"",
                   "torch/version.py": b"__version__ = '2.9.0+cu128'\ncuda = '12.8'\n",
                   "torch/lib/libtorch_cuda.so": fixture("gen/cuda128.so")}
    # Triton 3.5.0 ships one ptxas (CUDA 12.8); 3.6.0 a ptxas (12.8) and a ptxas-blackwell (12.9)
    # for 10.0 and up; 3.3.1 a ptxas (12.4) and a ptxas-blackwell (12.8).
    tritons = {"3.5.0": {"ptxas": "12.8"},
               "3.6.0": {"ptxas": "12.8", "ptxas-blackwell": "12.9"},
               "3.3.1": {"ptxas": "12.4", "ptxas-blackwell": "12.8"}}
    for version, binaries in tritons.items():
        site = venv(os.path.join(out, "triton" + version.replace(".", "")[:2]), "3.12")
        install_dist(site, "torch", "2.9.0", torch_files)
        files = {"triton/__init__.py": b"__version__ = '%s'\n" % version.encode()}
        for name, release in binaries.items():
            files["triton/backends/nvidia/bin/" + name] = ptxas_stub(release)
        install_dist(site, "triton", version, files)
        emit(os.path.dirname(os.path.dirname(os.path.dirname(site))))
    # JAX: jaxlib 0.4.30 with the CUDA 12 plugin and nvidia-cuda-nvcc-cu12 12.3.107, whose ptxas
    # XLA compiles with (issue 47); the same nvcc wheel without JAX, where nothing uses it.
    nvcc = {"nvidia/cuda_nvcc/bin/ptxas": ptxas_stub("12.3")}
    for name, jax in (("jax_nvcc123", True), ("nvcc123_alone", False)):
        site = venv(os.path.join(out, name), "3.12")
        install_dist(site, "nvidia-cuda-nvcc-cu12", "12.3.107", nvcc)
        if jax:
            install_dist(site, "jaxlib", "0.4.30", {"jaxlib/__init__.py": b""})
            install_dist(site, "jax-cuda12-plugin", "0.4.30",
                         {"jax_cuda12_plugin/__init__.py": b""})
            install_dist(site, "jax-cuda12-pjrt", "0.4.30",  # its device code: sm_90, compute_120
                         {"jax_plugins/xla_cuda12/xla_cuda_plugin.so": fixture("nvcc/multi.so")})
        emit(os.path.join(out, name))
    # numba-cuda compiles with libNVVM for the target its NVRTC chooses (issue 47): NVRTC 12.8 with
    # the NVVM of nvidia-cuda-nvcc-cu12 12.0 (which knows no sm_120); CUDA 13.0's pair (which
    # knows nothing before 7.5); the same pair without numba-cuda, where nothing uses the NVVM.
    nvrtc128 = {"nvidia/cuda_nvrtc/lib/libnvrtc.so.12": stub_elf(b"libnvrtc-builtins.so.12.8"),
                "nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.8": stub_elf()}
    nvrtc130 = {"nvidia/cu13/lib/libnvrtc.so.13": stub_elf(b"libnvrtc-builtins.so.13.0"),
                "nvidia/cu13/lib/libnvrtc-builtins.so.13.0": stub_elf()}
    for name, numba, nvrtc, nvvm in (
            ("numba_nvvm120", True, ("nvidia-cuda-nvrtc-cu12", "12.8.93", nvrtc128),
             ("nvidia-cuda-nvcc-cu12", "12.0.140", "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so")),
            ("numba_cu13", True, ("nvidia-cuda-nvrtc", "13.0.88", nvrtc130),
             ("nvidia-nvvm", "13.0.88", "nvidia/cu13/lib/libnvvm.so.4")),
            ("nvvm_alone", False, ("nvidia-cuda-nvrtc", "13.0.88", nvrtc130),
             ("nvidia-nvvm", "13.0.88", "nvidia/cu13/lib/libnvvm.so.4"))):
        site = venv(os.path.join(out, name), "3.12")
        install_dist(site, nvrtc[0], nvrtc[1], nvrtc[2])
        install_dist(site, nvvm[0], nvvm[1], {nvvm[2]: stub_elf()})
        if numba:
            install_dist(site, "numba-cuda", "0.30.4", {"numba_cuda/__init__.py": b""})
        emit(os.path.join(out, name))
    # NVRTC 12.4 (nvidia-cuda-nvrtc-cu12 12.4.127): its version is its builtins' name.
    site = venv(os.path.join(out, "nvrtc124"), "3.12")
    install_dist(site, "nvidia-cuda-nvrtc-cu12", "12.4.127",
                 {"nvidia/cuda_nvrtc/lib/libnvrtc.so.12": stub_elf(b"libnvrtc-builtins.so.12.4"),
                  "nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.4": stub_elf()})
    emit(os.path.join(out, "nvrtc124"))
    # NVRTC 11.7 (nvidia-cuda-nvrtc-cu11 11.7.99, which torch 1.13 and 2.0 pin) beside the torch
    # that asks it only for what it knows (1.13.1: compute_86 on a newer GPU), beside one that
    # does not cap 11.7 (1.12.1), and beside that torch and CuPy, which asks for the GPU's own.
    for name, dists in (("nvrtc117_torch113", (("torch", "1.13.1"),)),
                        ("nvrtc117_torch112", (("torch", "1.12.1"),)),
                        ("nvrtc117_cupy", (("torch", "1.13.1"), ("cupy-cuda11x", "12.3.0")))):
        site = venv(os.path.join(out, name), "3.12")
        install_dist(site, "nvidia-cuda-nvrtc-cu11", "11.7.99",
                     {"nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2": stub_elf(b"libnvrtc-builtins.so.11.7"),
                      "nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.11.7": stub_elf()})
        for dist, version in dists:  # code that runs on 8.6 and 8.9 (sm_80)
            pkg = dist.split("-")[0]
            install_dist(site, dist, version, {pkg + "/__init__.py": b"",
                                               pkg + "/lib/libkernels.so": fixture("gen/cuda128.so")})
        emit(os.path.join(out, name))
    # onnxruntime-gpu 1.19.2 needs libcudnn.so.9 and the CUDA 12 libraries; beside torch 2.3's
    # nvidia-cudnn-cu12 8.9.2.26 (libcudnn.so.8) its CUDA provider does not load. Alone, it relies
    # on the host's libraries.
    ort = {"onnxruntime/__init__.py": b"",
           "onnxruntime/capi/libonnxruntime_providers_cuda.so": fixture("gen/needs_cudnn9.so")}
    cuda12 = (("nvidia-cublas-cu12", "12.1.3.1", {"nvidia/cublas/lib/libcublasLt.so.12": stub_elf(),
                                                  "nvidia/cublas/lib/libcublas.so.12": stub_elf()}),
              ("nvidia-cufft-cu12", "11.0.2.54", {"nvidia/cufft/lib/libcufft.so.11": stub_elf()}),
              ("nvidia-cuda-runtime-cu12", "12.1.105",
               {"nvidia/cuda_runtime/lib/libcudart.so.12": stub_elf()}))
    for name, cudnn in (("ort_cudnn8", "8.9.2.26"), ("ort_cudnn9", "9.1.0.70"), ("ort_host", None)):
        site = venv(os.path.join(out, name), "3.12")
        install_dist(site, "onnxruntime-gpu", "1.19.2", ort)
        for dist, version, files in cuda12 if cudnn else ():
            install_dist(site, dist, version, files)
        if cudnn:
            install_dist(site, "nvidia-cudnn-cu12", cudnn,
                         {"nvidia/cudnn/lib/libcudnn.so.%s" % cudnn[0]: stub_elf()})
        emit(os.path.join(out, name))
    # onnxruntime and onnxruntime-gpu both install onnxruntime/: the one installed last wrote the
    # shared files, and its RECORD's size of the Python module says which (the CPU one's is
    # smaller). Installed GPU first, the CPU build shadows it; installed CPU first, it does not.
    pybind = "onnxruntime/capi/onnxruntime_pybind11_state.cpython-312-x86_64-linux-gnu.so"
    cpu_files = {"onnxruntime/__init__.py": b"", pybind: stub_elf(b"cpu provider")}
    gpu_files = dict(ort, **{pybind: stub_elf(b"cpu provider, cuda provider, tensorrt provider")})
    for name, order in (("ort_shadow_cpu", ("onnxruntime-gpu", "onnxruntime")),
                        ("ort_shadow_gpu", ("onnxruntime", "onnxruntime-gpu"))):
        site = venv(os.path.join(out, name), "3.12")
        for dist in order:
            install_dist(site, dist, "1.19.2", gpu_files if dist.endswith("gpu") else cpu_files)
        for dist, version, files in cuda12:
            install_dist(site, dist, version, files)
        install_dist(site, "nvidia-cudnn-cu12", "9.1.0.70",
                     {"nvidia/cudnn/lib/libcudnn.so.9": stub_elf()})
        emit(os.path.join(out, name))


def remove_tree(path):
    if not os.path.lexists(path):
        return
    if os.path.isdir(path) and not os.path.islink(path):
        for d, dirs, _ in os.walk(path, topdown=True, followlinks=False):
            for name in dirs:
                p = os.path.join(d, name)
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
        # os.walk lists a directory before it can enter the children, so a mode-000 directory
        # is made searchable above before os.walk descends into it.
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _tar(files, links=(), mode="w"):
    """A tar archive (bytes) of files {name: bytes} in name order, plus (name, target) symlinks;
    fixed owners and times, so the bytes are the same on every run."""
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.PAX_FORMAT) as tf:
        for name, data in sorted(files.items()):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mtime, ti.mode = len(data), 0, 0o644
            tf.addfile(ti, io.BytesIO(data))
        for name, target in links:
            ti = tarfile.TarInfo(name)
            ti.type, ti.linkname, ti.mtime = tarfile.SYMTYPE, target, 0
            tf.addfile(ti)
    return buf.getvalue()


def _zstd(data):
    """One zstd frame of raw and RLE blocks, by the fixtures' own encoder (fixtures/gen.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("smcheck_fixtures_gen", os.path.join(FIX, "gen.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.zstd_frame(data)


def conda_files(name, version, build, libs, depends, unlisted=()):
    """A conda package's files: info/index.json, info/paths.json (listing libs, not unlisted)."""
    index = {"name": name, "version": version, "build": build, "build_number": 0,
             "subdir": "linux-64", "depends": list(depends)}
    paths = {"paths_version": 1, "paths": [
        {"_path": p, "path_type": "hardlink", "sha256": hashlib.sha256(d).hexdigest(),
         "size_in_bytes": len(d)} for p, d in sorted(libs.items())]}
    info = {"info/index.json": json.dumps(index, indent=2).encode(),
            "info/paths.json": json.dumps(paths, indent=2).encode()}
    pkg = dict(libs)
    pkg.update(unlisted)
    return info, pkg


def make_conda(out, emit):
    """conda packages (issue 13): demo-cuda 1.0 as .tar.bz2 and as .conda, with the same files
    (gen/cuda128.so as lib/libdemo.so, which paths.json lists; nvcc/multi.so as lib/libextra.so,
    which it does not; a symlink lib/libdemo.so.1); the same files unpacked (conda_unpacked/);
    and hostile ones: member names that leave the root, a bz2 bomb, a truncated package."""
    info, pkg = conda_files("demo-cuda", "1.0", "cuda128_0", {"lib/libdemo.so": fixture("gen/cuda128.so")},
                            ["cuda-version >=12.8,<13", "libgcc >=13"],
                            {"lib/libextra.so": fixture("nvcc/multi.so")})
    link = [("lib/libdemo.so.1", "libdemo.so")]
    both = dict(info)
    both.update(pkg)
    p = os.path.join(out, "demo-cuda-1.0-cuda128_0.tar.bz2")
    with open(p, "wb") as f:
        f.write(bz2.compress(_tar(both, link), 9))
    emit(p)
    members = [Member("metadata.json", b'{"conda_pkg_format_version": 2}', method=STORED),
               Member("info-demo-cuda-1.0-cuda128_0.tar.zst", _zstd(_tar(info)), method=STORED),
               Member("pkg-demo-cuda-1.0-cuda128_0.tar.zst", _zstd(_tar(pkg, link)), method=STORED)]
    p = os.path.join(out, "demo-cuda-1.0-cuda128_0.conda")
    write_zip(p, members, sort=False)
    emit(p)
    root = os.path.join(out, "conda_unpacked")
    for name, data in both.items():
        put(os.path.join(root, name), data)
    emit(root)
    hostile = dict(both)
    hostile.update({"../escape.so": fixture("gen/cuda128.so"), "/etc/abs.so": fixture("gen/cuda128.so")})
    p = os.path.join(out, "escape-1.0-0.tar.bz2")
    with open(p, "wb") as f:
        f.write(bz2.compress(_tar(hostile), 9))
    emit(p)
    bomb = dict(info)
    bomb["lib/libbomb.so"] = b"\x7fELF" + b"\0" * (200 << 20)
    p = os.path.join(out, "bomb-1.0-0.tar.bz2")
    with open(p, "wb") as f:
        f.write(bz2.compress(_tar(bomb), 9))
    emit(p)
    big = dict(info)  # a member over what is copied to memory: streamed from a temporary file
    big["lib/libbig.so"] = fixture("gen/cuda128.so") + b"\0" * (17 << 20)
    p = os.path.join(out, "big-1.0-0.tar.bz2")
    with open(p, "wb") as f:
        f.write(bz2.compress(_tar(big), 9))
    emit(p)
    put(os.path.join(out, "conda_big", "lib", "libbig.so"), big["lib/libbig.so"])
    whole = bz2.compress(_tar(both, link), 9)
    p = os.path.join(out, "cut-1.0-0.tar.bz2")
    with open(p, "wb") as f:
        f.write(whole[:len(whole) // 2])
    emit(p)


def _tar_entries(entries):
    """A tar (bytes) of entries (name, kind, data-or-target) in the given order: kind "f" a file,
    "d" a directory, "l" a symlink, "h" a hard link; fixed owners and times."""
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, kind, data in entries:
            ti = tarfile.TarInfo(name)
            ti.mtime, ti.mode = 0, 0o755 if kind == "d" else 0o644
            if kind == "f":
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
                continue
            ti.type = {"d": tarfile.DIRTYPE, "l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE}[kind]
            if kind in "lh":
                ti.linkname = data
            tf.addfile(ti)
    return buf.getvalue()


def image_layers():
    """The three layers of the demo image, bottom first: the base holds libbase.so, libgone.so,
    opt/data/libold.so and a venv with imgpkg (RECORD lists imgpkg/_C.so); the second overwrites
    libbase.so, whites out libgone.so and makes opt/data opaque (libnew.so only); the third,
    gzip-compressed, adds libtop.so, a hard link to it and a symlink that points out of the
    root."""
    sp = "opt/venv/lib/python3.11/site-packages/"
    c_so = fixture("gen/cuda128.so")
    record = ("imgpkg/__init__.py,,0\nimgpkg/_C.so,%s,%d\nimgpkg-1.0.dist-info/METADATA,,\n"
              "imgpkg-1.0.dist-info/RECORD,,\n" % (record_hash(c_so), len(c_so))).encode()
    base = [("usr", "d", None), ("usr/lib", "d", None),
            ("usr/lib/libbase.so", "f", fixture("gen/cuda128.so")),
            ("usr/lib/libgone.so", "f", fixture("gen/gated_only.so")),
            ("opt/data/libold.so", "f", fixture("gen/old.cubin")),
            (sp + "imgpkg/__init__.py", "f", b""),
            (sp + "imgpkg/_C.so", "f", c_so),
            (sp + "imgpkg-1.0.dist-info/METADATA", "f",
             b"Metadata-Version: 2.1\nName: imgpkg\nVersion: 1.0\n"
             b"Requires-Dist: nvidia-cuda-runtime-cu12\n"),
            (sp + "imgpkg-1.0.dist-info/RECORD", "f", record),
            ("usr/local/cuda-12.8/compat/libcuda.so.1", "f", b"not a driver")]
    second = [("usr/lib/libbase.so", "f", fixture("nvcc/multi.so")),
              ("usr/lib/.wh.libgone.so", "f", b""),
              ("opt/data/.wh..wh..opq", "f", b""),
              ("opt/data/libnew.so", "f", fixture("gen/ptx_sm90a.so"))]
    third = [("usr/lib/libtop.so", "f", fixture("gen/sm90a_v1.so")),
             ("usr/lib/libtop.so.1", "h", "usr/lib/libtop.so"),
             ("usr/lib/evil", "l", "/etc/passwd")]
    return [_tar_entries(base), _tar_entries(second), gzip.compress(_tar_entries(third), mtime=0)]


def _blob(blobs, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    blobs["blobs/sha256/" + digest[7:]] = data
    return digest


def oci_layout(layers, arm_layers, config_env):
    """The files of an OCI image layout: a nested index (index.json -> an index blob) with an
    amd64 manifest of layers and an arm64 one of arm_layers."""
    blobs = {}
    manifests = []
    for arch, ls in (("amd64", layers), ("arm64", arm_layers)):
        cfg = json.dumps({"architecture": arch, "os": "linux",
                          "config": {"Env": config_env}}).encode()
        man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
               "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                          "digest": _blob(blobs, cfg), "size": len(cfg)},
               "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar" +
                           ("+gzip" if l[:2] == b"\x1f\x8b" else ""),
                           "digest": _blob(blobs, l), "size": len(l)} for l in ls]}
        mb = json.dumps(man).encode()
        manifests.append({"mediaType": man["mediaType"], "digest": _blob(blobs, mb),
                          "size": len(mb), "platform": {"architecture": arch, "os": "linux"}})
    inner = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                        "manifests": manifests}).encode()
    index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
             "manifests": [{"mediaType": "application/vnd.oci.image.index.v1+json",
                            "digest": _blob(blobs, inner), "size": len(inner)}]}
    files = dict(blobs)
    files["oci-layout"] = b'{"imageLayoutVersion": "1.0.0"}'
    files["index.json"] = json.dumps(index).encode()
    return files


def make_images(out, emit):
    """Container images (issue 13) of the same three layers: an OCI layout directory (nested
    index, amd64 and arm64), an oci-archive tarball of it, a docker save of the legacy kind
    (manifest.json), the same filesystem unpacked, and hostile ones: an entry that climbs out of
    the root, a whiteout of nothing, a layer bomb."""
    layers = image_layers()
    env = ["PATH=/usr/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.8 brand=tesla,driver>=535",
           "CUDA_VERSION=12.8.1"]
    files = oci_layout(layers, layers[:1], env)
    root = os.path.join(out, "image_oci")
    for name, data in files.items():
        put(os.path.join(root, name), data)
    emit(root)
    p = os.path.join(out, "image_oci.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)
    cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Env": env}}).encode()
    legacy = {"config.json": cfg,
              "manifest.json": json.dumps([{"Config": "config.json", "RepoTags": ["demo:1"],
                                            "Layers": ["l1/layer.tar", "l2/layer.tar",
                                                       "l3/layer.tar"]}]).encode()}
    for i, l in enumerate(layers):
        legacy["l%d/layer.tar" % (i + 1)] = l
    p = os.path.join(out, "image_docker.tar")
    with open(p, "wb") as f:
        f.write(_tar(legacy))
    emit(p)
    # The filesystem the layers make, unpacked by hand (what the layers leave visible).
    unpacked = os.path.join(out, "image_unpacked")
    sp = "opt/venv/lib/python3.11/site-packages/"
    for name, kind, data in tarfile_entries(layers[0]):
        if name in ("usr/lib/libgone.so", "opt/data/libold.so") or kind != "f":
            continue
        put(os.path.join(unpacked, name), data)
    put(os.path.join(unpacked, "usr/lib/libbase.so"), fixture("nvcc/multi.so"))
    put(os.path.join(unpacked, "opt/data/libnew.so"), fixture("gen/ptx_sm90a.so"))
    put(os.path.join(unpacked, "usr/lib/libtop.so"), fixture("gen/sm90a_v1.so"))
    os.link(os.path.join(unpacked, "usr/lib/libtop.so"), os.path.join(unpacked, "usr/lib/libtop.so.1"))
    emit(unpacked)
    assert os.path.exists(os.path.join(unpacked, sp, "imgpkg/_C.so"))
    bad = [("../../escape.so", "f", fixture("gen/cuda128.so")), ("usr/.wh.", "f", b""),
           ("usr/lib/libok.so", "f", fixture("gen/cuda128.so"))]
    bomb = gzip.compress(_tar_entries([("usr/lib/libbomb.so", "f",
                                        b"\x7fELF" + b"\0" * (200 << 20))]), mtime=0)
    files = oci_layout([_tar_entries(bad), bomb], [_tar_entries(bad)], [])
    p = os.path.join(out, "image_hostile.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)
    # Issue 26: an image directory whose index.json is not JSON, so that manifest.json (free text)
    # is read, naming a config and a layer outside the layout, beside one of its own.
    esc = os.path.join(out, "image_escape")
    outside = os.path.join(out, "image_escape_outside")
    put(os.path.join(outside, "layer.tar"),
        _tar_entries([("usr/lib/libout.so", "f", fixture("gen/cuda128.so"))]))
    put(os.path.join(outside, "cfg.json"), cfg)
    put(os.path.join(esc, "oci-layout"), b'{"imageLayoutVersion": "1.0.0"}')
    put(os.path.join(esc, "index.json"), b"{not json")
    put(os.path.join(esc, "l1/layer.tar"),
        _tar_entries([("usr/lib/libin.so", "f", fixture("gen/cuda128.so"))]))
    put(os.path.join(esc, "manifest.json"), json.dumps(
        [{"Config": "../image_escape_outside/cfg.json",
          "Layers": ["l1/layer.tar", "../image_escape_outside/layer.tar",
                     "l1/" + "./" * 2100 + "../../image_escape_outside/layer.tar",
                     "/etc/passwd"]}]).encode())
    emit(esc)
    # A top layer that makes the root opaque (nothing of the layers below stays) and holds a hard
    # link that climbs out of the root.
    top = _tar_entries([(".wh..wh..opq", "f", b""), ("usr/lib/hl.so", "h", "../../../etc/passwd"),
                        ("usr/lib/libmine.so", "f", fixture("gen/cuda128.so"))])
    files = oci_layout([_tar_entries(bad), top], [top], [])
    p = os.path.join(out, "image_opaque_root.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)


def _oci_dir(root, layers, arch="amd64"):
    """An OCI layout directory of one amd64 image of layers (bottom first)."""
    files = oci_layout(layers, layers[:1], [])
    for name, data in files.items():
        put(os.path.join(root, name), data)


def _index_blob(blobs, manifests):
    return _blob(blobs, json.dumps({"schemaVersion": 2, "manifests": manifests}).encode())


def make_images_26(out, emit):
    """Issue 26's image cases: indexes wide and nested (one 24-wide fan-out over 4 levels, one
    index of 300 entries, 100 of them nested indexes), a layer listed 200 times (once above a
    whiteout of its file), hard links whose target is whited out or overwritten, a whiteout of a
    directory above a path past 4096 bytes, 300 layers of the same 1000 whiteouts."""
    idx_mt = "application/vnd.oci.image.index.v1+json"
    man_mt = "application/vnd.oci.image.manifest.v1+json"
    lib = fixture("gen/cuda128.so")
    layer = _tar_entries([("usr/lib/libfan.so", "f", lib)])
    # The fan-out: index.json lists the level-1 index 24 times, each level the next 24 times.
    files = oci_layout([layer], [layer], [])
    blobs = {}
    top = json.loads(files["index.json"])["manifests"][0]["digest"]
    inner = json.loads(files["blobs/sha256/" + top[7:]])["manifests"]
    pad = " " * (512 << 10)
    for _ in range(4):
        data = (json.dumps({"schemaVersion": 2, "mediaType": idx_mt,
                            "manifests": inner * 24 if _ else inner}) + pad).encode()
        inner = [{"mediaType": idx_mt, "digest": _blob(blobs, data), "size": len(data)}]
    files.update(blobs)
    files["index.json"] = json.dumps({"schemaVersion": 2, "manifests": inner * 24}).encode()
    root = os.path.join(out, "image_fanout")
    for name, data in files.items():
        put(os.path.join(root, name), data)
    emit(root)
    # The breadth: 100 distinct nested indexes, 200 manifests of other platforms, then amd64.
    files = oci_layout([layer], [layer], [])
    amd = json.loads(files[json.loads(files["index.json"])["manifests"][0]["digest"]
                           .replace("sha256:", "blobs/sha256/")])["manifests"][0]
    blobs = {}
    wide = [{"mediaType": idx_mt, "digest": _index_blob(blobs, [dict(amd, platform={
        "os": "linux", "architecture": "nested%d" % i})]), "size": 1} for i in range(100)]
    wide += [dict(amd, platform={"os": "linux", "architecture": "other%d" % i}) for i in range(200)]
    wide.append(amd)
    files.update(blobs)
    files["index.json"] = json.dumps({"schemaVersion": 2, "manifests": wide}).encode()
    root = os.path.join(out, "image_breadth")
    for name, data in files.items():
        put(os.path.join(root, name), data)
    emit(root)
    # Indexes that list themselves (a blob's name is its digest only by its word), two that list
    # each other, and a chain of 6 nested indexes: each said, none "lists no image manifest".
    def index_of(manifests):
        return json.dumps({"schemaVersion": 2, "mediaType": idx_mt, "manifests": manifests}).encode()
    self_at, a_at, b_at = ("%064x" % k for k in (1, 2, 3))
    chain = {"blobs/sha256/" + self_at: index_of([{"mediaType": idx_mt, "digest": "sha256:" + self_at,
                                                   "size": 1}])}
    chain["index.json"] = index_of([{"mediaType": idx_mt, "digest": "sha256:" + self_at, "size": 1}])
    pair = {"blobs/sha256/" + a_at: index_of([{"mediaType": idx_mt, "digest": "sha256:" + b_at, "size": 1}]),
            "blobs/sha256/" + b_at: index_of([{"mediaType": idx_mt, "digest": "sha256:" + a_at, "size": 1}])}
    pair["index.json"] = index_of([{"mediaType": idx_mt, "digest": "sha256:" + a_at, "size": 1}])
    deep, blobs, inner = {}, {}, json.loads(files["index.json"])["manifests"][-1:]
    for _ in range(6):
        inner = [{"mediaType": idx_mt, "digest": _index_blob(blobs, inner), "size": 1}]
    deep.update(blobs)
    deep["index.json"] = index_of(inner)
    for name, layout in (("image_cycle", chain), ("image_cycle2", pair), ("image_deep", deep)):
        root = os.path.join(out, name)
        for k, data in layout.items():
            put(os.path.join(root, k), data)
        put(os.path.join(root, "oci-layout"), b'{"imageLayoutVersion": "1.0.0"}')
        emit(root)
    # One layer listed 200 times, the second listing (bottom up) a whiteout of its library: the
    # copies above it bring the library back; the layer's 32 MiB of zeros are inflated once.
    heavy = gzip.compress(_tar_entries([("usr/lib/librep.so", "f", lib),
                                        ("usr/share/zeros", "f", b"\0" * (32 << 20))]), mtime=0)
    wh = _tar_entries([("usr/lib/.wh.librep.so", "f", b"")])
    files = oci_layout([heavy, wh] + [heavy] * 199, [heavy], [])
    p = os.path.join(out, "image_repeat.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)
    # Hard links: liba.so whited out and libc.so overwritten above; their twins libb.so and
    # libd.so keep the bytes (as an unpacked root keeps them). A directory whose path passes
    # 4096 bytes, whited out from above at its top.
    deep = "opt/top/" + "/".join(["d" * 200] * 21) + "/libdeep.so"
    base = _tar_entries([("usr/lib/liba.so", "f", lib), ("usr/lib/libb.so", "h", "usr/lib/liba.so"),
                         ("usr/lib/libc.so", "f", lib), ("usr/lib/libd.so", "h", "usr/lib/libc.so"),
                         (deep, "f", lib), ("opt/keep/libkeep.so", "f", lib)])
    upper = _tar_entries([("usr/lib/.wh.liba.so", "f", b""),
                          ("usr/lib/libc.so", "f", fixture("nvcc/multi.so")),
                          ("opt/.wh.top", "f", b"")])
    files = oci_layout([base, upper], [base], [])
    p = os.path.join(out, "image_links.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)
    # Layers that cannot be read: one not a tar, one a gzip stream cut short (each said once).
    cut = gzip.compress(_tar_entries([("usr/lib/libcut.so", "f", lib)]), mtime=0)[:300]
    files = oci_layout([_tar_entries([("usr/lib/libgood.so", "f", lib)]), b"x" * 1000, cut],
                       [layer], [])
    p = os.path.join(out, "image_badlayer.tar")
    with open(p, "wb") as f:
        f.write(_tar(files))
    emit(p)
    # 300 layers, each the same 1000 whiteouts and one file of its own (so no two are the same).
    import io
    import tarfile
    common = io.BytesIO()
    with tarfile.open(fileobj=common, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for i in range(1000):
            ti = tarfile.TarInfo("usr/share/w/.wh.f%04d" % i)
            ti.mtime = 0
            tf.addfile(ti)
    body = common.getvalue().rstrip(b"\0")
    body += b"\0" * (-len(body) % 512)
    layers = []
    for k in range(300):
        own = io.BytesIO()
        with tarfile.open(fileobj=own, mode="w", format=tarfile.USTAR_FORMAT) as tf:
            ti = tarfile.TarInfo("layer/%03d" % k)
            ti.mtime = 0
            tf.addfile(ti)
        head = own.getvalue()[:512]
        layers.append(gzip.compress(head + body + b"\0" * 1024, compresslevel=1, mtime=0))
    layers[0] = gzip.compress(_tar_entries([("usr/lib/libwh.so", "f", lib)]), mtime=0)
    root = os.path.join(out, "image_whiteouts")
    _oci_dir(root, layers)
    emit(root)
    # A conda prefix in an image: its record's paths_data (the bulk of a real one: 40,000 files
    # with hashes) is not what is kept of it; and, in the layer below, 6 records of 15 MiB each
    # past the image's cap on metadata (64 MiB in all), a gzip layer of a few hundred KB.
    files = ["lib/libconda.so"] + ["share/f%05d" % k for k in range(40000)]
    record = {"name": "condapkg", "version": "1.0", "build": "0", "files": files,
              "paths_data": {"paths": [{"_path": f, "path_type": "hardlink", "sha256": "0" * 64,
                                        "size_in_bytes": 1} for f in files], "paths_version": 1}}
    conda = _tar_entries([("opt/conda/lib/libconda.so", "f", lib),
                          ("opt/conda/conda-meta/condapkg-1.0-0.json", "f",
                           json.dumps(record).encode())])
    name = b'"' + b"x" * 100 + b'",'
    flood = _tar_entries([("opt/flood/conda-meta/f%02d-1.0-0.json" % k, "f",
                           b'{"name": "f%02d", "version": "1.0", "files": [' % k +
                           name * ((15 << 20) // len(name)) + b'"b"]}') for k in range(6)])
    gz_save(os.path.join(out, "image_conda.tar.gz"), [gzip.compress(flood, mtime=0),
                                                      gzip.compress(conda, mtime=0)])
    emit(os.path.join(out, "image_conda.tar.gz"))


def gz_save(path, layers, extra=None):
    """A `docker save | gzip` of the legacy kind (manifest.json) of layers, bottom first."""
    cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Env": []}}).encode()
    names = ["l%03d/layer.tar" % i for i in range(len(layers))]
    files = dict(zip(names, layers))
    files["config.json"] = cfg
    files["manifest.json"] = json.dumps([{"Config": "config.json", "Layers": names}]).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(_tar(files), compresslevel=1, mtime=0))


def tarfile_entries(data):
    """(name, kind, data) of a tar's entries, kind "f" for files."""
    import io
    import tarfile
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        return [(m.name, "f" if m.isfile() else "o", tf.extractfile(m).read() if m.isfile() else None)
                for m in tf.getmembers()]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_wheels.py OUTDIR\n")
        return 64
    out = argv[1]
    remove_tree(out)
    os.makedirs(out)

    def emit(p):
        kind = "dir " if os.path.isdir(p) else "%-4s" % "whl"
        size = "" if os.path.isdir(p) else " %d bytes" % os.path.getsize(p)
        print("%s %s%s" % (kind, os.path.relpath(p, out), size))

    make_wheels(out, emit)
    make_rollup_wheels(out, emit)
    make_situation_wheels(out, emit)
    make_runtime(out, emit)
    make_envs(out, emit)
    make_conda(out, emit)
    make_images(out, emit)
    make_images_26(out, emit)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
