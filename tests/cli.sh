#!/bin/sh
# Tests of the smcheck command as a user meets it: exit statuses, one-line diagnostics that name
# the file, and runs that go on past bad inputs (missing, unreadable, FIFOs, symlink loops).
# Usage: cli.sh SMCHECK FIXTURES_DIR
set -u
smcheck=$1 fixtures=$2
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
# advise reads the active environment's torch: an empty one, whatever this machine has.
mkdir "$tmp/noenv"
VIRTUAL_ENV=$tmp/noenv
export VIRTUAL_ENV

. "$(dirname "$0")/lib.sh"

# run ARGS...: runs smcheck with a time limit; sets $status, $out, $err.
run() {
    SMCHECK_LIBCUDA=/nonexistent/libcuda.so.1 timeout 60 "$smcheck" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}
# all CONDITION...: each argument a shell condition, all must hold (check runs one command).
all() { for c in "$@"; do eval "$c" || return 1; done; }
lines() { printf '%s\n' "$1" | grep -c .; }

run --help
check "--help exits 0" status_is 0
for opt in --gpu --driver --fail-on --format --detail --verify --jobs --output --gpu-table --platform --builds-table --one-file-system --exclude --list --version --help; do
    check "--help lists $opt" has "$out" "$opt"
done
run --version
check "--version" has "$out" "smcheck 0."

mkdir -p "$tmp/venv/lib/python3.12/site-packages/pkg"
cp "$fixtures/nvcc/multi.so" "$tmp/venv/lib/python3.12/site-packages/pkg/libx.so"
VIRTUAL_ENV=$tmp/venv run scan
check "no PATH: the active virtual environment is scanned" has "$out" "$tmp/venv/lib/python3.12/site-packages/pkg/libx.so: 4 containers"
check "no PATH: the report says which input and why" has "$out" "input: the active virtual environment, VIRTUAL_ENV=$tmp/venv"
run --format yaml "$fixtures/nvcc/multi.so"
check "unknown format is a usage error (64)" status_is 64
check "unknown format names the value" has "$err" "unknown format 'yaml'"
run --jobs 0 "$fixtures/nvcc/multi.so"
check "--jobs 0 is a usage error (64)" status_is 64
run --drvier 12.8 "$fixtures/nvcc/multi.so"
check "a misspelt option: a usage error that names the nearest (64)" all 'status_is 64' \
    'has "$err" "unknown option '"'"'--drvier'"'"' (did you mean --driver?)"'
run --fail-om=none "$fixtures/nvcc/multi.so"
check "a misspelt option with its value: the nearest" has "$err" "(did you mean --fail-on?)"
run --frobnicate "$fixtures/nvcc/multi.so"
check "an option near none: no guess" all 'status_is 64' 'lacks "$err" "did you mean"'

run scan "$fixtures/nvcc/multi.so"
check "a good library exits 0" status_is 0
check "nothing on stderr for a good library" [ -z "$err" ]
run "$fixtures/nvcc/multi.so"
check "without 'scan' it judges: the representative matrix" has "$out" "partial partial"
check "the matrix is for information: exit 0" status_is 0

run scan "$tmp/missing.so" "$fixtures/nvcc/multi.so"
check "a missing input exits 2" status_is 2
check "the missing input is named on one line" [ "$err" = "smcheck: $tmp/missing.so: No such file or directory" ]
check "the run goes on after a missing input" has "$out" "multi.so: 4 containers"

run scan "$fixtures/gen/bad_fatsize.so" "$fixtures/nvcc/multi.so"
check "a malformed library exits 2" status_is 2
check "its finding names the file and offset" has "$err" "smcheck: $fixtures/gen/bad_fatsize.so: at 0x388: container in .nv_fatbin"
check "its valid container is still listed" has "$out" "bad_fatsize.so: 1 container, 2 images"
check "the next file is still listed" has "$out" "multi.so: 4 containers"

mkfifo "$tmp/fifo"
run scan "$tmp/fifo"
check "a FIFO given by name exits 2" status_is 2
check "a FIFO given by name is refused" has "$err" "fifo: not a regular file or directory"

