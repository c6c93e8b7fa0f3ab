#!/usr/bin/env python3
"""Independent reference reader of CUDA fat binaries, written from
reference/fatbin-format.md only (not from src/), to cross-check smcheck.

Trusts nothing in its inputs: every read is bounds-checked against the file
(or archive member) and a file that cannot be parsed is skipped with a
message on stderr.

Usage: fatbin_ref.py [--stats] [--no-search] PATH...
  PATH      files or directories (recursed; symlinks below a given directory
            are not followed; only regular files are read).
  --stats   add a "ref_stats" object per library (where containers were
            found, alignment, padding, rejected candidates, field values).
  --no-search  only walk .nv_fatbin / __nv_relfatbin (no whole-file search).

Output (stdout): {"libraries": [{"path", "containers", "images": {token: n}}]}
sorted by path. Only files (or ar members, named "archive.a(member.o)") with
at least one container are listed.
"""

import bisect
import json
import mmap
import os
import stat
import struct
import sys

FATBIN_MAGIC = b"\x50\xed\x55\xba"
SEARCH_PREFIX = b"\x50\xed\x55\xba\x01\x00\x10\x00"  # magic, version 1, headerSize 16 (§2)
ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")  # §1
EM_CUDA = 190
SHT_NOBITS = 8
KIND_PREFIX = {2: "sm_", 1: "compute_", 8: "lto_"}  # §4

U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")


class ParseError(Exception):
    pass


def warn(msg):
    sys.stderr.write("fatbin_ref: %s\n" % msg)


# ----------------------------------------------------------------------------
# Fatbin containers (§2, §3)

def parse_container(buf, p, limit):
    """Validate the container at absolute offset p that must end at or before
    limit. Returns (end, [(kind, arch, flags, hsz)]) or raises ParseError with
    the reason."""
    if p + 16 > limit:
        raise ParseError("container header truncated")
    if buf[p:p + 4] != FATBIN_MAGIC:
        raise ParseError("bad magic")
    ver = U16.unpack_from(buf, p + 4)[0]
    hdr = U16.unpack_from(buf, p + 6)[0]
    fat = U64.unpack_from(buf, p + 8)[0]
    if ver != 1:
        raise ParseError("container version %d" % ver)
    if hdr < 16:
        raise ParseError("container headerSize %d" % hdr)
    end = p + hdr + fat
    if end > limit:
        raise ParseError("fatSize 0x%x runs past the end (0x%x > 0x%x)" % (fat, end, limit))
    entries = []
    e = p + hdr
    while e < end:
        if e + 64 > end:
            raise ParseError("entry header at 0x%x truncated" % e)
        kind, ever, hs = struct.unpack_from("<HHI", buf, e)
        ps = U64.unpack_from(buf, e + 8)[0]
        if kind not in KIND_PREFIX:
            raise ParseError("entry at 0x%x: kind %d" % (e, kind))
        if ever != 0x0101:
            raise ParseError("entry at 0x%x: version 0x%x" % (e, ever))
        if hs < 64 or hs % 8:
            raise ParseError("entry at 0x%x: headerSize %d" % (e, hs))
        if e + hs + ps > end:
            raise ParseError("entry at 0x%x: headerSize+paddedSize past container end" % e)
        arch = U32.unpack_from(buf, e + 0x1c)[0]
        flags = U64.unpack_from(buf, e + 0x28)[0]
        entries.append((kind, arch, flags, hs))
        e += hs + ps
    if e != end:  # cannot happen given the checks, kept as a guard
        raise ParseError("entries do not end at the container end")
    return end, entries


def token(kind, arch, flags):
    suffix = "a" if flags & 0x100000 else "f" if flags & 0x200000 else ""
    return "%s%d%s" % (KIND_PREFIX[kind], arch, suffix)


