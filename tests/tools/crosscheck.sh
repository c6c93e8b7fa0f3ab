#!/usr/bin/env bash
# crosscheck.sh SMCHECK PATH...
# Runs `SMCHECK scan --format json PATH...` and the independent reader
# fatbin_ref.py on the same paths, and compares, per library path, the
# container count and the images map (a static archive's members added up: smcheck reads it as
# one library). Prints one line per library ("ok" or
# the difference) and "N passed, M failed"; exits 1 on any difference.
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: $0 SMCHECK PATH..." >&2
    exit 64
fi
smcheck=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rc=0
"$smcheck" scan --format json "$@" >"$tmp/smcheck.json" 2>"$tmp/smcheck.err" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "note: $smcheck exited with status $rc" >&2
    sed 's/^/  smcheck: /' "$tmp/smcheck.err" | head -20 >&2
fi
python3 "$here/fatbin_ref.py" "$@" >"$tmp/ref.json" 2>"$tmp/ref.err"
if [ -s "$tmp/ref.err" ]; then
    sed 's/^/  ref: /' "$tmp/ref.err" | head -20 >&2
fi

PYTHONPATH="$here" python3 - "$tmp/smcheck.json" "$tmp/ref.json" <<'PY'
import re
import sys

from compare import key, load

sm = load(sys.argv[1], "smcheck")
ref = load(sys.argv[2], "the reference reader")

def index(libs, who):
    out = {}
    for lib in libs:
        k = key(lib["path"])
        if k in out:
            print("%s: listed twice by %s" % (lib["path"], who))
        out[k] = (lib["path"], int(lib.get("containers", 0)),
                  {t: int(n) for t, n in lib.get("images", {}).items() if int(n)})
    return out

def archives_whole(libs):
    # smcheck reads a static archive as one library, as it will be once linked; the reference
    # lists its members: add them up under the archive's name.
    out, whole = [], {}
    for lib in libs:
        m = re.match(r"^(.*\.a)\((.*)\)$", lib["path"])
        if not m:
            out.append(lib)
            continue
        w = whole.setdefault(m.group(1), {"path": m.group(1), "containers": 0, "images": {}})
        if not whole.get(m.group(1) + "\0"):
            whole[m.group(1) + "\0"] = True
            out.append(w)
        w["containers"] += int(lib.get("containers", 0))
        for t, n in lib.get("images", {}).items():
            w["images"][t] = w["images"].get(t, 0) + int(n)
    return out

a = index([dict(l, images={c["token"]: c["count"] for c in l["token_counts"]})
           for inp in sm.get("inputs", []) for l in inp.get("libraries", [])], "smcheck")
b = index(archives_whole(ref["libraries"]), "the reference")
empty = (None, 0, {})
passed = failed = 0
for k in sorted(set(a) | set(b)):
    pa, ca, ia = a.get(k, empty)
    pb, cb, ib = b.get(k, empty)
    name = pa or pb
    diffs = []
    if ca != cb:
        diffs.append("containers %d (smcheck) != %d (reference)" % (ca, cb))
    if ia != ib:
        toks = sorted(set(ia) | set(ib))
        d = ["%s %d!=%d" % (t, ia.get(t, 0), ib.get(t, 0)) for t in toks if ia.get(t, 0) != ib.get(t, 0)]
        diffs.append("images (smcheck!=reference): " + ", ".join(d))
    if pa is None:
        diffs.insert(0, "missing from smcheck")
    elif pb is None and (ca or ia):
        diffs.insert(0, "not found by the reference")
    if diffs:
        failed += 1
        print("%s: FAIL %s" % (name, "; ".join(diffs)))
    else:
        passed += 1
        print("%s: ok" % name)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