# A tree with a symlink loop, a dangling link, a FIFO and a link out of the tree: none is
# followed or opened, and the walk still finds the library inside.
mkdir -p "$tmp/tree/sub"
cp "$fixtures/nvcc/multi.so" "$tmp/tree/sub/libx.so"
ln -s .. "$tmp/tree/sub/loop"
ln -s /nonexistent "$tmp/tree/dangling"
ln -s "$fixtures" "$tmp/tree/outside"
mkfifo "$tmp/tree/fifo"
run scan "$tmp/tree"
check "a tree with loops and a FIFO exits 0" status_is 0
check "the library in the tree is found" has "$out" "$tmp/tree/sub/libx.so: 4 containers"
check "links out of the tree are not followed" [ "$(printf '%s\n' "$out" | grep -Ec ': [0-9]+ containers?,')" -eq 1 ]
check "the closing line counts files and libraries" has "$out" "1 file looked at, 1 library found"

run -j1 --format json "$fixtures/nvcc" "$fixtures/gen"
one=$out
run -j2 --format json "$fixtures/nvcc" "$fixtures/gen"
check "-j1 and -j2 reports are identical" [ "$one" = "$out" ]

run -o "$tmp/report.json" --format json "$fixtures/nvcc/multi.so"
check "-o writes the report to a file" grep -q '"containers":	4' "$tmp/report.json"
check "-o leaves stdout empty" [ -z "$out" ]

# Unreadable inputs. root reads everything, so as root the scan runs as nobody.
cp "$fixtures/nvcc/multi.so" "$tmp/tree/locked.so"
chmod 000 "$tmp/tree/locked.so"
mkdir "$tmp/tree/closed"
chmod 000 "$tmp/tree/closed"
as_user=""
user_smcheck=$smcheck
if [ "$(id -u)" -eq 0 ]; then
    # A copy in the world-readable temporary directory, wherever the build lies.
    cp "$smcheck" "$tmp/smcheck"
    user_smcheck=$tmp/smcheck
    chmod -R o+rX "$tmp/tree/sub" "$tmp/smcheck"
    as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
$as_user timeout 60 "$user_smcheck" scan "$tmp/tree" >"$tmp/out" 2>"$tmp/err"
status=$?
out=$(cat "$tmp/out")
err=$(cat "$tmp/err")
check "unreadable entries exit 2" status_is 2
check "an unreadable file is named" has "$err" "smcheck: $tmp/tree/locked.so: Permission denied"
check "an unreadable directory is named" has "$err" "smcheck: $tmp/tree/closed: Permission denied"
check "the readable library is still listed" has "$out" "$tmp/tree/sub/libx.so: 4 containers"
check "one line per unreadable entry" [ "$(lines "$err")" -eq 2 ]

# A name with a newline and an escape in it still makes one line per message.
mkdir -p "$tmp/names"
cp "$fixtures/gen/bad_fatsize.so" "$tmp/names/$(printf 'bad\nname\033[31m.so')"
run scan "$tmp/names"
check "control characters in a name do not break a message's line" has "$err" "smcheck: $tmp/names/bad?name?[31m.so: at 0x388: container in .nv_fatbin"
check "one line per message" [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ]

# Limits: each has an option, a clear message, and the run goes on.
run scan --max-containers 2 "$fixtures/nvcc/multi.so"
check "--max-containers: exit 2" status_is 2
check "--max-containers: the message" has "$err" "more than 2 containers in one file: the rest are not read (--max-containers)"
check "--max-containers: the first containers stand" has "$out" "multi.so: 2 containers"
run scan --max-images 3 "$fixtures/gen/old_arches.so"
check "--max-images: the message" has "$err" "more than 3 images in one file: the rest are not read (--max-images)"
run scan --max-files 3 "$fixtures/nvcc"
check "--max-files: the message" has "$err" "more than 3 files: the rest of this input is not read (--max-files)"
check "--max-files: three files read" has "$out" "3 files looked at"
mkdir -p "$tmp/deep/a/b/c"
cp "$fixtures/nvcc/multi.so" "$tmp/deep/a/b/c/lib.so"
run scan --max-depth 2 "$tmp/deep"
check "--max-depth: the message" has "$err" "$tmp/deep/a/b/c: directories nested deeper than --max-depth: not read"
run scan --max-path 20 "$fixtures/nvcc/../nvcc"
check "--max-path: the message" has "$err" "a path longer than 20 bytes: not read (--max-path)"
run scan --max-depth 0 "$tmp/deep"
check "a limit of 0 is a usage error" status_is 64