class Result:
    def __init__(self, path):
        self.path = path
        self.containers = 0
        self.images = {}
        self.intervals = []  # sorted (start, end) of counted containers, absolute offsets
        self.stats = {
            "in_sections": {},     # section -> containers found by the section walk
            "outside": {},         # section (or "<none>") -> containers found only by the search
            "empty_containers": 0,
            "file_offset_not_8_aligned": 0,
            "section_offset_not_8_aligned": 0,
            "zero_gaps_in_sections": 0,  # runs of zero bytes skipped between containers
            "zero_gap_bytes": 0,
            "walk_errors": [],
            "rejected_candidates": {},   # reason -> count (search prefix hits that failed)
            "entry_kinds": {},
            "entry_header_sizes": {},
            "flags_union": 0,
        }

    def add(self, start, end, entries):
        self.containers += 1
        i = bisect.bisect_left(self.intervals, (start, end))
        self.intervals.insert(i, (start, end))
        st = self.stats
        if end - start == 16:
            st["empty_containers"] += 1
        for kind, arch, flags, hs in entries:
            t = token(kind, arch, flags)
            self.images[t] = self.images.get(t, 0) + 1
            st["entry_kinds"][str(kind)] = st["entry_kinds"].get(str(kind), 0) + 1
            st["entry_header_sizes"][str(hs)] = st["entry_header_sizes"].get(str(hs), 0) + 1
            st["flags_union"] |= flags

    def inside_counted(self, off):
        i = bisect.bisect_right(self.intervals, (off, 1 << 70)) - 1
        return i >= 0 and self.intervals[i][0] <= off < self.intervals[i][1]

    def overlaps_counted(self, start, end):
        i = bisect.bisect_left(self.intervals, (start, 0))
        for j in (i - 1, i):
            if 0 <= j < len(self.intervals):
                s, e = self.intervals[j]
                if s < end and start < e:
                    return True
        return False

    def to_json(self, with_stats):
        d = {"path": self.path, "containers": self.containers,
             "images": dict(sorted(self.images.items()))}
        if with_stats:
            st = dict(self.stats)
            st["flags_union"] = "0x%x" % st["flags_union"]
            d["ref_stats"] = st
        return d


def walk_range(buf, start, end, name, res, base):
    """Walk containers back to back in [start, end) (a section, or a raw
    fatbin file), skipping zero bytes between them (§2, §9)."""
    p = start
    st = res.stats
    while p + 16 <= end:
        if buf[p:p + 4] != FATBIN_MAGIC:
            q = p
            while q < end and buf[q] == 0:
                q += 1
            if q == p:
                st["walk_errors"].append("%s+0x%x: non-zero bytes, not a container; walk stopped" % (name, p - start))
                warn("%s: %s+0x%x: no container magic; rest of the section left to the search" % (res.path, name, p - start))
                return
            st["zero_gaps_in_sections"] += 1
            st["zero_gap_bytes"] += q - p
            p = q
            continue
        try:
            cend, entries = parse_container(buf, p, end)
        except ParseError as ex:
            st["walk_errors"].append("%s+0x%x: %s" % (name, p - start, ex))
            warn("%s: %s+0x%x: %s; rest of the section left to the search" % (res.path, name, p - start, ex))
            return
        res.add(p, cend, entries)
        st["in_sections"][name] = st["in_sections"].get(name, 0) + 1
        if p % 8:
            st["file_offset_not_8_aligned"] += 1
        if (p - start) % 8:
            st["section_offset_not_8_aligned"] += 1
        p = cend
    if p < end and any(buf[p:end]):
        st["walk_errors"].append("%s+0x%x: %d trailing non-zero bytes" % (name, p - start, end - p))


def search_range(buf, start, end, res, section_of):
    """Whole-range search for the 8-byte container prefix at every offset (§9)."""
    st = res.stats
    p = buf.find(SEARCH_PREFIX, start, end)
    while p != -1:
        nxt = p + 1
        if not res.inside_counted(p):
            try:
                cend, entries = parse_container(buf, p, end)
                if U64.unpack_from(buf, p + 8)[0] == 0:
                    raise ParseError("fatSize 0")
                if res.overlaps_counted(p, cend):
                    raise ParseError("overlaps a counted container")
            except ParseError as ex:
                reason = str(ex)
                # keep the reasons few and groupable
                reason = reason.split(" at 0x")[0] + (":" + reason.split(":", 1)[1] if ":" in reason and " at 0x" in reason else "")
                st["rejected_candidates"][reason] = st["rejected_candidates"].get(reason, 0) + 1
            else:
                res.add(p, cend, entries)
                sec = section_of(p)
                st["outside"][sec] = st["outside"].get(sec, 0) + 1
                if p % 8:
                    st["file_offset_not_8_aligned"] += 1
                nxt = cend
        p = buf.find(SEARCH_PREFIX, nxt, end)


