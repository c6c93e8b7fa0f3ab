#!/usr/bin/env python3
"""companions.py: rewrite columns 8 and 9 of data/builds.tsv from the torchvision and torchaudio wheels' Requires-Dist.

usage: tools/companions.py [--table FILE] [--check] [--cache DIR] [--jobs N]

For each package (torchvision, torchaudio) it lists the releases on PyPI (`pip index versions`,
for Python 3.8 to 3.12 on Linux x86_64; pre-releases skipped), then reads each release's
Requires-Dist from the metadata PyPI serves next to one of its wheels (PEP 658), through
`pip install --dry-run --no-deps --report`: no wheel is downloaded. Python 3.11 is tried first,
then 3.10, 3.12, 3.9 and 3.8, since old releases have no cp311 wheel. A release whose metadata
cannot be read is reported on stderr and left out.

The companion of a torch release R is what pip itself would pick: the newest release whose
Requires-Dist on torch admits R (all its torch lines together, as a SpecifierSet). A release with
no Requires-Dist on torch admits nothing: metadata does not tie it to a torch. "-" when no release
admits R. The companion does not depend on the platform or the CUDA variant, so every row of R
gets the same two. The table's "# companions" comment lines (one per torch release, with the wheel
and Requires-Dist line each companion was read from) are rewritten with them; the rest of the
table is kept byte for byte.

--check rewrites nothing: it prints what differs and exits 1 if anything does. The metadata read
is kept in DIR/companions-cache.json (default DIR: build/) so that a rerun only asks PyPI for the
list of releases and for releases it has not read yet. This script downloads; tests and CI do not
run it.
"""
import argparse
import concurrent.futures
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import SpecifierSet
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version
except ImportError:  # pip carries its own copy
    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.utils import canonicalize_name
    from pip._vendor.packaging.version import InvalidVersion, Version

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PACKAGES = ("torchvision", "torchaudio")  # columns 8 and 9
PYTHONS = ("3.11", "3.10", "3.12", "3.9", "3.8")
# Old releases carry manylinux1 wheels only; pip does not widen a --platform tag by itself.
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64", "linux_x86_64")
MARK = "# companions"
CACHE_FORMAT = 1


def pip(*args):
    """pip of this interpreter, its output captured; PIP_* settings of the caller kept."""
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True)


def target_options(python):
    opts = ["--only-binary=:all:", "--python-version", python]
    for p in PLATFORMS:
        opts += ["--platform", p]
    return opts


def list_versions(name):
    """Final releases of NAME on PyPI with a Linux x86_64 wheel for one of PYTHONS, newest first."""
    found = set()
    for python in PYTHONS:
        run = pip("index", "versions", name, *target_options(python))
        m = re.search(r"^Available versions: (.*)$", run.stdout, re.M)
        if run.returncode != 0 or not m:
            # No wheel at all for that Python is not an error; an unreachable index is.
            if "No matching distribution" not in run.stderr:
                sys.exit(f"companions: pip index versions {name} (Python {python}) failed: "
                         f"{run.stderr.strip()}")
            continue
        for text in m.group(1).split(","):
            try:
                v = Version(text.strip())
            except InvalidVersion:
                continue
            if not v.is_prerelease and not v.is_devrelease:
                found.add(v)
    return sorted(found, reverse=True)


def read_metadata(name, version, scratch):
    """{"file", "python", "requires"} for one release (requires: its Requires-Dist lines on torch,
    as PyPI's metadata writes them), or (None, why)."""
    why = "no Linux x86_64 wheel for Python " + ", ".join(PYTHONS)
    for python in PYTHONS:
        report = os.path.join(scratch, f"{name}-{version}-{python}.json")
        run = pip("install", "--dry-run", "--no-deps", "--ignore-installed", "--quiet",
                  "--report", report, "--target", os.path.join(scratch, "target"),
                  *target_options(python), f"{name}=={version}")
        if run.returncode != 0:
            if "No matching distribution" not in run.stderr:
                why = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "pip failed"
            continue
        try:
            with open(report) as f:
                item = json.load(f)["install"][0]
            url = item["download_info"]["url"]
            lines = item["metadata"].get("requires_dist") or []
        except (OSError, ValueError, KeyError, IndexError) as e:
            return None, f"pip's report is unreadable: {e}"
        requires = []
        for line in lines:
            try:
                if canonicalize_name(Requirement(line).name) == "torch":
                    requires.append(line)
            except InvalidRequirement:
                continue
        return {"file": os.path.basename(url.split("#")[0]), "python": python,
                "requires": requires}, None
    return None, why


