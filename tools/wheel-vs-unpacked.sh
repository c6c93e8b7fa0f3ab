#!/usr/bin/env bash
# wheel-vs-unpacked.sh [SMCHECK] WHEEL...: a wheel scanned in place and the same wheel unpacked
# must give the same answer. Each WHEEL is a .whl file or a pip requirement (torchvision==0.14.1,
# downloaded for manylinux x86_64 into $WHEELS, default ~/.cache/smcheck-wheels; this needs the
# network, the tests never run it). Judges both with --detail --verify against 6.1, 7.5, 8.0,
# 9.0, 12.0 with a 12.8 driver and compares, library by library, the whole JSON (containers,
# sections, images, what was read of them, runtimes, findings, verdicts and reasons). Prints one
# line per wheel and "N passed, M failed".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
smcheck=$here/build/smcheck
if [ "$#" -gt 0 ] && [ -x "$1" ] && [ ! -d "$1" ]; then smcheck=$(realpath "$1"); shift; fi
wheels=${WHEELS:-$HOME/.cache/smcheck-wheels}
mkdir -p "$wheels"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
for w in "$@"; do
    if [ ! -f "$w" ]; then
        name=${w%%==*}
        ver=${w#*==}
        found=$(ls "$wheels"/"${name//-/_}"-"$ver"-*.whl "$wheels"/"$name"-"$ver"-*.whl 2>/dev/null | head -1 || true)
        if [ -z "$found" ]; then
            python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" \
                --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
                --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
                --platform manylinux1_x86_64 --python-version 3.11 "$w" ||
            python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" \
                --platform manylinux1_x86_64 --platform manylinux2014_x86_64 --python-version 3.10 "$w"
            found=$(ls "$wheels"/"${name//-/_}"-"$ver"-*.whl "$wheels"/"$name"-"$ver"-*.whl 2>/dev/null | head -1)
        fi
        w=$found
    fi
    rm -rf "$tmp/u"
    mkdir -p "$tmp/u"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$tmp/u"
    args=(--gpu 6.1,7.5,8.0,9.0,12.0 --driver 12.8 --detail --verify --format json -q)
    s1=0 s2=0
    t0=$(date +%s.%N)
    SMCHECK_LIBCUDA=/nonexistent "$smcheck" "${args[@]}" "$w" >"$tmp/wheel.json" 2>"$tmp/wheel.err" || s1=$?
    t1=$(date +%s.%N)
    SMCHECK_LIBCUDA=/nonexistent "$smcheck" "${args[@]}" "$tmp/u" >"$tmp/dir.json" 2>"$tmp/dir.err" || s2=$?
    t2=$(date +%s.%N)
    if python3 - "$tmp/wheel.json" "$tmp/dir.json" "$tmp/u" "$w" "$s1" "$s2" "$t0" "$t1" "$t2" <<'PY'
import json, sys
wj, dj, root, whl, s1, s2 = sys.argv[1:7]
t0, t1, t2 = map(float, sys.argv[7:10])
a = {l["path"].split("!", 1)[1]: l for l in json.load(open(wj))["inputs"][0]["libraries"]}
b = {l["path"][len(root) + 1:]: l for l in json.load(open(dj))["inputs"][0]["libraries"]}
for l in list(a.values()) + list(b.values()):
    l.pop("path")
differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
containers = sum(l["containers"] for l in a.values())
name = whl.rsplit("/", 1)[-1]
print("%s %s: %d libraries, %d containers, exit %s/%s, %.1f s as a wheel, %.1f s unpacked%s" % (
    "ok    " if not differ and s1 == s2 else "FAILED", name, len(a), containers, s1, s2,
    t1 - t0, t2 - t1, "; differ: " + ", ".join(differ[:6]) if differ else ""))
sys.exit(1 if differ or s1 != s2 else 0)
PY
    then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
