#!/usr/bin/env bash
# Builds the smcheck wheels and tarballs that pip, `uv tool install smcheck-cuda` and
# `uvx --from smcheck-cuda smcheck` take on any glibc Linux with glibc 2.28 or newer (manylinux_2_28, the
# floor of PyTorch's wheels). The distribution is smcheck-cuda (the PyPI name smcheck is someone else's);
# the command it installs is smcheck:
#   dist/smcheck_cuda-VERSION-py3-none-manylinux_2_28_ARCH.whl   (the binary as smcheck_cuda-VERSION.data/scripts/smcheck)
#   dist/smcheck-VERSION-linux-ARCH.tar.gz                       (the same binary and its licenses, for images)
# Every dependency is compiled as a static library from its Debian (bookworm) source package with zig's C
# compiler targeting glibc 2.28, and linked into one executable that needs only glibc (libcuda.so.1 is
# still loaded at run time with dlopen). Nothing of the host's own -dev packages is linked in.
# Usage (from anywhere in a checkout): tools/build-wheel.sh [x86_64|aarch64|all]   (default: all)
# Installing the build packages with apt-get needs root (SKIP_APT=1 skips that when they are there);
# qemu-user-static and libc6-arm64-cross, which tests/wheel_install.sh runs the aarch64 binary with, only
# when aarch64 is built. The Debian sources come through a private apt state under build-wheel/apt, so
# /etc/apt and the host's package lists stay as they are. Everything it builds lives under build-wheel/
# (that apt state, the Python venv with ziglang and auditwheel, the sources, one prefix per arch: about
# 1.1 GiB for x86_64, 1.7 GiB for both; `rm -rf build-wheel` frees it); the results go to dist/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build-wheel
dist=$root/dist
jobs=2
case "${1:-all}" in
x86_64 | aarch64) arches=$1 ;;
all) arches="x86_64 aarch64" ;;
*)
    echo "usage: $0 [x86_64|aarch64|all]" >&2
    exit 64
    ;;
