#!/usr/bin/env python3
"""Checks that smcheck lists each fixture as its row in fixtures/README.md says it holds.

Usage: check_fixtures.py SMCHECK FIXTURES_DIR

Each table row names a library (`nvcc/multi.so`, `nvcc/librdc.a`), its container count,
its tokens with counts, and how many findings a scan reports (`0 (verify: 2)`: none when listing,
two more with --verify). Every file under nvcc/ and gen/ must have a row, and smcheck must report
no library the table does not name. Prints one line per row and "N passed, M failed".
"""
import json
import os
import re
import subprocess
import sys

from harness import check, finish

ROW = re.compile(r"^\| *((?:nvcc|gen)/[^ |]+) *\| *(\d+) *\| *([^|]*?) *\| *([^|]*?) *\|")


def read_table(readme):
    rows = {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            path, containers, images, findings = m.groups()
            fm = re.fullmatch(r"(\d+)(?: \(verify: (\d+)\))?", findings)
            if not fm:
                sys.exit(f"fixtures/README.md: bad findings cell for {path}: {findings!r}")
            tokens = {} if images == "-" else dict(
                (t, int(n)) for t, n in (item.split(":") for item in images.split()))
            rows[path] = {"containers": int(containers), "images": tokens,
                          "findings": int(fm.group(1)),
                          "verify": int(fm.group(1)) + int(fm.group(2) or 0)}
    return rows


def scan(smcheck, fixtures, paths, verify):
    cmd = [smcheck, "scan", "--format", "json"] + (["--verify"] if verify else []) + paths
    out = subprocess.run(cmd, cwd=fixtures, capture_output=True, text=True)
    if out.returncode not in (0, 2):
        sys.exit(f"{' '.join(cmd)}: exit status {out.returncode}\n{out.stderr}")
    libs = {}
    for inp in json.loads(out.stdout)["inputs"]:
        for lib in inp["libraries"]:
            libs[lib["path"]] = lib
    return libs


def main():
    smcheck, fixtures = os.path.abspath(sys.argv[1]), sys.argv[2]
    rows = read_table(os.path.join(fixtures, "README.md"))
    files = sorted(f"{d}/{name}" for d in ("nvcc", "gen")
                   for name in os.listdir(os.path.join(fixtures, d)))
    plain = scan(smcheck, fixtures, files, verify=False)
    verified = scan(smcheck, fixtures, files, verify=True)
    for f in files:
        if not any(p == f or p.startswith(f + "(") for p in rows):
            check(False, f"{f}: no row in fixtures/README.md")
    for path in sorted(set(plain) - set(rows)):
        check(False, f"{path}: listed by smcheck but not in fixtures/README.md")
    for path, want in sorted(rows.items()):
        lib = plain.get(path, {"containers": 0, "images": {}, "findings": []})
        vlib = verified.get(path, {"findings": []})
        images = {c["token"]: c["count"] for c in lib.get("token_counts", [])}
        got = {"containers": lib["containers"], "images": images,
               "findings": len(lib["findings"]), "verify": len(vlib["findings"])}
        check(got == want, path, ", ".join(f"{k}: README {want[k]} vs smcheck {got[k]}"
                                           for k in want if want[k] != got[k]))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
