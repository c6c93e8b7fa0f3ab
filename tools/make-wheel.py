#!/usr/bin/env python3
"""Packs a built smcheck executable into a platform wheel and a tarball (used by tools/build-wheel.sh).

The distribution is smcheck-cuda (the PyPI name smcheck is another project's); the command is smcheck.
The wheel carries the executable as smcheck_cuda-VERSION.data/scripts/smcheck, so that pip and uv install it
as bin/smcheck and no Python runs when it is called; a tiny `smcheck_cuda` package lets
`python -m smcheck_cuda` exec the same file (not a `smcheck` package: the unrelated PyPI project
smcheck installs one, and pip would let one replace the other's files without a word; its
`smcheck` command still clashes with ours, which the README says). Licenses go to the dist-info's licenses/ folder. It trusts its arguments: files
this repository's build wrote. Output is reproducible: fixed timestamps, sorted members.
"""
import argparse
import base64
import hashlib
import gzip
import io
import os
import stat
import tarfile
import time
import zipfile

# 1980-01-01, zip's earliest date; SOURCE_DATE_EPOCH overrides it for both archives.
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))

MAIN_PY = '''"""`python -m smcheck_cuda`: runs the smcheck executable that this wheel installed in the scripts folder."""
import os
import sys
import sysconfig


def main():
    exe = os.path.join(sysconfig.get_path("scripts"), "smcheck")
    if not os.path.isfile(exe):
        # A --user or --target install puts the scripts somewhere else; look beside sys.executable too.
        exe = os.path.join(os.path.dirname(sys.executable), "smcheck")
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    main()
'''


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def add(zf, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=time.gmtime(EPOCH)[:6])
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data, compresslevel=9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    ap.add_argument("--licenses", required=True, help="folder of license files (LICENSE first)")
    ap.add_argument("--dist", required=True)
    ap.add_argument("--glibc", default="2_28", help="manylinux glibc floor, as 2_28")
    a = ap.parse_args()

    # The distribution's name, and as a wheel's file and folder names spell it (PEP 427: "_").
    name, ver = "smcheck-cuda", a.version
    stem = name.replace("-", "_")
    tag = f"py3-none-manylinux_{a.glibc}_{a.arch}"
    distinfo = f"{stem}-{ver}.dist-info"
    with open(a.binary, "rb") as f:
        exe = f.read()
    licenses = sorted(os.listdir(a.licenses), key=lambda n: (n != "LICENSE", n))
    license_data = {}
    for n in licenses:
        with open(os.path.join(a.licenses, n), "rb") as f:
            license_data[n] = f.read()

    metadata = "\n".join(
        [
            "Metadata-Version: 2.1",
            f"Name: {name}",
            f"Version: {ver}",
            "Summary: Will the CUDA code in this wheel, environment or library run on that GPU?",
            "License: MIT (smcheck); the statically linked libraries' licenses are in licenses/",
            "Requires-Python: >=3.7",
            "Classifier: Environment :: GPU :: NVIDIA CUDA",
            "Classifier: License :: OSI Approved :: MIT License",
            "Classifier: Operating System :: POSIX :: Linux",
            "Classifier: Programming Language :: C",
            "",
            "smcheck reads the CUDA fat binaries in wheels, environments and ELF libraries and judges them",
            "against GPUs. This wheel holds the compiled `smcheck` executable (no Python needed to run it);",
            "libcuda.so.1 is loaded at run time, when present, to find the local GPUs.",
            "",
        ]
    )
    wheel = "\n".join(
        ["Wheel-Version: 1.0", "Generator: smcheck tools/make-wheel.py", "Root-Is-Purelib: false", f"Tag: {tag}", ""]
    )
    members = [
        ("smcheck_cuda/__init__.py", b'"""smcheck-cuda: the executable is in the scripts folder; see __main__."""\n',
         0o644),
        ("smcheck_cuda/__main__.py", MAIN_PY.encode(), 0o644),
        (f"{stem}-{ver}.data/scripts/smcheck", exe, 0o755),
    ]
    members += [(f"{distinfo}/licenses/{n}", license_data[n], 0o644) for n in licenses]
    members += [(f"{distinfo}/METADATA", metadata.encode(), 0o644), (f"{distinfo}/WHEEL", wheel.encode(), 0o644)]

    os.makedirs(a.dist, exist_ok=True)
    whl = os.path.join(a.dist, f"{stem}-{ver}-{tag}.whl")
    record = [record_line(n, d) for n, d, _ in members] + [f"{distinfo}/RECORD,,"]
    with zipfile.ZipFile(whl + ".tmp", "w") as zf:
        for n, d, m in members:
            add(zf, n, d, m)
        add(zf, f"{distinfo}/RECORD", ("\n".join(record) + "\n").encode())
    os.replace(whl + ".tmp", whl)

    # The tarball: smcheck-VERSION-linux-ARCH/{smcheck, LICENSE, licenses/...}, for COPY into images.
    top = f"smcheck-{ver}-linux-{a.arch}"
    tgz = os.path.join(a.dist, f"{top}.tar.gz")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        def put(path, data, mode):
            ti = tarfile.TarInfo(path)
            ti.size, ti.mode, ti.mtime, ti.uname, ti.gname = len(data), mode, EPOCH, "root", "root"
            tf.addfile(ti, io.BytesIO(data))

        for d in (top, f"{top}/licenses"):
            ti = tarfile.TarInfo(d)
            ti.type, ti.mode, ti.mtime, ti.uname, ti.gname = tarfile.DIRTYPE, 0o755, EPOCH, "root", "root"
            tf.addfile(ti)
        put(f"{top}/smcheck", exe, 0o755)
        put(f"{top}/LICENSE", license_data["LICENSE"], 0o644)
        for n in licenses:
            put(f"{top}/licenses/{n}", license_data[n], 0o644)
    with open(tgz + ".tmp", "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=EPOCH, compresslevel=9) as gz:
            gz.write(buf.getvalue())
    os.replace(tgz + ".tmp", tgz)
    print(f"{whl} ({os.path.getsize(whl)} bytes)\n{tgz} ({os.path.getsize(tgz)} bytes)")


if __name__ == "__main__":
    main()
