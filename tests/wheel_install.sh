#!/usr/bin/env bash
# Checks the wheels that tools/build-wheel.sh wrote: for each dist/smcheck_cuda-*-manylinux_*.whl (the
# distribution smcheck-cuda, whose command is smcheck), that its executable needs no glibc newer than its
# tag says (readelf; auditwheel show too where there is one), that it installs into a fresh venv with
# `pip install --no-index` as smcheck-cuda and answers --version from the venv's bin, that the installed
# executable passes tests/golden.sh and tests/gpus.sh, and that it judges the test wheels of
# tests/make_wheels.py exactly as the reference build does. x86_64 runs natively; aarch64
# through qemu-aarch64-static with /usr/aarch64-linux-gnu as its root (skipped, with a note, without them).
# Exit status: 0 all passed, 1 some check failed, 77 DIST_DIR holds no wheel (a skip for ctest).
# Usage: wheel_install.sh DIST_DIR SOURCE_DIR [REFERENCE_SMCHECK [STUB_LIBCUDA]]
#   (defaults: SOURCE_DIR/build/smcheck and SOURCE_DIR/build/tests/libcuda_stub.so)
set -euo pipefail

dist=$1 src=$2
ref=${3:-$src/build/smcheck}
stub=${4:-$src/build/tests/libcuda_stub.so}
shopt -s nullglob
wheels=("$dist"/smcheck_cuda-*-manylinux_*.whl)
if [ ${#wheels[@]} -eq 0 ]; then
    echo "skipped: no smcheck_cuda wheel in $dist (tools/build-wheel.sh writes them)"
    exit 77
fi
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host=$(uname -m)
version=$(sed -n 's/^project(smcheck VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
python3 "$src/tests/make_wheels.py" "$tmp/inputs" >/dev/null
# Every wheel, conda package, image and environment tree it writes (libzip and all of libarchive's filters).
inputs=("$tmp"/inputs/*)
auditwheel=$(command -v auditwheel || true)
[ -n "$auditwheel" ] || [ ! -x "$src/build-wheel/venv/bin/auditwheel" ] || auditwheel=$src/build-wheel/venv/bin/auditwheel

# The newest GLIBC_x.y version the file's dynamic symbols need, as "x.y".
max_glibc() { readelf -W --dyn-syms "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -n1; }
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n | head -n1)" = "$1" ]; }
# Both programs' stdout, stderr and exit status on the same arguments must be equal, but for the
# reason libzip gives for an archive it cannot open, which smcheck passes on: the wheel links the
# libzip of Debian 12's source, the reference build the system's (Debian 13's libzip 1.11 says
# "Possibly truncated or corrupted zip archive" where 1.9 says "Not a zip archive"). What smcheck
# decides, that the archive is not read, is compared.
libzip_reason() { sed -E 's/(not a readable zip archive: )[^"]*/\1(libzip'"'"'s reason)/'; }
same_output() { # PROGRAM ARGS...
    local p=$1
    shift
    local a b
    a=$("$p" "$@" 2>&1 | libzip_reason; echo "exit ${PIPESTATUS[0]}")
    b=$("$ref" "$@" 2>&1 | libzip_reason; echo "exit ${PIPESTATUS[0]}")
    [ "$a" = "$b" ] || { diff <(printf '%s\n' "$b") <(printf '%s\n' "$a") | head -20; return 1; }
}

# A local HTTPS index (tests/httpd.py with the certificate of fixtures/tls) serving the test wheels:
# the executable's own libcurl and OpenSSL read them as the reference build does.
tls=$src/fixtures/tls
python3 "$src/tests/httpd.py" "$tmp/inputs" --tls "$tls/cert.pem" "$tls/key.pem" >"$tmp/httpd.port" &
httpd=$!
trap 'kill "$httpd" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/httpd.port" ] && break; sleep 0.1; done
port=$(head -n1 "$tmp/httpd.port")
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1

for whl in "${wheels[@]}"; do
    name=$(basename "$whl")
    arch=${name##*manylinux_}
    arch=${arch#*_*_}
    arch=${arch%.whl}
    floor=$(sed 's/.*manylinux_\([0-9]*\)_\([0-9]*\)_.*/\1.\2/' <<<"$name")
    echo "== $name (floor glibc $floor, arch $arch)"
    w=$tmp/$arch
    mkdir -p "$w"
    case $arch in
    "$host")
        python3 -m venv "$w/venv"
        check "$arch: pip install --no-index into a fresh venv" \
            "$w/venv/bin/pip" install -q --no-index --disable-pip-version-check --root-user-action=ignore "$whl"
        check "$arch: pip show smcheck-cuda" sh -c "'$w/venv/bin/pip' show smcheck-cuda 2>/dev/null | grep -qx 'Name: smcheck-cuda'"
        check "$arch: python -m smcheck_cuda --version" sh -c "'$w/venv/bin/python' -m smcheck_cuda --version | grep -qF '$version'"
        exe=$w/venv/bin/smcheck
        run=$exe
        ;;
    aarch64)
        # pip will not install a foreign wheel into this host's venv; --target with --platform does.
        check "$arch: pip install --no-index --platform into a target folder" \
            python3 -m pip install -q --no-index --disable-pip-version-check --root-user-action=ignore --only-binary=:all: \
            --platform "manylinux_${floor/./_}_$arch" --target "$w/target" "$whl"
        exe=$w/target/bin/smcheck
        qemu=$(command -v qemu-aarch64-static || true)
        if [ -z "$qemu" ] || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
            echo "note: no qemu-aarch64-static or /usr/aarch64-linux-gnu: $arch runs skipped"
            run=
        else
            run=$w/smcheck-qemu
            printf '#!/bin/sh\nexec "%s" -L /usr/aarch64-linux-gnu "%s" "$@"\n' "$qemu" "$exe" >"$run"
            chmod +x "$run"
        fi
        ;;
    *)
        echo "note: no way to run $arch here: runs skipped"
        # Only the executable, for the readelf checks below.
        exe=$(unzip -Z1 "$whl" | grep '\.data/scripts/smcheck$' | head -n1 || true)
        if [ -n "$exe" ] && unzip -q -o "$whl" "$exe" -d "$w"; then exe=$w/$exe; fi
        run=
        ;;
    esac
    # The unrelated PyPI project smcheck installs a package smcheck/: none of our files may be its.
    check "$arch: its files are under smcheck_cuda/, none under smcheck/ (another project's)" \
        sh -c "unzip -Z1 '$whl' | grep -q '^smcheck_cuda/__main__.py\$' && ! unzip -Z1 '$whl' | grep -q '^smcheck/'"
    [ -f "$exe" ] || { echo "FAILED $arch: no installed executable"; failed=$((failed + 1)); continue; }
    g=$(max_glibc "$exe")
    echo "$arch: newest GLIBC symbol version needed: ${g:-none}"
    check "$arch: needs glibc <= $floor" version_le "${g:-0.0}" "$floor"
    check "$arch: links only glibc and the dynamic loader" \
        sh -c "! readelf -d '$exe' | grep NEEDED | grep -vE '\[(libc|libm|libdl|libpthread|librt)\.so\.[0-9]+\]|\[ld-linux[-a-z0-9_]*\.so\.[0-9]+\]'"
    if [ -n "$auditwheel" ]; then
        # auditwheel wraps its sentences; join the lines before reading the tag it names.
        out=$("$auditwheel" show "$whl" 2>&1 | tr -s ' \n' '  ' || true)
        tag=$(grep -oE 'consistent with the following platform tag: "[^"]*"' <<<"$out" | head -n1 || true)
        echo "$arch: auditwheel: ${tag:-$out}"
        check "$arch: auditwheel show: manylinux_2_28 or older" \
            grep -qE "\"(manylinux_2_(5|12|17|2[0-8])|manylinux(1|2010|2014))_$arch\"" <<<"$tag"
    fi
    [ -n "$run" ] || continue
    check "$arch: smcheck --version" sh -c "'$run' --version | grep -qF '$version'"
    sh "$src/tests/golden.sh" "$run" "$src/fixtures" "$src/tests/golden" >"$w/golden.log" 2>&1 || true
    echo "  $arch golden.sh ended with: $(tail -n1 "$w/golden.log")"
    if [ "$arch" = "$host" ]; then
        check "$arch: golden reports" sh -c "grep -qE '^[0-9]+ passed, 0 failed\$' '$w/golden.log' || { tail -40 '$w/golden.log'; exit 1; }"
    else
        # The golden files were written on x86_64, and `advise` answers for the machine's own platform
        # unless told (builds.c): those cases must differ on aarch64, every other one must pass. The
        # advice itself is compared below with --platform linux-x86_64.
        check "$arch: golden reports (all but the advise_* cases, which answer for linux-$arch)" \
            sh -c "grep -qE '^[0-9]+ passed, [0-9]+ failed\$' '$w/golden.log' && ! grep '^FAILED ' '$w/golden.log' | grep -v '^FAILED advise_'"
    fi
    grep '^FAILED ' "$w/golden.log" | sed "s/^/  $arch golden: /" || true
    if [ "$arch" = "$host" ] && [ -f "$stub" ]; then
        check "$arch: driver path (stub libcuda)" sh -c "sh '$src/tests/gpus.sh' '$run' '$stub' >'$w/gpus.log' 2>&1 || { tail -40 '$w/gpus.log'; exit 1; }"
    elif [ "$arch" = "$host" ]; then
        echo "note: no stub libcuda at $stub: driver path skipped"
    fi
    if [ -x "$ref" ]; then
        # --platform: images and advice depend on the platform, by default the machine's own; naming
        # one makes the aarch64 executable's answers comparable with the reference's.
        plat=(--platform linux-x86_64)
        for input in "${inputs[@]}"; do
            check "$arch: judges $(basename "$input") as $ref does" \
                same_output "$run" "${plat[@]}" --gpu h100,a100,sm_120,v100 --driver 12.8 "$input"
            check "$arch: judges $(basename "$input") as $ref does (json)" \
                same_output "$run" "${plat[@]}" --gpu h100,a100,sm_120,v100 --driver 12.8 --format json --detail "$input"
        done
        for input in "$tmp"/inputs/*.whl; do
            url=https://127.0.0.1:$port/files/$(basename "$input")
            SSL_CERT_FILE=$tls/cert.pem HOME=$w check "$arch: reads $(basename "$input") over HTTPS as $ref does" \
                same_output "$run" "${plat[@]}" --no-cache --gpu h100,sm_120 --format json "$url"
        done
        demo=https://127.0.0.1:$port/files/$(basename "$(ls "$tmp"/inputs/demo_cuda-*.whl)")
        check "$arch: a wheel read over HTTPS is judged, with no error" \
            sh -c "HOME='$w' SSL_CERT_FILE='$tls/cert.pem' '$run' --no-cache --gpu h100 '$demo' >'$w/https.out' 2>'$w/https.err'
                grep -q ', 4 libraries found$' '$w/https.out' && ! grep -q '^smcheck: https:' '$w/https.err'"
        check "$arch: an untrusted certificate is one error naming the URL" \
            sh -c "HOME='$w' SSL_CERT_FILE= CURL_CA_BUNDLE= '$run' --no-cache '$url' 2>&1 >/dev/null | grep -q '^smcheck: $url: .*certificate'"
        # The wheel's libcurl has no bundle of its own: it takes the first of the places distributions
        # keep theirs (remote.c). Each place alone, in a private /etc (a tmpfs in a mount namespace of
        # its own) holding the test certificate there and nothing else: the wheel is read with no
        # error naming its URL; with none of them, one error naming it.
        if [ "$arch" = "$host" ] && unshare -m true 2>/dev/null; then
            for bundle in /etc/ssl/certs/ca-certificates.crt /etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem \
                /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/ca-bundle.pem /etc/ssl/cert.pem; do
                check "$arch: the CA bundle found at $bundle" \
                    unshare -m sh -c "mount -t tmpfs none /etc && mkdir -p '${bundle%/*}' && cp '$tls/cert.pem' '$bundle' || exit 1
                        HOME='$w' SSL_CERT_FILE= CURL_CA_BUNDLE= '$run' --no-cache --gpu h100 '$demo' >'$w/ca.out' 2>'$w/ca.err'
                        grep -q ', 4 libraries found\$' '$w/ca.out' && ! grep -q '^smcheck: https:' '$w/ca.err' || { cat '$w/ca.err'; exit 1; }"
            done
            check "$arch: no CA bundle in any of those places: one error naming the URL" \
                unshare -m sh -c "mount -t tmpfs none /etc || exit 1
                    HOME='$w' SSL_CERT_FILE= CURL_CA_BUNDLE= '$run' --no-cache --gpu h100 '$demo' 2>&1 >/dev/null | grep -q '^smcheck: $demo: .*certificate'"
        elif [ "$arch" = "$host" ]; then
            echo "note: no mount namespace here (unshare -m): the CA bundle's places are not checked"
        fi
        builds=$src/tests/builds_fixture.tsv
        check "$arch: advise (RTX 5090) as $ref does" \
            same_output "$run" advise "${plat[@]}" --builds-table "$builds" --gpu "RTX 5090" --driver 570.124.06
        check "$arch: advise --detail (V100, H100) as $ref does" \
            same_output "$run" advise "${plat[@]}" --builds-table "$builds" --gpu v100,h100 --driver 13.0 --detail
        check "$arch: advise json (Orin) as $ref does" \
            same_output "$run" advise "${plat[@]}" --builds-table "$builds" --gpu orin --driver 12.6 --format json
    else
        echo "note: no reference smcheck at $ref: comparison skipped"
    fi
done
finish
