#!/usr/bin/env bash
# judgecheck.sh SMCHECK PATH...
# Judges PATH... with smcheck and with the independent reference judge
# verdict_ref.py against the targets 7.5,8.6,8.9,9.0,10.0,10.3,11.0,12.0,12.1,
# once with no driver, once with a CUDA 12.8 driver and once with a CUDA 13.0
# driver (SMCHECK_LIBCUDA=/nonexistent, so no local driver takes part), and
# compares the status and containers_by_verdict of every library x target.
# Prints one line per difference (or "ok" per library and driver setting),
# checks the exit status (1 exactly when some library is none, or gated: with no distribution
# to own it, a library of only gated code cannot run at all; 2 not checked),
# then "N passed, M failed"; exits 1 on any difference.
# Environment: JUDGECHECK_TARGETS and JUDGECHECK_DRIVERS ("none 12.8 13.0")
# override the lists.
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
targets=${JUDGECHECK_TARGETS:-7.5,8.6,8.9,9.0,10.0,10.3,11.0,12.0,12.1}
drivers=${JUDGECHECK_DRIVERS:-none 12.8 13.0}
popt=()
[ -z "${JUDGECHECK_PLATFORM:-}" ] || popt=(--platform "$JUDGECHECK_PLATFORM")

for d in $drivers; do
    dopt=()
    [ "$d" = none ] || dopt=(--driver "$d")
    rc=0
    SMCHECK_LIBCUDA=/nonexistent "$smcheck" --gpu "$targets" "${dopt[@]}" "${popt[@]}" \
        --format json "$@" \
        >"$tmp/smcheck.$d.json" 2>"$tmp/smcheck.$d.err" || rc=$?
    # 0 and 1 are verdicts; 2 means some input had malformed device code
    echo "$rc" >"$tmp/smcheck.$d.rc"
    if [ "$rc" -gt 2 ]; then
        echo "note: $smcheck exited with status $rc (driver $d)" >&2
        sed 's/^/  smcheck: /' "$tmp/smcheck.$d.err" | head -20 >&2
    fi
    python3 "$here/verdict_ref.py" --gpu "$targets" "${dopt[@]}" "${popt[@]}" "$@" \
        >"$tmp/ref.$d.json" 2>"$tmp/ref.$d.err"
done

PYTHONPATH="$here" python3 - "$tmp" "$targets" $drivers <<'PY'
import os, sys

tmp, targets, drivers = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]

from compare import key, load

def index(libs):
    out = {}
    for lib in libs:
        vs = {}
        for v in lib.get("verdicts") or []:
            vs[int(v["target"])] = (v.get("status"),
                {k: int(n) for k, n in (v.get("containers_by_verdict") or {}).items() if int(n)})
        out[key(lib["path"])] = (lib["path"], vs)
    return out

def fmt(c):
    return " ".join("%s:%d" % kv for kv in sorted(c.items())) or "-"

passed = failed = 0
for d in drivers:
    sm = load(os.path.join(tmp, "smcheck.%s.json" % d), "smcheck")
    ref = load(os.path.join(tmp, "ref.%s.json" % d), "the reference judge")
    a = index([l for inp in sm.get("inputs", []) for l in inp.get("libraries", [])
               if sum(c["count"] for c in l["token_counts"]) or l.get("containers")])
    b = index(ref["libraries"])
    for k in sorted(set(a) | set(b)):
        pa, va = a.get(k, (None, {}))
        pb, vb = b.get(k, (None, {}))
        name = pa or pb
        lines = []
        if pa is None:
            lines.append("missing from smcheck")
        elif pb is None:
            lines.append("not judged by the reference")
        else:
            for t, cc in enumerate(targets):
                sa, ca = va.get(t, (None, {}))
                sb, cb = vb.get(t, (None, {}))
                if sa != sb or ca != cb:
                    lines.append("%s: status %s / %s; smcheck {%s} reference {%s}"
                                 % (cc, sa, sb, fmt(ca), fmt(cb)))
        if lines:
            failed += 1
            for l in lines:
                print("%s [driver %s]: FAIL %s" % (name, d, l))
        else:
            passed += 1
            print("%s [driver %s]: ok" % (name, d))
    # Compilers used at run time (issue 25): the target each is asked for, and whether it knows
    # it, per target, against the roll-ups' compiler objects.
    sa = {}
    for inp in sm.get("inputs", []):
        for owner in inp.get("distributions", []) + [inp]:
            for v in owner.get("verdicts", []):
                c = v.get("compiler")
                if c and not c["override"]:
                    sa[(key(c["path"]), v["target"])] = (c["target"], c["knows"])
    sb = {(key(c["path"]), r["target"]): (r["name"], r["knows"])
          for c in ref.get("compilers", []) for r in c["targets"]}
    for k in sorted(set(sa) | set(sb)):
        if sa.get(k) != sb.get(k):
            failed += 1
            print("compiler %s %s [driver %s]: FAIL smcheck %s, reference %s"
                  % (k[0], targets[k[1]], d, sa.get(k), sb.get(k)))
        else:
            passed += 1
    # DESIGN.md: exit 1 exactly when some library is none (default --fail-on
    # none), or a compiler does not know a target; 2 (unreadable or malformed input) beats 1, so
    # only 0/1 are checked
    rc = int(open(os.path.join(tmp, "smcheck.%s.rc" % d)).read())
    want = 1 if any(v["status"] in ("none", "gated")
                    for l in ref["libraries"] for v in l["verdicts"]) or \
        any(r["knows"] is False for c in ref.get("compilers", []) for r in c["targets"]) else 0
    if rc in (0, 1) and rc != want:
        failed += 1
        print("exit status [driver %s]: FAIL smcheck %d, expected %d" % (d, rc, want))
    elif rc in (0, 1):
        passed += 1
        print("exit status [driver %s]: ok (%d)" % (d, rc))
    else:
        print("exit status [driver %s]: %d (not checked: an input was unreadable or malformed)" % (d, rc))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