# Colour: only when asked for (stdout here is not a terminal), and only around the statuses.
run --gpu sm_90,sm_75 "$fixtures/nvcc/kernel.fatbin"
plain=$out
check "no colour when stdout is not a terminal" [ "$(printf '%s' "$plain" | grep -c "$(printf '\033')")" -eq 0 ]
run --color always --gpu sm_90,sm_75 "$fixtures/nvcc/kernel.fatbin"
esc=$(printf '\033')
check "--color always: jit in yellow" has "$out" "${esc}[33mjit${esc}[0m"
check "--color always: ok in green" has "$out" "${esc}[32mok${esc}[0m"
check "--color always: the same report without its escapes" [ "$(printf '%s' "$out" | sed "s/${esc}\[[0-9]*m//g")" = "$plain" ]
NO_COLOR=1 run --color never --gpu sm_75 "$fixtures/nvcc/kernel.cubin"
check "--color never: no escapes" [ "$(printf '%s' "$out" | grep -c "$esc")" -eq 0 ]
run --color always --json --gpu sm_75 "$fixtures/nvcc/kernel.cubin"
check "--json is never coloured" [ "$(printf '%s' "$out" | grep -c "$esc")" -eq 0 ]
run --color bogus "$fixtures/nvcc/kernel.cubin"
check "--color takes auto, always or never (64)" status_is 64

# Nothing judged is not ok (issue 9).
SMCHECK_LIBCUDA=/nonexistent run --gpu 9.0 "$fixtures/nvcc/nodevice.so"
check "no device code: its own status, exit 0" status_is 0
check "no device code: said so" has "$out" "overall: sm_90 no device code"
SMCHECK_LIBCUDA=/nonexistent run --gpu 9.0 "$tmp/does-not-exist"
check "an input that cannot be read has no status: exit 2" status_is 2
check "an input that cannot be read: nothing was judged" has "$out" "overall: nothing could be read"
printf 'not a zip' >"$tmp/fake.whl"
SMCHECK_LIBCUDA=/nonexistent run --gpu 9.0 "$tmp/fake.whl"
check "a .whl that is no zip is an error (exit 2)" status_is 2
check "a .whl that is no zip: one line" has "$err" "fake.whl: named like a wheel, but not a zip archive"
printf '!<arch>\n' >"$tmp/libdl.a"
printf '!<arch>\n/               0           0     0     644     4         `\n\0\0\0\0' >"$tmp/libsym.a"
run scan "$tmp/libdl.a" "$tmp/libsym.a"
check "empty ar archives (glibc's stubs), one with only a symbol table: no finding, exit 0" \
    [ "$status:$err" = "0:" ]
# Broken archives: one line each, and what could be read still is.
printf '!<arch>\nbad.o/          0           0     0     644     abc       `\n' >"$tmp/badhdr.a"
run scan "$tmp/badhdr.a"
check "an archive member header that cannot be read: exit 2, one line" \
    has "$err" "badhdr.a: at 0x8: archive member header cannot be read"
head -c 2000 "$fixtures/nvcc/libperarch.a" >"$tmp/cut.a"
run scan "$tmp/cut.a"
check "an archive cut short: exit 2, one line" status_is 2
check "an archive cut short: the member that runs past its end is named" \
    has "$err" "archive member runs past the end of the archive"
SMCHECK_LIBCUDA=/nonexistent run --gpu auto "$fixtures/nvcc/multi.so"
check "--gpu auto without a GPU is a usage error (64)" status_is 64
check "--gpu auto without a GPU says why" has "$err" "--gpu auto: no local GPU (no NVIDIA driver"

# Hard links are one file, read once: one library naming its other paths; a link from another
# input is that input's own library (the same facts).
mkdir -p "$tmp/links/a" "$tmp/links2"
cp "$fixtures/nvcc/multi.so" "$tmp/links/a/multi.so"
for i in 1 2 3; do ln "$tmp/links/a/multi.so" "$tmp/links/a/l$i.so"; done
ln "$tmp/links/a/multi.so" "$tmp/links2/x.so"
run --format json --gpu sm_80 "$tmp/links" "$tmp/links2"
check "hard links: one library per input, the others its links" [ "$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(";".join("%s:%s" % (l["path"].rsplit("/", 2)[-2] + "/" + l["path"].rsplit("/", 1)[-1],
                          ",".join(p.rsplit("/", 1)[-1] for p in l.get("links", [])))
               for i in d["inputs"] for l in i["libraries"]))')" = "a/l1.so:l2.so,l3.so,multi.so;links2/x.so:" ]