esac
version=$(sed -n 's/^project(smcheck VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "$0: no project(VERSION) in CMakeLists.txt" >&2; exit 1; }
# The Debian source packages, by source name; the versions are whatever bookworm has.
sources="zlib bzip2 xz-utils elfutils libzip cjson libyaml lz4 libzstd libarchive libisal openssl curl"
log() { printf '[build-wheel %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# --- the host: apt packages, the Debian sources, the venv ----------------------------------------
# dpkg-dev: dpkg-source; debian-archive-keyring: the key the private deb-src entries name; nasm: ISA-L's
# x86_64 assembly; perl (with its core modules): OpenSSL's Configure; python3-venv: the private venv. qemu-user-static and libc6-arm64-cross run the aarch64
# binary here (tests/wheel_install.sh), so they come only with aarch64.
packages="dpkg-dev debian-archive-keyring make cmake pkg-config nasm perl python3 python3-venv"
case " $arches " in
*" aarch64 "*) packages="$packages qemu-user-static libc6-arm64-cross" ;;
esac
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# apt-get with a private state under build-wheel/apt: its own sources list (no parts, no pins), package
# lists and caches, so that `apt-get update` and `apt-get source` leave /etc/apt, /var/lib/apt/lists and
# /var/cache/apt as they are, and need no root. Its only entries are Debian bookworm's deb-src, whatever
# the host runs: the wheel's libraries are deliberately bookworm's (the host's codename plays no part).
apt_private() { # APT-GET ARGS...
    local d=$work/apt
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty"
    printf '%s\n' "# written by tools/build-wheel.sh: the sources of the libraries in the wheel" \
        "deb-src [signed-by=$keyring] http://deb.debian.org/debian bookworm main" \
        "deb-src [signed-by=$keyring] http://deb.debian.org/debian bookworm-updates main" >"$d/sources.list"
    apt-get -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts="$d/empty" \
        -o Dir::Etc::Preferences="$d/empty/none" -o Dir::Etc::PreferencesParts="$d/empty" \
        -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" "$@"
}

setup_host() {
    if [ "${SKIP_APT:-}" != 1 ]; then
        local p missing=
        for p in $packages; do
            dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' || missing="$missing $p"
        done
        if [ -z "$missing" ]; then
            log "the build packages are installed"
        elif [ "$(id -u)" != 0 ]; then
            echo "$0: not root: as root, apt-get install$missing (or set SKIP_APT=1 to skip apt)" >&2
            exit 1
        else
            log "apt-get install$missing"
            apt-get update -q
            # shellcheck disable=SC2086 # a list of package names
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
        fi
    fi
    [ -r "$keyring" ] || { echo "$0: no $keyring: apt-get install debian-archive-keyring" >&2; exit 1; }
    if [ ! -x "$work/venv/bin/python" ]; then
        log "creating the venv with ziglang and auditwheel"
        python3 -m venv "$work/venv"
        "$work/venv/bin/pip" install -q --no-cache-dir ziglang==0.17.1 auditwheel==6.8.2 # the versions it was made with
    fi
    # The zig binary that `python -m ziglang` runs; the wrappers exec it directly (no Python per call).
    zig=$("$work/venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
    [ -x "$zig" ] || { echo "$0: no zig in the ziglang package" >&2; exit 1; }
    export ZIG_GLOBAL_CACHE_DIR=$work/zig-cache ZIG_LOCAL_CACHE_DIR=$work/zig-cache
    mkdir -p "$work/dl"
    local s updated=
    for s in $sources; do
        if ! ls "$work/dl/${s}"_*.dsc >/dev/null 2>&1; then
            if [ -z "$updated" ]; then
                log "apt-get update of bookworm's deb-src (private: build-wheel/apt)"
                apt_private update -q
                updated=1
            fi
            log "apt-get source $s"
            (cd "$work/dl" && apt_private source -q --download-only "$s")
        fi
    done
}

# --- per arch: compiler wrappers, toolchain file, unpacked sources ---------------------------------
setup_arch() { # ARCH
    arch=$1
    a=$work/$arch
    prefix=$a/prefix
    rm -rf "$a"
    mkdir -p "$a/bin" "$a/src" "$prefix/lib/pkgconfig" "$prefix/include"
    # -O2 first so that configure probes are optimised too; zig cc turns UBSan traps on without -O.
    local t
    for t in cc ar ranlib; do
        case $t in
        cc) body="exec \"$zig\" cc -target $arch-linux-gnu.2.28 -O2 -fno-sanitize=undefined \"\$@\"" ;;
        *) body="exec \"$zig\" $t \"\$@\"" ;;
        esac
        printf '#!/bin/sh\n# zig %s for %s-linux-gnu.2.28 (written by tools/build-wheel.sh)\nexport ZIG_GLOBAL_CACHE_DIR="%s" ZIG_LOCAL_CACHE_DIR="%s"\n%s\n' \
            "$t" "$arch" "$ZIG_GLOBAL_CACHE_DIR" "$ZIG_LOCAL_CACHE_DIR" "$body" >"$a/bin/$t"
        chmod +x "$a/bin/$t"
    done
    cc=$a/bin/cc ar=$a/bin/ar ranlib=$a/bin/ranlib
    # Cross mode even for x86_64: CMake then finds libraries and headers only in the prefix.
    cat >"$a/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER $cc)
set(CMAKE_AR $ar CACHE FILEPATH "")
set(CMAKE_RANLIB $ranlib CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH $prefix)
set(CMAKE_PREFIX_PATH $prefix)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
EOF
    export PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig PKG_CONFIG_PATH=
    local dsc
    for dsc in "$work"/dl/*.dsc; do
        (cd "$a/src" && dpkg-source -q -x "$dsc" >/dev/null)
    done
    cflags="-O2 -fPIC -g0"
}

srcdir() { ls -d "$a/src/$1"-*/ | head -n1; }

cmake_dep() { # SOURCE_DIR ARGS...   (with only=TARGET: builds that target alone and installs nothing)
    local s=$1
    shift
    cmake -S "$s" -B "$s/_build" -DCMAKE_TOOLCHAIN_FILE="$a/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
        -DCMAKE_C_FLAGS="$cflags" "$@" >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
    cmake --build "$s/_build" -j"$jobs" ${only:+--target "$only"} >>"$s/_build.log" 2>&1 ||
        { tail -40 "$s/_build.log"; return 1; }
    [ -n "${only:-}" ] || cmake --install "$s/_build" >>"$s/_build.log" 2>&1
}

