#!/usr/bin/env bash
# archive-members.sh [SMCHECK] [MEMBERS]
# An archive of many small members (a Windows import library holds tens of thousands: torch
# 1.8.0's torch_cpu.lib 33,748): smcheck's peak RSS reading one of MEMBERS (default 30000) tiny
# objects, against the same for 1,000 members; prints the memory
# each member costs (KiB), which must stay small (5.4 KiB on 2026-12-07, 31 KiB before a member's
# Zstandard context and back buffer were made only when needed).
set -euo pipefail
smcheck=$(realpath "${1:-build/smcheck}")
members=${2:-30000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_ar() { # N FILE
    python3 - "$1" "$2" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "wb") as f:
    f.write(b"!<arch>\n")
    for i in range(n):
        data = b"stub %d\n" % i + b"\0" * 40
        name = ("m%d.o/" % i).encode()[:16].ljust(16)
        f.write(name + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"644".ljust(8)
                + str(len(data)).encode().ljust(10) + b"`\n" + data + (b"\n" if len(data) & 1 else b""))
PY
}
rss() { /usr/bin/time -f %M "$smcheck" scan -q -j1 "$1" 2>&1 >/dev/null | tail -n1; }
make_ar 1000 "$work/small.a"
make_ar "$members" "$work/big.a"
small=$(rss "$work/small.a")
big=$(rss "$work/big.a")
python3 - "$small" "$big" "$members" <<'PY'
import sys
small, big, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print("archive of %d members: peak %d KiB; of 1,000: %d KiB; %.1f KiB a member"
      % (n, big, small, (big - small) / (n - 1000)))
PY