run --gpu sm_80 "$tmp/links"
check "hard links: the text report names the other paths" \
    has "$out" "the same file (read once) at: $tmp/links/a/l2.so $tmp/links/a/l3.so $tmp/links/a/multi.so"
check "hard links: every path is counted as looked at" has "$out" "4 files looked at, 1 library found"

# A wheel whose METADATA has a version but no name: the name comes from its dist-info, the
# version stays METADATA's (a fuzzer found the version leaked when both were filled in).
python3 - "$tmp/nn-1.0-py3-none-any.whl" "$fixtures/nvcc/multi.so" <<'EOS'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("nn-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nVersion: 2.0\n")
    z.writestr("nn-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")
    z.writestr("nn-1.0.dist-info/RECORD", "")
    z.write(sys.argv[2], "nn/multi.so")
EOS
run scan --format json "$tmp/nn-1.0-py3-none-any.whl"
check "a METADATA without a name: the dist-info's name, METADATA's version" \
    [ "$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin)["inputs"][0]["distributions"][0]; print(d["name"], d["version"])')" = "nn 2.0" ]
no_leak() { [ "$status" -ne 23 ] && ! has "$err" "LeakSanitizer"; }
check "a METADATA without a name: nothing leaks (under the sanitizers)" no_leak

# smcheck advise (issue 12): usage errors, a bad table named in one line, no local GPU.
run advise --gpu h100 --platform riscv
check "advise: an unknown --platform is a usage error (64)" status_is 64
check "advise: --platform names the value" has "$err" "not 'riscv'"
run advise --gpu h100 "$fixtures/nvcc" "$fixtures/gen"
check "advise takes one environment at most (64)" all 'status_is 64' 'has "$err" "one environment at most"'
run advise --gpu h100 --builds-table "$fixtures/../tests/builds_fixture.tsv" "$fixtures/nvcc/multi.so"
check "advise PATH without torch: says so in one line, advises all the same" all 'status_is 0' \
    'has "$err" "multi.so: no torch, torchvision or torchaudio installed there"' 'has "$out" "install: torch"'

# The command line as habits have it (issue 22): the subcommand after options; options the
# subcommand would ignore are refused; -q silences notes; --fail-on never; --sarif FILE beside
# the report; the same tool header in every JSON.
run -q scan "$fixtures/nvcc/kernel.cubin"
check "-q scan PATH: scan is the subcommand, not a file" all 'status_is 0' \
    'has "$out" "kernel.cubin: 1 container, 1 image"' '[ -z "$err" ]'
run --gpu h100 --builds-table "$fixtures/../tests/builds_fixture.tsv" advise
check "--gpu h100 advise: advise is the subcommand" all 'status_is 0' 'has "$out" "install: torch"'
run --index-url http://127.0.0.1:1/simple/ -- scan
check "-- scan: after --, scan is a PATH (or a project: none here)" all 'status_is 2' \
    'has "$err" "scan: No such file or directory; as a project: the index http://127.0.0.1:1/simple/scan/: "'
run --format=json -o "$tmp/g.json" gpus
check "--format=json -o FILE gpus: gpus after options with arguments" all 'status_is 0' \
    '[ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[\"tool\"][\"name\"])" "$tmp/g.json")" = smcheck ]'
