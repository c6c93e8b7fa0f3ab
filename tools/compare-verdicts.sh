#!/usr/bin/env bash
# compare-verdicts.sh OLD NEW INPUT...
# What a change does to verdicts on real inputs: runs two smcheck binaries on each INPUT (wheels,
# libraries, directories, environments) against eight target/driver sets (the matrix without a
# GPU; B200 and RTX 5090 on 12.8; H100 on 12.4 and 13.0; V100; Orin on 12.6; B200 on 13.0) and
# prints, per input and library, what differs: its release, and per target its status, cause,
# reason, warnings and token sets; per distribution its CUDA and verdicts. Exits 1 when anything
# differs. Inputs are not in the repository: download wheels first (pip download --no-deps
# --only-binary=:all: --platform manylinux_2_28_x86_64 --python-version 3.11 torch==2.8.0).
set -euo pipefail

[ "$#" -ge 3 ] || { sed -n '2,9p' "$0" >&2; exit 64; }
old=$1 new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sets=("matrix:" "b200-12.8:--gpu 10.0 --driver 12.8" "rtx5090-12.8:--gpu 12.0 --driver 12.8"
      "h100-12.4:--gpu 9.0 --driver 12.4" "h100-13.0:--gpu 9.0 --driver 13.0" "v100:--gpu 7.0"
      "orin-12.6:--gpu 8.7 --driver 12.6" "b200-13.0:--gpu 10.0 --driver 13.0")
i=0
for input in "$@"; do
    for s in "${sets[@]}"; do
        name=${s%%:*}
        read -r -a opts <<<"${s#*:}"
        for which in old new; do
            bin=$old
            [ "$which" = new ] && bin=$new
            SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1 "$bin" "${opts[@]}" -q --format json \
                "$input" >"$tmp/$which.$i.$name.json" 2>/dev/null || true
        done
    done
    echo "$input" >"$tmp/input.$i"
    i=$((i + 1))
done

python3 - "$tmp" "$i" "${sets[@]%%:*}" <<'PY'
import json, os, sys
tmp, n, sets = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def facts(path):
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        return {"(report)": "unreadable: %s" % e}
    out = {}
    for inp in d.get("inputs", []):
        for lib in inp["libraries"]:
            out[lib["path"]] = (lib.get("release"),
                                [(v["status"], v["cause"], v.get("reason"), v.get("warnings"))
                                 for v in lib.get("verdicts") or []],
                                lib.get("token_sets"))
        for dist in inp.get("distributions") or []:
            out["distribution " + dist["name"]] = (
                dist.get("cuda"), [(v["status"], v.get("reason")) for v in dist.get("verdicts") or []])
    return out

differ = 0
for i in range(n):
    inp = open(os.path.join(tmp, "input.%d" % i)).read().strip()
    for s in sets:
        a = facts(os.path.join(tmp, "old.%d.%s.json" % (i, s)))
        b = facts(os.path.join(tmp, "new.%d.%s.json" % (i, s)))
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                differ += 1
                print("%s [%s] %s\n  old: %s\n  new: %s" % (inp, s, k, a.get(k), b.get(k)))
print("%d differences in %d inputs x %d target sets" % (differ, n, len(sets)))
sys.exit(1 if differ else 0)
PY