# ----------------------------------------------------------------------------
# ELF (§1, §6)

def elf_sections(buf, base, size):
    """Return (e_machine, e_flags, abiversion, [(name, type, offset_abs, size)])
    for the ELF image at [base, base+size)."""
    if size < 52:
        raise ParseError("ELF header truncated")
    cls, data = buf[base + 4], buf[base + 5]
    if data != 1:
        raise ParseError("not little-endian ELF (EI_DATA=%d)" % data)
    abiver = buf[base + 8]
    if cls == 2:
        if size < 64:
            raise ParseError("ELF64 header truncated")
        (e_machine,) = U16.unpack_from(buf, base + 18)
        (e_shoff,) = U64.unpack_from(buf, base + 0x28)
        (e_flags,) = U32.unpack_from(buf, base + 0x30)
        e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", buf, base + 0x3a)
        shfmt = struct.Struct("<IIQQQQIIQQ")  # name type flags addr offset size link info align entsize
        idx = (0, 1, 4, 5, 6)
    elif cls == 1:
        (e_machine,) = U16.unpack_from(buf, base + 18)
        (e_shoff,) = U32.unpack_from(buf, base + 0x20)
        (e_flags,) = U32.unpack_from(buf, base + 0x24)
        e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", buf, base + 0x2e)
        shfmt = struct.Struct("<IIIIIIIIII")
        idx = (0, 1, 4, 5, 6)
    else:
        raise ParseError("unknown ELF class %d" % cls)
    secs = []
    if e_shoff == 0:
        return e_machine, e_flags, abiver, secs
    if e_shentsize < shfmt.size:
        raise ParseError("e_shentsize %d too small" % e_shentsize)

    def shdr(i):
        o = e_shoff + i * e_shentsize
        if o + shfmt.size > size:
            raise ParseError("section header %d outside the file" % i)
        v = shfmt.unpack_from(buf, base + o)
        return tuple(v[k] for k in idx)  # name, type, offset, size, link

    if e_shnum == 0 or e_shstrndx == 0xffff:
        s0 = shdr(0)
        if e_shnum == 0:
            e_shnum = s0[3]
        if e_shstrndx == 0xffff:
            e_shstrndx = s0[4]
    if e_shnum * e_shentsize > size:
        raise ParseError("e_shnum %d too large" % e_shnum)
    hdrs = [shdr(i) for i in range(e_shnum)]
    strtab = None
    if 0 < e_shstrndx < e_shnum:
        _, t, o, s, _ = hdrs[e_shstrndx]
        if t != SHT_NOBITS and o + s <= size:
            strtab = (base + o, base + o + s)
    for nm, t, o, s, _ in hdrs:
        name = ""
        if strtab and strtab[0] + nm < strtab[1]:
            z = buf.find(b"\0", strtab[0] + nm, strtab[1])
            if z != -1:
                name = bytes(buf[strtab[0] + nm:z]).decode("latin-1")
        secs.append((name, t, base + o, s))
    return e_machine, e_flags, abiver, secs


def scan_elf(buf, base, size, path, search):
    e_machine, e_flags, abiver, secs = elf_sections(buf, base, size)
    res = Result(path)
    if e_machine == EM_CUDA:  # a bare cubin (§6)
        sm = (e_flags >> 8) & 0xff if abiver == 8 else e_flags & 0xff
        res.containers = 1
        res.images = {"sm_%d" % sm: 1}
        res.stats["bare_cubin"] = True
        return res
    end = base + size
    filesecs = []
    for name, t, o, s in secs:
        if t == SHT_NOBITS or s == 0:
            continue
        if o < base or o + s > end:
            if name in FATBIN_SECTIONS:
                warn("%s: section %s runs past the end of the file" % (path, name))
            continue
        filesecs.append((o, o + s, name))
        if name in FATBIN_SECTIONS:
            walk_range(buf, o, o + s, name, res, base)
    filesecs.sort()
    starts = [s for s, _, _ in filesecs]

    def section_of(off):
        i = bisect.bisect_right(starts, off) - 1
        while i >= 0:  # few sections; look back in case of overlaps
            s, e, n = filesecs[i]
            if s <= off < e:
                return n or "<unnamed>"
            i -= 1
        return "<no section>"

    if search:
        search_range(buf, base, end, res, section_of)
    return res