build_zlib() {
    local s
    s=$(srcdir zlib)
    (cd "$s" && CC=$cc AR=$ar RANLIB=$ranlib CFLAGS="$cflags" ./configure --static --prefix="$prefix" &&
        make -j"$jobs" libz.a && make install) >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
}

build_bzip2() {
    local s
    s=$(srcdir bzip2)
    make -C "$s" -j"$jobs" CC="$cc" AR="$ar" RANLIB="$ranlib" CFLAGS="$cflags -D_FILE_OFFSET_BITS=64" libbz2.a \
        >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
    cp "$s/libbz2.a" "$prefix/lib/"
    cp "$s/bzlib.h" "$prefix/include/"
    local v
    v=$(sed -n 's/.*bzip2-\([0-9.]*\).*/\1/p' <<<"$s" | head -n1)
    printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: bzip2\nDescription: bzip2 compression library\nVersion: %s\nLibs: -L${libdir} -lbz2\nCflags: -I${includedir}\n' \
        "$prefix" "$v" >"$prefix/lib/pkgconfig/bzip2.pc"
}

# liblzma alone: smcheck's conda reader asks libarchive for its xz filter and takes a refusal (no
# liblzma: "use the external xz program") as an error.
build_xz() {
    local s
    s=$(srcdir xz-utils)
    (cd "$s" && ./configure --host="$arch-linux-gnu" --prefix="$prefix" --libdir="$prefix/lib" CC="$cc" AR="$ar" \
        RANLIB="$ranlib" CFLAGS="$cflags" --enable-static --disable-shared --disable-xz --disable-xzdec \
        --disable-lzmadec --disable-lzmainfo --disable-lzma-links --disable-scripts --disable-doc --disable-nls \
        --disable-rpath && make -j"$jobs" -C src/liblzma && make -C src/liblzma install) >"$s/_build.log" 2>&1 ||
        { tail -40 "$s/_build.log"; return 1; }
}

# elfutils' autotools insist on gcc; libelf alone is plain C that clang compiles: its sources (from
# libelf/Makefile.am) with a config.h that states what glibc 2.28 has.
build_libelf() {
    local s v f objs=()
    s=$(srcdir elfutils)
    v=$(sed -n 's/^AC_INIT(\[Red Hat elfutils\],\[\([0-9.]*\)\].*/\1/p' "$s/configure.ac")
    mkdir -p "$s/_build"
    cat >"$s/_build/config.h" <<EOF
/* config.h for libelf alone, written by tools/build-wheel.sh (glibc 2.28, zlib, no NLS). */
#define PACKAGE_NAME "elfutils"
#define PACKAGE "elfutils"
#define PACKAGE_VERSION "$v"
#define VERSION "$v"
#define PACKAGE_URL "http://elfutils.org/"
#define HAVE_DECL_MEMPCPY 1
#define HAVE_DECL_MEMRCHR 1
#define HAVE_DECL_RAWMEMCHR 1
#define HAVE_DECL_POWEROF2 1
#define HAVE_DECL_REALLOCARRAY 1
#define HAVE_ERROR_H 1
#define HAVE_ERR_H 1
#define HAVE_FALLTHROUGH 1
#define HAVE_MREMAP 1
#define HAVE_VISIBILITY 1
#define HAVE_STDATOMIC_H 1
#define USE_ZLIB 1
#define SIZEOF_LONG __SIZEOF_LONG__
#define _FILE_OFFSET_BITS 64
/* What elfutils' config.h.in ends with (AH_BOTTOM): internal_function and friends. */
#include <eu-config.h>
EOF
    local list
    list=$(sed -n '/^libelf_a_SOURCES/,/[^\\]$/p' "$s/libelf/Makefile.am" | sed 's/libelf_a_SOURCES *=//; s/\\//g')
    for f in $list; do
        objs+=("$s/_build/${f%.c}.o")
    done
    for f in $list; do
        printf '%s\0%s\0' "$s/libelf/$f" "$s/_build/${f%.c}.o"
    done | xargs -0 -n2 -P"$jobs" sh -c '"$0" '"$cflags"' -std=gnu11 -D_GNU_SOURCE -DHAVE_CONFIG_H -I"$1" -I"$2" -I"$3" -I"$4" -c "$5" -o "$6"' \
        "$cc" "$s/_build" "$s/libelf" "$s/lib" "$prefix/include" >"$s/_build.log" 2>&1 ||
        { tail -40 "$s/_build.log"; return 1; }
    rm -f "$prefix/lib/libelf.a"
    "$ar" rcs "$prefix/lib/libelf.a" "${objs[@]}"
    cp "$s/libelf/libelf.h" "$s/libelf/gelf.h" "$s/libelf/nlist.h" "$prefix/include/"
    printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: libelf\nDescription: elfutils libelf\nVersion: %s\nRequires.private: zlib\nLibs: -L${libdir} -lelf\nCflags: -I${includedir}\n' \
        "$prefix" "$v" >"$prefix/lib/pkgconfig/libelf.pc"
}

