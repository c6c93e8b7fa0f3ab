#!/usr/bin/env bash
# Follows the README in a fresh Debian root: debootstrap SUITE (default trixie, Debian 13) into
# ROOT, copy the tracked files of this checkout into it, and run the README's two quick-start
# commands there as root (tools/quickstart.sh, which installs the packages, builds and judges the
# demo; then the test command, read from the README itself so the two cannot drift apart).
# Needs root, debootstrap and Debian's mirror. /proc, /sys and /dev are bound into the root for the
# run and unbound after it; ROOT is left for a look (delete it with rm -rf once unbound).
# Usage: tools/debian-root.sh [SUITE [ROOT]]   (ROOT defaults to build-SUITE/root)
set -euo pipefail
cd "$(dirname "$0")/.."
suite=${1:-trixie}
root=${2:-build-$suite/root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ ! -x "$root/usr/bin/apt-get" ]; then
    echo "== debootstrap $suite into $root"
    mkdir -p "$root"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        { tail -n 20 "$root.debootstrap.log"; exit 1; }
fi
echo "== the checkout's tracked files into $root/src"
rm -rf "$root/src"
mkdir -p "$root/src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"

mounted=()
unbind() {
    local m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap unbind EXIT
for m in proc sys dev dev/pts; do
    mkdir -p "$root/$m"
    mount --bind "/$m" "$root/$m"
    mounted+=("$root/$m")
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# The README's test command: the first line of its quick start that runs ctest.
test_command=$(sed -n '/^## Quick start/,/^## /p' README.md | grep -m1 '^ctest ' | sed 's/ *#.*//')
[ -n "$test_command" ] || { echo "no ctest command in the README's quick start" >&2; exit 1; }
echo "== in $suite: tools/quickstart.sh, then: $test_command"
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    TERM=dumb bash -c "cd /src && CMAKE_ARGS='${CMAKE_ARGS:-}' tools/quickstart.sh && \
        start=\$SECONDS && $test_command && echo \"the tests took \$((SECONDS - start)) s\""