for sub in "gpus --gpu h100" "gpus --driver 12.8" "scan --gpu h100 $fixtures/nvcc" "scan --fail-on jit $fixtures/nvcc" \
    "advise --gpu h100 --verify" "--list $fixtures/nvcc" "gpus --sarif $tmp/x.sarif" "advise --gpu h100 --jobs 2"; do
    # shellcheck disable=SC2086 # sub is a command line
    run $sub
    check "smcheck $sub: refused, naming the option and where it belongs (64)" all 'status_is 64' \
        'has "$err" "is not for"' 'has "$err" "it is for"' '[ ! -e "$tmp/x.sarif" ]'
done
run --gpu 6.1 --fail-on never "$fixtures/nvcc/multi.so"
check "--fail-on never: a none verdict exits 0" all 'status_is 0' 'has "$out" "none"'
run --gpu 6.1 --fail-on never "$fixtures/nvcc/multi.so" "$tmp/missing.so"
check "--fail-on never: an unreadable input still exits 2" status_is 2
run --gpu 6.1 --sarif "$tmp/r.sarif" "$fixtures/nvcc/multi.so"
check "--sarif FILE: the text report on stdout and SARIF in FILE, from one run" all 'status_is 1' \
    'has "$out" "overall:"' 'grep -q "\"level\":[[:space:]]*\"error\"" "$tmp/r.sarif"' \
    'grep -q "2.1.0" "$tmp/r.sarif"'
run --gpu 6.1 --sarif "$tmp/no/such/dir/r.sarif" "$fixtures/nvcc/multi.so"
check "--sarif FILE that cannot be written: one line naming it, exit 2" all 'status_is 2' \
    'has "$err" "smcheck: $tmp/no/such/dir/r.sarif: No such file or directory"'
run advise --gpu h100 "$tmp/no-such-env"
check "advise ENV that does not exist: one line naming it, exit 2" all 'status_is 2' \
    'has "$err" "smcheck: $tmp/no-such-env: No such file or directory"' '[ -z "$out" ]'
run --gpu 6.1 --sarif "$tmp/r.sarif" --format sarif "$fixtures/nvcc/multi.so"
check "--sarif with --format sarif: refused (64)" status_is 64
run -q "$fixtures/nvcc/multi.so"
check "-q: no notes on stderr (no local GPU, partial)" all 'status_is 0' '[ -z "$err" ]' 'has "$out" "overall:"'
run "$fixtures/nvcc/multi.so"
check "without -q the notes are there" all 'has "$err" "no local GPU"' 'has "$err" "partial"'
run "$fixtures/nvcc"
check "the representative matrix: libraries with the same verdicts share a row" all 'status_is 0' \
    'has "$out" "$fixtures/nvcc/app, comp_all.so, comp_default.so, comp_none.so"' \
    'has "$out" "$fixtures/nvcc/librdc.a, lto.o"'
run --detail "$fixtures/nvcc"
check "the representative matrix with --detail: a row per library (each has its details)" all \
    'has "$out" "$fixtures/nvcc/comp_all.so"' 'lacks "$out" "app, comp_all.so, comp_default.so, comp_none.so"'
run --gpu a100,h100 "$fixtures/nvcc"
check "GPUs named: a row per library" all 'has "$out" "$fixtures/nvcc/comp_all.so"' \
    'lacks "$out" ", comp_all.so"' 'has "$out" "  sm_90   H100 (9.0)"'
run --gpu 12.0 "$fixtures/gen/torch_ext.so"
check "next step of a library built against PyTorch (DT_NEEDED libc10): TORCH_CUDA_ARCH_LIST" \
    has "$out" "code=sm_120 (TORCH_CUDA_ARCH_LIST=12.0), and a driver"
run --gpu 12.0 "$fixtures/gen/cudart11.so"
check "next step of a library that is no PyTorch extension: no TORCH_CUDA_ARCH_LIST" all \
    'has "$out" "code=sm_120, and a driver"' 'lacks "$out" TORCH_CUDA_ARCH_LIST'
run --gpu 8.9 --detail "$fixtures/nvcc/kernel.cubin"
check "grammar: of 1 container, not of 1 containers" all 'has "$out" "1 native, 0 compatible of 1 container"' \
    'lacks "$out" " 1 containers"'