def scan_raw_fatbin(buf, base, size, path, search):
    res = Result(path)
    walk_range(buf, base, base + size, "<raw>", res, base)
    if search:
        search_range(buf, base, base + size, res, lambda off: "<raw>")
    return res


# ----------------------------------------------------------------------------
# ar archives

def ar_members(buf, size):
    """Yield (name, offset, size) of the regular members of a System V/GNU or
    BSD ar archive."""
    p = 8
    longnames = None
    while p + 60 <= size:
        hdr = bytes(buf[p:p + 60])
        if hdr[58:60] != b"`\n":
            raise ParseError("bad ar member header at 0x%x" % p)
        raw = hdr[0:16].decode("latin-1").rstrip(" ")
        try:
            msize = int(hdr[48:58].decode("ascii").strip() or "0")
        except ValueError:
            raise ParseError("bad ar member size at 0x%x" % p)
        data = p + 60
        if data + msize > size:
            raise ParseError("ar member at 0x%x runs past the end" % p)
        name, off, length = raw, data, msize
        if raw in ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"):
            name = None
        elif raw == "//":
            longnames = bytes(buf[data:data + msize])
            name = None
        elif raw.startswith("#1/"):  # BSD: name stored in front of the data
            n = int(raw[3:])
            name = bytes(buf[data:data + n]).rstrip(b"\0").decode("latin-1")
            off, length = data + n, msize - n
            if name.startswith("__.SYMDEF"):
                name = None
        elif raw.startswith("/") and raw[1:].isdigit():
            i = int(raw[1:])
            if longnames is None or i >= len(longnames):
                raise ParseError("bad long member name at 0x%x" % p)
            j = longnames.find(b"\n", i)
            name = longnames[i:j if j != -1 else len(longnames)].decode("latin-1")
            if name.endswith("/"):
                name = name[:-1]
        elif raw.endswith("/"):
            name = raw[:-1]
        if name is not None:
            yield name, off, length
        p = data + msize + (msize & 1)


# ----------------------------------------------------------------------------
# Files

def scan_file(path, search):
    """Return a list of Results for path (several for an archive)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as ex:
        warn("%s: %s" % (path, ex.strerror))
        return []
    try:
        size = os.fstat(fd).st_size
        if size < 8:
            return []
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as buf:
            head = buf[:8]
            out = []
            try:
                if head[:4] == ELF_MAGIC:
                    out.append(scan_elf(buf, 0, size, path, search))
                elif head == AR_MAGIC:
                    for name, off, length in ar_members(buf, size):
                        mpath = "%s(%s)" % (path, name)
                        if length >= 4 and buf[off:off + 4] == ELF_MAGIC:
                            try:
                                out.append(scan_elf(buf, off, length, mpath, search))
                            except (ParseError, struct.error) as ex:
                                warn("%s: %s" % (mpath, ex))
                elif head[:4] == FATBIN_MAGIC:
                    out.append(scan_raw_fatbin(buf, 0, size, path, search))
            except (ParseError, struct.error) as ex:
                warn("%s: %s" % (path, ex))
            return [r for r in out if r.containers > 0]
    except (OSError, ValueError) as ex:
        warn("%s: %s" % (path, ex))
        return []
    finally:
        os.close(fd)


def iter_files(paths):
    for top in paths:
        try:
            st = os.stat(top)  # a path given by the user is followed once
        except OSError as ex:
            warn("%s: %s" % (top, ex.strerror))
            continue
        if stat.S_ISREG(st.st_mode):
            yield top
        elif stat.S_ISDIR(st.st_mode):
            for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
                dirnames.sort()
                for f in sorted(filenames):
                    p = os.path.join(dirpath, f)
                    try:
                        if stat.S_ISREG(os.lstat(p).st_mode):
                            yield p
                    except OSError:
                        pass


def main(argv):
    args = list(argv)
    with_stats = "--stats" in args
    search = "--no-search" not in args
    paths = [a for a in args if a not in ("--stats", "--no-search")]
    if not paths or any(a.startswith("-") and a != "-" for a in paths):
        sys.stderr.write(__doc__)
        return 64
    libs = []
    for f in iter_files(paths):
        libs.extend(scan_file(f, search))
    libs.sort(key=lambda r: r.path)
    json.dump({"libraries": [r.to_json(with_stats) for r in libs]}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