build_libzip() {
    cmake_dep "$(srcdir libzip)" -DENABLE_COMMONCRYPTO=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF \
        -DENABLE_OPENSSL=OFF -DENABLE_WINDOWS_CRYPTO=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF \
        -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF
}

build_cjson() {
    cmake_dep "$(srcdir cjson)" -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF
}

# libyaml (skylos's gpu-targets.yml): its CMake build installs no yaml-0.1.pc, so it is written here.
build_libyaml() {
    cmake_dep "$(srcdir libyaml)" -DBUILD_TESTING=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 || return 1
    printf '%s\n' "prefix=$prefix" 'libdir=${prefix}/lib' 'includedir=${prefix}/include' "" \
        "Name: LibYAML" "Description: YAML parser (built by tools/build-wheel.sh)" "Version: 0.2.5" \
        'Cflags: -I${includedir}' 'Libs: -L${libdir} -lyaml' >"$prefix/lib/pkgconfig/yaml-0.1.pc"
}

build_lz4() {
    local s
    s=$(srcdir lz4)
    make -C "$s/lib" -j"$jobs" CC="$cc" AR="$ar" CFLAGS="$cflags" BUILD_SHARED=no PREFIX="$prefix" \
        liblz4.a install >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
}

build_zstd() {
    local s
    s=$(srcdir libzstd)
    make -C "$s/lib" -j"$jobs" CC="$cc" AR="$ar" CFLAGS="$cflags" PREFIX="$prefix" \
        libzstd.a install-static install-pc install-includes >"$s/_build.log" 2>&1 ||
        { tail -40 "$s/_build.log"; return 1; }
}

# libarchive: only the compression filters smcheck's inputs use (gzip via zlib, bzip2, xz, zstd, lz4);
# no crypto, XML, ACL, xattr, iconv, and none of its programs.
build_libarchive() {
    local s
    s=$(srcdir libarchive)
    only=archive_static cmake_dep "$s" -DENABLE_ZLIB=ON -DENABLE_BZip2=ON -DENABLE_ZSTD=ON -DENABLE_LZ4=ON -DENABLE_LZMA=ON \
        -DENABLE_LZO=OFF -DENABLE_LIBB2=OFF -DENABLE_OPENSSL=OFF -DENABLE_MBEDTLS=OFF -DENABLE_NETTLE=OFF \
        -DENABLE_CNG=OFF -DENABLE_LIBXML2=OFF -DENABLE_EXPAT=OFF -DENABLE_PCREPOSIX=OFF -DENABLE_LibGCC=OFF \
        -DENABLE_ACL=OFF -DENABLE_XATTR=OFF -DENABLE_ICONV=OFF -DENABLE_TAR=OFF -DENABLE_CPIO=OFF \
        -DENABLE_CAT=OFF -DENABLE_TEST=OFF -DENABLE_COVERAGE=OFF -DENABLE_WERROR=OFF
    # Its CMake always builds the shared library too, so only the static target is built, and installed here.
    cp "$s/_build/libarchive/libarchive.a" "$prefix/lib/"
    cp "$s/libarchive/archive.h" "$s/libarchive/archive_entry.h" "$prefix/include/"
    cp "$s/_build/build/pkgconfig/libarchive.pc" "$prefix/lib/pkgconfig/"
}