run --platform linux/s390x --gpu h100 "$fixtures/nvcc/multi.so"
check "--platform names one of the three platforms (64)" status_is 64
run advise
check "advise without --gpu and without a local GPU is a usage error (64)" status_is 64
printf '2.8.0\tcu128\tlinux-x86_64\n' >"$tmp/bad_builds.tsv"
run advise --gpu h100 --builds-table "$tmp/bad_builds.tsv"
check "a bad builds table: exit 2, one line naming the file and the line" all 'status_is 2' \
    '[ "$(lines "$err")" -eq 1 ]' 'has "$err" "$tmp/bad_builds.tsv: line 1: expected 10 tab-separated columns"'
run --gpu h100 --builds-table "$tmp/missing.tsv" "$fixtures/nvcc/multi.so"
check "a missing builds table stops a judge run too (exit 2)" all 'status_is 2' 'has "$err" "missing.tsv: No such file"'
run advise --gpu h100 --driver 12.4 --builds-table "$fixtures/../tests/builds_fixture.tsv"
check "advise: the install line of the build that runs, pinned with its variant" has "$out" "pip install torch==3.0.0+cu126 --index-url https://download.pytorch.org/whl/cu126"
run advise --gpu orin --builds-table "$fixtures/../tests/builds_fixture.tsv"
check "advise: nothing runs: exit 1" all 'status_is 1' 'has "$out" "install: no build in the table runs"'

# An empty directory as the first input: nothing to list, exit 0 (under UBSan: no offset of a
# null list either).
mkdir -p "$tmp/empty"
run scan "$tmp/empty"
check "an empty directory first: exit 0" all 'status_is 0' 'has "$out" "0 files looked at"'

# Live roots (issue 13): a root filesystem is walked without proc, sys, dev and run, saying so;
# --exclude by name and by path; --one-file-system where this machine has a mount point to see.
mkdir -p "$tmp/root/etc" "$tmp/root/usr/lib" "$tmp/root/proc/1" "$tmp/root/sys" "$tmp/root/run" "$tmp/root/opt"
cp "$fixtures/nvcc/multi.so" "$tmp/root/usr/lib/libx.so"
cp "$fixtures/nvcc/multi.so" "$tmp/root/proc/1/maps"
cp "$fixtures/nvcc/multi.so" "$tmp/root/run/liby.so"
cp "$fixtures/nvcc/app" "$tmp/root/opt/app"
cp "$fixtures/nvcc/app" "$tmp/root/usr/lib/app"
run scan "$tmp/root"
check "a root filesystem: proc and run are not walked" all 'status_is 0' 'lacks "$out" /proc/' \
    'lacks "$out" /run/' 'has "$out" "$tmp/root/usr/lib/libx.so"'
check "a root filesystem: a note says so" has "$out" "note: $tmp/root: a root filesystem: its proc, sys, dev and run are not walked"
run scan --exclude app "$tmp/root"
check "--exclude NAME leaves out every entry of that name" all 'lacks "$out" /app:' \
    'has "$out" "note: $tmp/root: 2 paths left out (--exclude)"'
run scan --exclude "$tmp/root/opt/*" --exclude '*.so' "$tmp/root"
check "--exclude PATH-GLOB and a second --exclude" all 'lacks "$out" /opt/app' 'lacks "$out" libx.so' \
    'has "$out" "$tmp/root/usr/lib/app:"'
# Every repeatable option at once (--exclude, --extra-index-url, --extra): each list is freed at
# exit (the sanitizer builds fail on a leak, as they once did when one list replaced another).
run scan --exclude app --exclude '*.so' --extra-index-url http://127.0.0.1:1/simple --extra a \
    --extra b "$tmp/root"
check "the repeatable options together: read, nothing on stderr" all 'status_is 0' 'equals "$err" ""' \
    'has "$out" "note: $tmp/root: 3 paths left out (--exclude)"'
run --extra '' "$tmp/root"
check "--extra with no name is a usage error (64), said in one line" all 'status_is 64' \
    'has "$err" "smcheck: --extra wants the name of an extra"'
