#!/usr/bin/env python3
"""builds-from-wheels.py: rewrite rows of data/builds.tsv from what smcheck reads in real torch wheels.

usage: tools/builds-from-wheels.py [--smcheck BIN] [--table FILE] [--download DIR] [--check] SPEC...

SPEC is a torch wheel file, or (with --download) PLATFORM:VERSION to fetch from PyPI first, where
PLATFORM is x86_64 or aarch64 (pip download --no-deps --only-binary=:all:, Python 3.11). Each
wheel is judged by smcheck (so that its libraries get their roles: main, vendored, alternative);
its row is then:
  cubins, PTX  the token set shared by the most containers of the torch distribution's main
               libraries (the architecture list the build was made with)
  CUDA         what smcheck says the distribution was built for (torch/version.py, Requires-Dist)
  variant      cu + that version without its dot; cpu when no library holds device code
  index        pypi (the wheel came from PyPI), and no other row of that release and platform is
  source       "wheel FILE"
The row with the same release, variant and platform is replaced (its torchvision and torchaudio
kept), else added after the rows of that release. --check rewrites nothing: it prints the rows
that differ from the table and exits 1 if any does. This script downloads; tests and CI do not
run it.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PLATFORMS = {"x86_64": "linux-x86_64", "aarch64": "linux-aarch64"}


def release_key(text):
    return tuple(int(p) for p in text.split("."))


def download(spec, into):
    plat, _, version = spec.partition(":")
    if plat not in PLATFORMS or not version:
        sys.exit(f"builds-from-wheels: bad SPEC '{spec}' (x86_64:2.8.0, aarch64:2.15.0)")
    tags = [f"manylinux_2_28_{plat}", f"manylinux_2_17_{plat}", f"manylinux2014_{plat}"]
    if plat == "x86_64":
        tags.append("manylinux1_x86_64")
    out = os.path.join(into, plat)
    os.makedirs(out, exist_ok=True)
    before = set(os.listdir(out))
    cmd = ["pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
           "-d", out, f"torch=={version}"]
    for t in tags:
        cmd[2:2] = ["--platform", t]
    subprocess.run(cmd, check=True)
    names = [n for n in os.listdir(out) if n.startswith(f"torch-{version}-") and n.endswith(".whl")]
    new = [n for n in names if n not in before] or names
    if not new:
        sys.exit(f"builds-from-wheels: pip left no torch {version} wheel in {out}")
    return os.path.join(out, sorted(new)[0])


def row_of(smcheck, wheel):
    """The table row smcheck's reading of one wheel gives (a list of ten fields)."""
    run = subprocess.run([smcheck, "-q", "--gpu", "9.0", "--format", "json", wheel],
                         capture_output=True, text=True, env=dict(os.environ, SMCHECK_LIBCUDA="/nonexistent"))
    if run.returncode not in (0, 1):
        sys.exit(f"builds-from-wheels: smcheck failed on {wheel}: {run.stderr.strip()}")
    report = json.loads(run.stdout)["inputs"][0]
    dists = [d for d in report["distributions"] if d["name"].lower() == "torch"]
    if len(dists) != 1:
        sys.exit(f"builds-from-wheels: {wheel} is not one torch wheel")
    dist = dists[0]
    platform = None
    for arch, name in PLATFORMS.items():
        if dist["platform"] and dist["platform"].endswith(arch):
            platform = name
    if not platform:
        sys.exit(f"builds-from-wheels: {wheel}: platform {dist['platform']} is not linux x86_64/aarch64")
    mine = set(dist["libraries"])
    sets = {}
    for lib in report["libraries"]:
        if lib["path"] in mine and lib.get("role") == "main":
            for s in lib["token_sets"]:
                if not s["relocatable"]:
                    sets[s["tokens"]] = sets.get(s["tokens"], 0) + s["containers"]
    version = dist["version"]
    if not sets:
        return [version, "cpu", platform, "-", "-", "-", "pypi", "-", "-",
                "wheel " + os.path.basename(wheel)]
    if not dist["cuda"] and not dist["cuda_major"]:
        sys.exit(f"builds-from-wheels: {wheel}: smcheck does not say which CUDA built it")
    tokens = max(sets.items(), key=lambda kv: (kv[1], kv[0]))[0].split()
    cubins = [t for t in tokens if t.startswith("sm_")]
    ptx = [t for t in tokens if t.startswith("compute_")]
    cuda = dist["cuda"] or "%d.0" % dist["cuda_major"]
    variant = "cu" + cuda.replace(".", "")
    return [version, variant, platform, cuda, ",".join(cubins) or "-", ",".join(ptx) or "-",
            "pypi", "-", "-", "wheel " + os.path.basename(wheel)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smcheck", default=os.path.join(ROOT, "build", "smcheck"))
    ap.add_argument("--table", default=os.path.join(ROOT, "data", "builds.tsv"))
    ap.add_argument("--download", metavar="DIR")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("spec", nargs="+")
    args = ap.parse_args()

    with open(args.table) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    differ = 0
    for spec in args.spec:
        wheel = spec if os.path.exists(spec) or not args.download else download(spec, args.download)
        new = row_of(args.smcheck, wheel)
        key = (new[0], new[1], new[2])
        at = None
        for i, line in enumerate(lines):
            if line.startswith("#") or not line:
                continue
            f = line.split("\t")
            if (f[0], f[1], f[2]) == key:
                at = i
                new[7], new[8] = f[7], f[8]
            elif (f[0], f[2]) == (new[0], new[2]) and f[6] == "pypi":
                if args.check:
                    print(f"builds-from-wheels: {spec}: the table says PyPI's torch {f[0]} on "
                          f"{f[2]} is {f[1]}; the wheel is {new[1]}")
                    differ += 1
                else:
                    f[6] = "pytorch"
                    lines[i] = "\t".join(f)
        text = "\t".join(new)
        if args.check:
            if at is None or lines[at] != text:
                print(f"builds-from-wheels: {spec}:\n  table: {lines[at] if at is not None else '(no row)'}\n  wheel: {text}")
                differ += 1
            continue
        if at is not None:
            lines[at] = text
        else:  # after the last row of the same release, else in release order
            rows = [i for i, l in enumerate(lines) if l and not l.startswith("#")]
            after = [i for i in rows if release_key(lines[i].split("\t")[0]) <= release_key(new[0])]
            pos = (after[-1] + 1) if after else (rows[0] if rows else len(lines))
            lines.insert(pos, text)
        print("\t".join(new))
    if args.check:
        sys.exit(1 if differ else 0)
    with open(args.table, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