build_isal() {
    local s v isa
    s=$(srcdir libisal)
    case $arch in
    x86_64) isa="arch= host_cpu=x86_64 AS=nasm" ;;
    aarch64)
        isa="arch=aarch64 host_cpu=aarch64"
        # Two operands that GNU as accepts and LLVM's assembler (zig cc) rejects: a 32-bit extend of an X
        # register, and uxtw written with W registers only. Same instructions, spelled as LLVM wants.
        sed -i 's/x_dist, uxtw/w_dist, uxtw/' "$s/igzip/aarch64/gen_icf_map.S"
        sed -i 's/uxtw[[:space:]]*read_in_length,[[:space:]]*read_in_length/uxtw\tx_read_in_length,w_read_in_length/' \
            "$s/igzip/aarch64/igzip_decode_huffman_code_block_aarch64.S"
        ;;
    esac
    # shellcheck disable=SC2086 # $isa is a list of make variables
    make -C "$s" -f Makefile.unx -j"$jobs" units=igzip CC="$cc" AR="$ar" $isa lib \
        >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
    cp "$s/bin/isa-l.a" "$prefix/lib/libisal.a"
    mkdir -p "$prefix/include/isa-l"
    cp "$s"/include/*.h "$prefix/include/isa-l/"
    v=$(sed -n 's/^AC_INIT(\[libisal\],\s*\[\([0-9.]*\)\].*/\1/p' "$s/configure.ac")
    printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: libisal\nDescription: Intel ISA-L (igzip)\nVersion: %s\nLibs: -L${libdir} -lisal\nCflags: -I${includedir}\n' \
        "$prefix" "${v:-0}" >"$prefix/lib/pkgconfig/libisal.pc"
}

# OpenSSL's libraries alone (curl's TLS and smcheck's SHA-256), nothing loaded at run time (no
# modules, engines or DSOs). OPENSSLDIR is Debian's /etc/ssl; smcheck itself finds the certificate
# bundle of the distribution it runs on (remote.c), as this curl is built without one.
build_openssl() {
    local s target
    s=$(srcdir openssl)
    case $arch in
    x86_64) target=linux-x86_64 ;;
    aarch64) target=linux-aarch64 ;;
    esac
    (cd "$s" && ./Configure "$target" no-shared no-tests no-module no-dso no-engine no-legacy no-comp \
        no-ssl3 no-dtls no-srp no-psk no-gost no-idea no-seed no-mdc2 no-md4 no-rc2 no-rc4 no-rc5 \
        no-whirlpool no-camellia no-aria no-sm2 no-sm3 no-sm4 --prefix="$prefix" --libdir=lib \
        --openssldir=/etc/ssl CC="$cc" AR="$ar" RANLIB="$ranlib" &&
        make -j"$jobs" build_libs && make install_dev) >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
}

# libcurl: HTTP and HTTPS only (OpenSSL, zlib for compressed index pages), the threaded resolver,
# IPv6, proxies and .netrc; no HTTP/2 (one wheel is one stream), IDN, PSL, SSH or GSS-API.
build_curl() {
    local s
    s=$(srcdir curl)
    (cd "$s" && ./configure --host="$arch-linux-gnu" --prefix="$prefix" --libdir="$prefix/lib" CC="$cc" AR="$ar" \
        RANLIB="$ranlib" CFLAGS="$cflags" CPPFLAGS="-I$prefix/include" LDFLAGS="-L$prefix/lib" \
        --disable-shared --enable-static --enable-ipv6 --with-openssl="$prefix" --with-zlib="$prefix" \
        --without-zstd --without-brotli --without-libpsl --without-nghttp2 --without-libidn2 \
        --without-librtmp --without-libssh2 --without-libgsasl --without-gssapi --disable-ldap \
        --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp --disable-pop3 \
        --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt --disable-ftp \
        --disable-file --disable-manual --disable-docs --disable-ntlm --disable-ntlm-wb \
        --without-ca-bundle --without-ca-path &&
        make -j"$jobs" -C lib && make -C lib install && make -C include install &&
        make install-pkgconfigDATA) >"$s/_build.log" 2>&1 || { tail -40 "$s/_build.log"; return 1; }
}