run scan "$tmp/root/usr"
check "not a root filesystem: no such note" lacks "$out" "a root filesystem"
other=""
for d in /dev /sys/fs /run; do
    [ -d "$d" ] || continue
    dev=$(stat -c %d "$d")
    for sub in "$d"/*/; do
        [ -d "$sub" ] && [ ! -L "${sub%/}" ] && [ "$(stat -c %d "$sub")" != "$dev" ] && { other=$d; break; }
    done
    [ -n "$other" ] && break
done
if [ -n "$other" ]; then
    run scan --one-file-system "$other"
    check "--one-file-system: directories on other filesystems are not walked, and said" has "$out" "on other filesystems not walked (--one-file-system)"
else
    echo "skip   --one-file-system: no mount point under /dev, /sys/fs or /run here"
fi

# Tile IR (fixtures/nvfatbin, from nvFatbin 13.5): listed with its kind and bytecode version, the
# PTX beside it kept; judged as the driver's Tile IR compiler builds it (issue 47).
run scan --detail "$fixtures/nvfatbin/tileir_ptx.fatbin"
check "Tile IR beside PTX: both entries listed" all 'status_is 0' 'has "$out" "tokens: compute_80=1 tileir_80=1"' \
    'has "$out" "tile-ir zstd"' 'has "$out" "Tile IR bytecode 13.3"'
run scan "$fixtures/nvfatbin/tileir_only.fatbin" "$fixtures/nvfatbin/tileir_ptx.fatbin"
check "what Tile IR alone serves is said to run through Tile IR, not PTX" all 'status_is 0' \
    'has "$out" "cubins -; only through Tile IR 8.0 8.6"' 'has "$out" "cubins -; only through PTX 8.0 8.6"'
SMCHECK_LIBCUDA=/nonexistent run --gpu sm_80 --driver 13.4 "$fixtures/nvfatbin/tileir_only.fatbin"
check "Tile IR alone, a CUDA 13.4 driver: jit, by the driver's Tile IR compiler" all 'status_is 0' \
    'has "$out" "sm_80 jit: 1 of 1 container relies on Tile IR"' 'has "$out" "libnvidia-tileiras"'
SMCHECK_LIBCUDA=/nonexistent run --gpu sm_80 --driver 13.0 "$fixtures/nvfatbin/tileir_only.fatbin"
check "Tile IR alone, a CUDA 13.0 driver: none, naming the driver it needs" all 'status_is 1' \
    'has "$out" "its Tile IR needs a driver for CUDA 13.1 or newer"'
SMCHECK_LIBCUDA=/nonexistent run --gpu sm_75 --driver 13.4 "$fixtures/nvfatbin/tileir_only.fatbin"
check "Tile IR alone on a GPU below its arch: none" status_is 1
# The same fat binary with its Tile IR entry's kind made 64, which no CUDA has: the container
# and its PTX are still read and judged; the entry is listed by its number.
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); e = 16 + int.from_bytes(b[20:24], "little") + int.from_bytes(b[24:32], "little"); b[e:e + 2] = (64).to_bytes(2, "little"); open(sys.argv[2], "wb").write(b)' \
    "$fixtures/nvfatbin/tileir_ptx.fatbin" "$tmp/kind64.fatbin"
run scan --detail "$tmp/kind64.fatbin"
check "an entry of an unknown kind keeps its container, listed by its number" all 'status_is 0' \
    'has "$out" "tokens: compute_80=1 kind64_80=1"' 'has "$out" "entry kind 64, not known to smcheck"'
SMCHECK_LIBCUDA=/nonexistent run --gpu sm_80 --driver 12.8 "$tmp/kind64.fatbin"
check "an entry of an unknown kind: the PTX beside it judged (jit)" all 'status_is 0' \
    'has "$out" "sm_80 jit: 1 of 1 container relies on PTX"'

# A file without device code is not a library found, even one with a finding to report.
run scan "$fixtures/gen/bad_truncated.so" "$fixtures/nvcc/nodevice.so" "$fixtures/nvcc/multi.so"
check "a file with no device code is not counted as a library found" all 'status_is 2' \
    'has "$out" "bad_truncated.so: 0 containers"' 'has "$out" "3 files looked at, 1 library found"'

# docs/cli.md's usage block is --help, word for word.
run --help
readme_usage=$(sed -n '/^## Usage$/,/^## /p' "$fixtures/../docs/cli.md" | sed -n '/^```$/,/^```$/p' | sed '1d;$d')
check "docs/cli.md's usage is --help" [ "$readme_usage" = "$out" ]

finish
