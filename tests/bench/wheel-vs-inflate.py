#!/usr/bin/env python3
"""Helper of wheel-vs-inflate.sh (Python 3 standard library only).

  wheel-vs-inflate.py build WHEEL LIB...   writes a wheel-like zip holding LIB... as
      bench_cuda/lib/NAME, deflated at level 6, plus a dist-info (METADATA, WHEEL, RECORD).
      The libraries are deflated in parallel (one process per CPU) into raw deflate streams,
      the same bytes zipfile would write (zlib.compressobj(6, DEFLATED, -15)), then assembled
      with fixed timestamps (1980-01-01) in name order.
  wheel-vs-inflate.py report ...           prints the figures (see wheel-vs-inflate.sh).
"""
import base64
import hashlib
import os
import struct
import sys
import zlib
from concurrent.futures import ProcessPoolExecutor

CHUNK = 4 << 20
DOS_DATE = (1 << 5) | 1  # 1980-01-01, time 0
EXT_ATTR = (0o100644) << 16


def deflate_file(args):
    src, dst = args
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    crc, usize, csize = 0, 0, 0
    sha = hashlib.sha256()
    with open(src, "rb") as f, open(dst, "wb") as o:
        while True:
            b = f.read(CHUNK)
            if not b:
                break
            crc = zlib.crc32(b, crc)
            sha.update(b)
            usize += len(b)
            z = c.compress(b)
            csize += len(z)
            o.write(z)
        z = c.flush()
        csize += len(z)
        o.write(z)
    digest = "sha256=" + base64.urlsafe_b64encode(sha.digest()).rstrip(b"=").decode()
    return crc, usize, csize, digest


def build(wheel, libs):
    tmp = wheel + ".parts"
    os.makedirs(tmp, exist_ok=True)
    names = ["bench_cuda/lib/" + os.path.basename(l) for l in libs]
    parts = [os.path.join(tmp, "%d.deflate" % i) for i in range(len(libs))]
    # Largest first, so the big one does not start last.
    order = sorted(range(len(libs)), key=lambda i: -os.path.getsize(libs[i]))
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        res = dict(zip(order, ex.map(deflate_file, [(libs[i], parts[i]) for i in order])))
    di = "bench_cuda-13.0.dist-info"
    small = {
        di + "/METADATA": b"Metadata-Version: 2.1\nName: bench-cuda\nVersion: 13.0\n"
                          b"Requires-Dist: nvidia-cuda-runtime==13.0.48\n",
        di + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: smcheck-bench\nRoot-Is-Purelib: false\n"
                       b"Tag: py3-none-manylinux_2_28_x86_64\n",
    }
    record = []
    entries = []  # (name, crc, usize, csize, source: ('file', path) | ('bytes', raw))
    for i, n in enumerate(names):
        crc, usize, csize, digest = res[i]
        record.append((n, digest, usize))
        entries.append((n, crc, usize, csize, ("file", parts[i])))
    for n, d in small.items():
        h = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        record.append((n, h, len(d)))
    rec = "".join("%s,%s,%d\n" % r for r in sorted(record)) + di + "/RECORD,,\n"
    small[di + "/RECORD"] = rec.encode()
    for n, d in small.items():
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw = c.compress(d) + c.flush()
        entries.append((n, zlib.crc32(d), len(d), len(raw), ("bytes", raw)))
    entries.sort(key=lambda e: e[0])
    for e in entries:
        if e[2] >= 0xFFFFFFFF or e[3] >= 0xFFFFFFFF:
            sys.exit("wheel-vs-inflate: %s is 4 GiB or more: zip64 is not written here" % e[0])
    central = bytearray()
    part_out = wheel + ".tmp"
    with open(part_out, "wb") as o:
        for name, crc, usize, csize, src in entries:
            nb = name.encode()
            off = o.tell()
            if off >= 0xFFFFFFFF:
                sys.exit("wheel-vs-inflate: the wheel passes 4 GiB: zip64 is not written here")
            o.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, DOS_DATE, crc, csize,
                                usize, len(nb), 0) + nb)
            if src[0] == "bytes":
                o.write(src[1])
            else:
                with open(src[1], "rb") as f:
                    while True:
                        b = f.read(CHUNK)
                        if not b:
                            break
                        o.write(b)
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, (3 << 8) | 30, 20, 0, 8, 0,
                                   DOS_DATE, crc, csize, usize, len(nb), 0, 0, 0, 0, EXT_ATTR,
                                   off) + nb
        cd = o.tell()
        o.write(central)
        o.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries),
                            len(central), cd, 0))
    os.replace(part_out, wheel)
    for p in parts:
        os.unlink(p)
    os.rmdir(tmp)