# The license of every library linked in: Debian's copyright file and the upstream ones.
collect_licenses() { # DEST
    local d=$1 s f
    rm -rf "$d"
    mkdir -p "$d"
    cp "$root/LICENSE" "$d/LICENSE"
    for pair in zlib:zlib:LICENSE bzip2:bzip2:LICENSE xz-utils:xz:COPYING elfutils:elfutils:COPYING-LGPLV3,COPYING-GPLV2,COPYING \
        libzip:libzip:LICENSE cjson:cjson:LICENSE libyaml:libyaml:License lz4:lz4:lib/LICENSE libzstd:zstd:LICENSE,COPYING \
        libarchive:libarchive:COPYING libisal:isa-l:LICENSE openssl:openssl:LICENSE.txt curl:curl:COPYING; do
        IFS=: read -r pkg name files <<<"$pair"
        [ "$pkg" != libisal ] || [ "$isal" = ON ] || continue
        s=$(srcdir "$pkg")
        cp "$s/debian/copyright" "$d/$name.debian-copyright"
        IFS=, read -r -a fl <<<"$files"
        for f in "${fl[@]}"; do
            [ -f "$s/$f" ] && cp "$s/$f" "$d/$name.$(basename "$f")"
        done
    done
}

build_arch() { # ARCH
    local t0 t1 b
    t0=$(date +%s)
    setup_arch "$1"
    # ISA-L's inflate is the fast path; a target whose ISA-L does not build falls back to zlib.
    isal=ON
    for dep in zlib bzip2 xz libelf libzip cjson libyaml lz4 zstd libarchive openssl curl; do
        log "$arch: $dep"
        "build_$dep"
    done
    log "$arch: isa-l"
    if ! build_isal; then
        log "$arch: ISA-L did not build with zig cc; building smcheck with -DSMCHECK_ISAL=OFF"
        isal=OFF
    fi
    log "$arch: smcheck"
    b=$a/smcheck
    cmake -S "$root" -B "$b" -DCMAKE_TOOLCHAIN_FILE="$a/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_TESTING=OFF -DSMCHECK_STATIC_DEPS=ON -DSMCHECK_ISAL=$isal -DCMAKE_EXE_LINKER_FLAGS="-s -pie" \
        >"$a/smcheck.log" 2>&1 || { tail -40 "$a/smcheck.log"; return 1; }
    cmake --build "$b" -j"$jobs" --target smcheck >>"$a/smcheck.log" 2>&1 || { tail -40 "$a/smcheck.log"; return 1; }
    collect_licenses "$a/licenses"
    mkdir -p "$dist"
    "$work/venv/bin/python" "$root/tools/make-wheel.py" --binary "$b/smcheck" --version "$version" \
        --arch "$arch" --licenses "$a/licenses" --dist "$dist"
    t1=$(date +%s)
    log "$arch: done in $((t1 - t0)) s (ISA-L $isal); binary $(stat -c %s "$b/smcheck") bytes"
    "$work/venv/bin/auditwheel" show "$dist/smcheck_cuda-$version-py3-none-manylinux_2_28_$arch.whl" || true
}

# Disk, measured on Debian 12 (du of build-wheel/ after a build): about 610 MiB shared (the venv 440,
# zig's cache 110, the Debian sources and their apt lists 60) and 525 MiB per arch (unpacked sources and
# objects, curl's and OpenSSL's 310 of them, the prefix); dist/ gets about 5 MiB per arch.
narch=$(wc -w <<<"$arches")
log "disk: needs about $((610 + narch * 525)) MiB under build-wheel/ and $((narch * 5)) MiB in dist/"
setup_host
for arch in $arches; do
    build_arch "$arch"
done
ls -l "$dist"
log "disk used:"
du -sh "$work" "$dist"
log "\`rm -rf $work\` frees the space build-wheel/ takes; the results are in dist/"