def torch_specifier(meta):
    """The SpecifierSet a release puts on torch (None when it puts none), extras left out."""
    spec, any_line = SpecifierSet(), False
    for line in meta["requires"]:
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(
                {"extra": "", "python_version": meta["python"],
                 "python_full_version": meta["python"] + ".0", "sys_platform": "linux",
                 "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix"}):
            continue
        spec &= req.specifier
        any_line = True
    return spec if any_line else None


def load_cache(path):
    try:
        with open(path) as f:
            data = json.load(f)
        if data.get("format") == CACHE_FORMAT:
            return data
    except (OSError, ValueError):
        pass
    return {"format": CACHE_FORMAT, "packages": {}}


def read_all(cache, jobs):
    """{name: [(Version, meta), ...] newest first}, reading what the cache lacks."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="companions-") as scratch:
        for name in PACKAGES:
            known = cache["packages"].setdefault(name, {})
            versions = list_versions(name)
            todo = [v for v in versions if str(v) not in known]
            if todo:
                print(f"companions: reading {len(todo)} {name} releases' metadata from PyPI",
                      file=sys.stderr)
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                results = pool.map(lambda v: read_metadata(name, v, scratch), todo)
                for v, (meta, why) in zip(todo, results):
                    if meta:
                        known[str(v)] = meta
                    else:
                        print(f"companions: {name} {v}: metadata not read: {why}", file=sys.stderr)
            out[name] = [(v, known[str(v)]) for v in versions if str(v) in known]
    return out


def companion(releases, torch):
    """(Version, meta) of the newest release whose torch specifier admits TORCH, else None."""
    for v, meta in releases:
        spec = torch_specifier(meta)
        if spec is not None and spec.contains(torch, prereleases=True):
            return v, meta
    return None


def describe(name, found):
    if not found:
        return f"{name} - (no release's Requires-Dist admits it)"
    v, meta = found
    lines = "; ".join("Requires-Dist: " + r for r in meta["requires"])
    return f"{name} {v} ({meta['file']}: {lines})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", metavar="FILE", default=os.path.join(ROOT, "data", "builds.tsv"),
                    help="the table to rewrite (default: data/builds.tsv)")
    ap.add_argument("--check", action="store_true",
                    help="rewrite nothing; exit 1 when the table differs")
    ap.add_argument("--cache", metavar="DIR", default=os.path.join(ROOT, "build"),
                    help="where companions-cache.json is kept (default: build/)")
    ap.add_argument("--jobs", type=int, default=4, help="pip runs at once (default: 4)")
    args = ap.parse_args()

    with open(args.table) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    cache_path = os.path.join(args.cache, "companions-cache.json")
    cache = load_cache(cache_path)
    try:
        releases = read_all(cache, max(1, args.jobs))
    finally:
        os.makedirs(args.cache, exist_ok=True)
        with open(cache_path + ".tmp", "w") as f:
            json.dump(cache, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(cache_path + ".tmp", cache_path)

    torches = sorted({l.split("\t")[0] for l in lines if l and not l.startswith("#")}, key=Version)
    chosen = {t: [companion(releases[name], t) for name in PACKAGES] for t in torches}

    block = []
    for t in torches:
        block.append(f"{MARK} {t}: " + ", ".join(describe(n, c) for n, c in zip(PACKAGES, chosen[t])))
    untied = [f"{n} {v} ({m['file']})" for n in PACKAGES for v, m in releases[n]
              if torch_specifier(m) is None]
    if untied:
        block.append(f"{MARK}: no Requires-Dist on torch (tied to no release): " + ", ".join(untied))

    new, at = [], None
    for line in lines:
        if line.startswith(MARK):
            if at is None:
                at = len(new)
            continue
        if line and not line.startswith("#"):
            f = line.split("\t")
            if len(f) == 10:
                pair = chosen[f[0]]
                f[7], f[8] = (str(c[0]) if c else "-" for c in pair)
                line = "\t".join(f)
        new.append(line)
    if at is None:  # first run: the block goes right before the first row
        at = next((i for i, l in enumerate(new) if l and not l.startswith("#")), len(new))
        block.insert(0, "#")
    new[at:at] = block

    if args.check:
        diff = list(difflib.unified_diff(lines, new, args.table, "from PyPI", lineterm=""))
        for line in diff:
            print(line)
        sys.exit(1 if diff else 0)
    if new != lines:
        with open(args.table, "w") as f:
            f.write("\n".join(new) + "\n")
    for t in torches:
        print(t, *(str(c[0]) if c else "-" for c in chosen[t]), sep="\t")


if __name__ == "__main__":
    main()