def report(a):
    """report NCPU CPU WHEEL WHEEL_BYTES MEMBERS OUT_BYTES RUNS then
    label=seconds:rss_kib:system_seconds:minor_faults ..."""
    ncpu, cpu, wheel, wbytes, members, obytes, runs = a[:7]
    wbytes, obytes = int(wbytes), int(obytes)
    rows, extra = [], {}
    for kv in a[7:]:
        label, v = kv.rsplit("=", 1)
        t, rss, sys_, flt = v.split(":")
        rows.append((label, float(t), None if rss in ("", "n/a") else int(rss)))
        extra[label] = (sys_, flt)
    floor = rows[0][1]
    print("machine: %s CPUs, %s" % (ncpu, cpu))
    print("wheel:   %s" % wheel)
    print("         %d bytes (%.1f MiB) on disk, %s members, %d bytes (%.1f MiB) inflated; "
          "page cache warm, best of %s" % (wbytes, wbytes / 2**20, members, obytes, obytes / 2**20,
                                           runs))
    for label, t, rss in rows:
        mibs = obytes / t / 2**20 if t > 0 else float("inf")
        ratio = t / floor if floor > 0 else float("inf")
        r = "%7.1f MiB" % (rss / 1024) if rss is not None else "    n/a    "
        sys_, flt = extra[label]
        print("%-40s %8.3f s  %7.1f MiB/s  %5.2fx floor  peak RSS %s  system %5s s  minor faults %s"
              % (label, t, mibs, ratio, r, sys_, flt))
    by = {l: (t, rss) for l, t, rss in rows}
    j1 = by.get("smcheck scan -j1")
    j2 = by.get("smcheck scan -j2")
    isal = by.get("ISA-L floor (raw, CRC)")
    zlib_j1 = by.get("smcheck scan -j1, SMCHECK_INFLATE=zlib")
    goals = []
    if isal:  # the build inflates with ISA-L (issue 11)
        goals.append("-j1 at most 0.80x the zlib floor: %s (%.2fx; %.2fx the ISA-L floor)" % (
            "yes" if j1[0] <= 0.80 * floor else "NO", j1[0] / floor, j1[0] / isal[0]))
    if zlib_j1:
        goals.append("-j1 through zlib within 1.10x the zlib floor: %s (%.2fx)" % (
            "yes" if zlib_j1[0] <= 1.10 * floor else "NO", zlib_j1[0] / floor))
    if j2:
        goals.append("-j2 below the floor: %s (%.2fx)" % (
            "yes" if j2[0] < floor else "NO", j2[0] / floor))
    if j1 and j2 and os.environ.get("BENCH_ONE_MEMBER"):  # one-member.sh: more than one thread inflates it
        goals.append("one member: -j2 %.2fx -j1%s" % (
            j2[0] / j1[0], "; %.2fx the ISA-L floor (one thread)" % (j2[0] / isal[0]) if isal else ""))
    rss = [by[l][1] for l in by if l.startswith("smcheck") and by[l][1] is not None]
    if rss:
        goals.append("peak RSS at most 64 MiB: %s (%.1f MiB)" % (
            "yes" if max(rss) <= 64 * 1024 else "NO", max(rss) / 1024))
    print("goals (issues 4, 11, 28):\n  " + "\n  ".join(goals))

def main(argv):
    if len(argv) >= 3 and argv[1] == "build":
        build(argv[2], argv[3:])
        return 0
    if len(argv) >= 9 and argv[1] == "report":
        report(argv[2:])
        return 0
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
