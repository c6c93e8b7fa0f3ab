#!/usr/bin/env python3
"""tools/stacks.py: the standard stacks, judged as installed, recorded for CI.

The stacks are what people install: torch from PyPI with the nvidia-* wheels it pins (2.4 to the
newest, x86-64, and aarch64 from its first CUDA build there), NVIDIA's libraries as PyPI ships
them (cuda-toolkit with cuBLAS, cuFFT, cuSPARSE, cuSOLVER, cuRAND, nvJitLink, NVRTC, CUPTI and the
runtime; cuDNN, NCCL and cuSPARSELt releases as stacks of their own), vllm 0.9.1, and jax
with its CUDA plugin, tensorflow[and-cuda] and cupy at two releases each. pip resolves each one (pip install
--dry-run --report, for the stack's platform and Python) and smcheck judges the wheels as one
environment (a pylock.toml of them) on the GPUs the stack's documentation names, and on some it
dropped. Needs pip and the network (PyPI); CI does not: tests/stacks.py judges the recorded locks
from the recorded facts.

usage: tools/stacks.py [--smcheck BIN] [--pip PIP] [--only NAME[,NAME...]]

Writes, under tests/stacks/: pylock.NAME.toml (the lock of each stack), facts.tar.xz (the facts
smcheck's cache kept of every wheel it read, trimmed to what judging uses: offsets and kernel
names dropped) and verdicts.tsv (stack, GPU, what its documentation says, smcheck's overall
verdict). Prints the table, and each GPU where the verdict and the documentation disagree.
"""

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "stacks")

# What each stack's documentation says runs: GPU -> "runs" (ok or jit), "partial" (it runs, one
# feature does not), "compiler" (its code runs, a compiler it uses at run time does not know the
# GPU) or "fails" (none). Sources: shared/reference/cuda-compat.md §6.2 and §6.4 (PyTorch's
# TORCH_CUDA_ARCH_LIST per build), docs/research/libraries.md (NVIDIA's releases, what each NVRTC
# knows), the projects' install pages (JAX: SM 5.2 and newer for CUDA 12; CuPy: 5.0 and newer for
# CUDA 12, 7.5 for CUDA 13; vLLM: 7.0 and newer; TensorFlow's wheels: sm_60 and up).
OLD_TORCH = {"sm_37": "fails", "sm_52": "runs", "sm_60": "runs", "sm_61": "runs", "sm_70": "runs",
             "sm_75": "runs", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs", "sm_90": "runs",
             "sm_100": "fails", "sm_120": "fails"}
# NVRTC 12.8 (which 2.8 to 2.10 pin) does not know sm_103, and torch asks it for the GPU's own
# architecture (pytorch/pytorch#87611 caps only NVRTC 11.1 to 11.7).
CU128_TORCH = {"sm_61": "fails", "sm_70": "runs", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs",
               "sm_89": "runs", "sm_90": "runs", "sm_100": "runs", "sm_103": "compiler",
               "sm_120": "runs"}
CU13_TORCH = {"sm_70": "fails", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs",
              "sm_90": "runs", "sm_100": "runs", "sm_103": "runs", "sm_120": "runs"}
ARM_TORCH = {"sm_75": "fails", "sm_87": "fails", "sm_80": "runs", "sm_90": "runs",
             "sm_100": "runs", "sm_110": "runs", "sm_120": "runs", "sm_121": "runs"}


def toolkit(major, minor):
    """The GPUs a CUDA release supports (docs/research/libraries.md §1): 11.8 3.5-9.0, 12.x
    5.0-9.0 with Blackwell from 12.8 (10.3, 12.1 from 12.9), 13.x 7.5 and up."""
    low = {11: 35, 12: 50, 13: 75}[major]
    new = {100: (12, 8), 103: (12, 9), 120: (12, 8), 121: (12, 9)}
    out = {}
    for cc in (35, 52, 60, 61, 70, 75, 80, 86, 89, 90, 100, 103, 120):
        if cc in new and (major, minor) < new[cc]:
            continue  # a GPU newer than the release: not documented either way
        out["sm_%d" % cc] = "runs" if cc >= low else "fails"
    return out


# NVIDIA's CUDA libraries of issue 29 (cuda-toolkit's extras; its cuFile, NPP and nvJPEG are
# left out: cuFile, GPUDirect Storage, supports Pascal and later whatever the release).
TOOLKIT = "cuda-toolkit[cublas,cudart,cufft,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc]"


def torch_stack(version, gpus, arm=False, python="3.11", **kw):
    name = "torch%s%s" % (version, "-aarch64" if arm else "")
    return dict(name=name, reqs=["torch==%s" % version], gpus=dict(gpus, **kw),
                platform="linux-aarch64" if arm else "linux-x86_64", python=python)


STACKS = [
    torch_stack("2.4.1", OLD_TORCH),
    torch_stack("2.5.1", OLD_TORCH),
    torch_stack("2.6.0", OLD_TORCH),
    torch_stack("2.7.1", OLD_TORCH),
    torch_stack("2.8.0", CU128_TORCH),
    torch_stack("2.9.1", CU128_TORCH),
    torch_stack("2.10.0", CU128_TORCH),
    # 2.11's libtorch_cuda_linalg.so (MAGMA for CUDA 13) starts at sm_80: on a T4 linear
    # algebra fails and the rest runs.
    torch_stack("2.11.0", CU13_TORCH, python="3.12", sm_75="partial"),
    torch_stack("2.12.1", CU13_TORCH, python="3.12", sm_75="partial"),
    torch_stack("2.13.0", CU13_TORCH, python="3.12", sm_75="partial"),
    torch_stack("2.14.1", CU13_TORCH, python="3.12", sm_75="partial"),
    torch_stack("2.15.0", CU13_TORCH, python="3.12"),
    # Triton 3.6.0's ptxas (CUDA 13.0) has no sm_110a (docs/compatibility.md 6.4).
    torch_stack("2.11.0", ARM_TORCH, arm=True, python="3.12", sm_110="compiler"),
    # nvidia-nvshmem-cu13 3.4.5 and later have no sm_110 code: torch's symmetric memory does not
    # run on Thor, the rest does.
    torch_stack("2.13.0", ARM_TORCH, arm=True, python="3.12", sm_110="partial"),
    torch_stack("2.15.0", ARM_TORCH, arm=True, python="3.12", sm_110="partial"),
    # NVIDIA's CUDA libraries of each release, on the GPUs the release supports and those it
    # dropped (11.8: Kepler 3.5 and up; 12.x: Maxwell and up; 13.x: Turing and up).
    dict(name="cuda11.8", reqs=[TOOLKIT + "==11.8.0"], gpus=toolkit(11, 8)),
    dict(name="cuda12.1", reqs=[TOOLKIT + "==12.1.1"], gpus=toolkit(12, 1)),
    dict(name="cuda12.4", reqs=[TOOLKIT + "==12.4.1"], gpus=toolkit(12, 4)),
    dict(name="cuda12.6", reqs=[TOOLKIT + "==12.6.3"], gpus=toolkit(12, 6)),
    dict(name="cuda12.8", reqs=[TOOLKIT + "==12.8.1"], gpus=toolkit(12, 8)),
    dict(name="cuda12.9", reqs=[TOOLKIT + "==12.9.1"], gpus=toolkit(12, 9)),
    dict(name="cuda13.0", reqs=[TOOLKIT + "==13.0.2"], gpus=toolkit(13, 0)),
    dict(name="cuda13.5", reqs=[TOOLKIT + "==13.5.0"], gpus=toolkit(13, 5)),
    # cuDNN, NCCL and cuSPARSELt have support matrices of their own (docs/research/libraries.md
    # §2-§4): cuDNN to 9.10.2 from 5.0, from 9.11 7.5; NCCL cu12 from 2.28.3 drops Maxwell, its
    # cu11 wheels have no sm_90 cubin (nor PTX in the linked module: none on an H100);
    # cuSPARSELt 8.0 and up, refusing the others.
    dict(name="cudnn9.10.2-cu12", reqs=["nvidia-cudnn-cu12==9.10.2.21"],
         gpus={"sm_37": "fails", "sm_52": "runs", "sm_60": "runs", "sm_61": "runs",
               "sm_70": "runs", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs",
               "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
    dict(name="cudnn9.28-cu12", reqs=["nvidia-cudnn-cu12==9.28.0.42"],
         gpus={"sm_52": "fails", "sm_61": "fails", "sm_70": "fails", "sm_75": "runs",
               "sm_80": "runs", "sm_86": "runs", "sm_89": "runs", "sm_90": "runs",
               "sm_100": "runs", "sm_120": "runs"}),
    dict(name="cudnn9.28-cu13", reqs=["nvidia-cudnn-cu13==9.28.1.4"],
         gpus={"sm_70": "fails", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs",
               "sm_89": "runs", "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
    dict(name="nccl2.21.5-cu11", reqs=["nvidia-nccl-cu11==2.21.5"],
         gpus={"sm_35": "runs", "sm_52": "runs", "sm_61": "runs", "sm_70": "runs",
               "sm_75": "runs", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs",
               "sm_90": "fails"}),
    dict(name="nccl2.27.3-cu12", reqs=["nvidia-nccl-cu12==2.27.3"],
         gpus={"sm_52": "runs", "sm_61": "runs", "sm_70": "runs", "sm_75": "runs",
               "sm_80": "runs", "sm_86": "runs", "sm_89": "runs", "sm_90": "runs",
               "sm_100": "runs", "sm_120": "runs"}),
    dict(name="nccl2.32.3-cu12", reqs=["nvidia-nccl-cu12==2.32.3"],
         gpus={"sm_52": "fails", "sm_61": "runs", "sm_70": "runs", "sm_75": "runs",
               "sm_80": "runs", "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
    dict(name="nccl2.32.6-cu13", reqs=["nvidia-nccl-cu13==2.32.6"],
         gpus={"sm_70": "fails", "sm_75": "runs", "sm_80": "runs", "sm_90": "runs",
               "sm_100": "runs", "sm_120": "runs"}),
    dict(name="cusparselt0.7.1-cu12", reqs=["nvidia-cusparselt-cu12==0.7.1"],
         gpus={"sm_75": "fails", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs",
               "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
    dict(name="cusparselt0.10.0-cu13", reqs=["nvidia-cusparselt-cu13==0.10.0"],
         gpus={"sm_75": "fails", "sm_80": "runs", "sm_86": "runs", "sm_89": "runs",
               "sm_90": "runs", "sm_100": "runs", "sm_103": "runs", "sm_120": "runs"}),
    # vllm 0.9.1 (torch 2.7.0 for CUDA 12.6; its kernels for 7.0 to 10.0), and a 2026 one.
    dict(name="vllm0.9.1", reqs=["vllm==0.9.1"], python="3.11",
         gpus={"sm_61": "fails", "sm_70": "runs", "sm_75": "runs", "sm_80": "runs",
               "sm_86": "runs", "sm_89": "runs", "sm_90": "runs"}),
    # jax[cuda12] 0.6.2 asks for nvidia-cudnn-cu12>=9.8, so pip installs today's cuDNN (9.28),
    # which supports 7.5 and up: JAX's SM 5.2 floor holds only with a cuDNN of 9.10.2 or older.
    dict(name="jax0.6.2", reqs=["jax[cuda12]==0.6.2"], python="3.11",
         gpus={"sm_52": "fails", "sm_60": "fails", "sm_70": "fails", "sm_75": "runs",
               "sm_80": "runs", "sm_86": "runs", "sm_89": "runs", "sm_90": "runs"}),
    dict(name="jax0.9.2", reqs=["jax[cuda13]==0.9.2"], python="3.12",
         gpus={"sm_70": "fails", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs",
               "sm_89": "runs", "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
    dict(name="tf2.18.1", reqs=["tensorflow[and-cuda]==2.18.1"], python="3.11",
         gpus={"sm_60": "runs", "sm_70": "runs", "sm_75": "runs", "sm_80": "runs",
               "sm_86": "runs", "sm_89": "runs", "sm_90": "runs"}),
    # tensorflow[and-cuda] 2.20.0 does not pin cuDNN either (2.18.1 pins 9.3.0.75): today's 9.28
    # leaves out its sm_60 and sm_70 GPUs.
    dict(name="tf2.20.0", reqs=["tensorflow[and-cuda]==2.20.0"], python="3.11",
         gpus={"sm_60": "fails", "sm_70": "fails", "sm_75": "runs", "sm_80": "runs",
               "sm_86": "runs", "sm_89": "runs", "sm_90": "runs"}),
    dict(name="cupy13.6.0", reqs=["cupy-cuda12x[ctk]==13.6.0"], python="3.11",
         gpus={"sm_52": "runs", "sm_70": "runs", "sm_75": "runs", "sm_80": "runs",
               "sm_86": "runs", "sm_90": "runs", "sm_120": "runs"}),
    dict(name="cupy14.2.0", reqs=["cupy-cuda13x[ctk]==14.2.0"], python="3.11",
         gpus={"sm_70": "fails", "sm_75": "runs", "sm_80": "runs", "sm_86": "runs",
               "sm_90": "runs", "sm_100": "runs", "sm_120": "runs"}),
]
for s in STACKS:
    s.setdefault("platform", "linux-x86_64")
    s.setdefault("python", "3.11")


def resolve(pip, stack):
    """The wheels pip would install: [{name, version, url, sha256}], platform wheels only (a
    pure-Python wheel carries no device code, and CI must not fetch it)."""
    arch = "aarch64" if stack["platform"].endswith("aarch64") else "x86_64"
    plats = []  # what smcheck's linux-x86_64 and linux-aarch64 take: glibc 2.28 (uv's default)
    for v in range(28, 4, -1):
        plats += ["--platform", "manylinux_2_%d_%s" % (v, arch)]
    plats += ["--platform", "manylinux2014_" + arch, "--platform", "manylinux2010_" + arch,
              "--platform", "manylinux1_" + arch]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run([pip, "install", "--dry-run", "--ignore-installed", "--quiet",
                        "--report", report, *plats, "--python-version", stack["python"],
                        "--only-binary=:all:", "--target", os.path.join(tmp, "t"),
                        *stack["reqs"]], check=True)
        items = json.load(open(report))["install"]
    out = []
    for i in items:
        url = i["download_info"]["url"]
        if url.endswith("-any.whl"):
            continue
        out.append({"name": i["metadata"]["name"], "version": i["metadata"]["version"],
                    "url": url, "sha256": i["download_info"]["archive_info"]["hashes"]["sha256"]})
    return sorted(out, key=lambda w: w["name"])


def pylock(stack, wheels):
    lines = ['# %s: written by tools/stacks.py (pip resolved %s for %s, Python %s)'
             % (stack["name"], " ".join(stack["reqs"]), stack["platform"], stack["python"]),
             'lock-version = "1.0"', 'created-by = "smcheck tools/stacks.py"', '']
    for w in wheels:
        lines += ['[[packages]]', 'name = "%s"' % w["name"], 'version = "%s"' % w["version"],
                  'wheels = [{ url = "%s", hashes = { sha256 = "%s" } }]' % (w["url"], w["sha256"]),
                  '']
    return "\n".join(lines)


def judge(smcheck, stack, lock, cache, extra=()):
    """smcheck's overall verdict per GPU of the stack, as JSON says it."""
    gpus = sorted(stack["gpus"], key=lambda t: int(t[3:]))
    env = dict(os.environ, XDG_CACHE_HOME=cache, SMCHECK_LIBCUDA="/nonexistent")
    p = subprocess.run([smcheck, "--gpu", ",".join(gpus), "--platform", stack["platform"],
                        "--python-version", stack["python"], "--format", "json", "-q",
                        "--cache-max", "64G", *extra, lock],
                       capture_output=True, text=True, env=env)
    if p.returncode not in (0, 1):
        print("%s: smcheck exit %d: %s" % (stack["name"], p.returncode, p.stderr[-2000:]),
              file=sys.stderr)
        return None, None
    doc = json.loads(p.stdout)
    return {gpus[v["target"]]: v["status"] for v in doc["overall"]}, doc


# What the judge reads of a cache record: offsets, sizes on disk and kernel names are not; they
# are what makes records large (every row unique).
IMAGE_ZERO = ("offset", "header_size", "stored_size")
CONTAINER_ZERO = ("offset", "size")


def trim(record):
    lines = record.split("\n")
    head = json.loads(lines[0])
    img = [head["image_fields"].index(f) for f in IMAGE_ZERO]
    con = [head["container_fields"].index(f) for f in CONTAINER_ZERO]
    names = head["container_fields"].index("kernel_names")
    images = containers = 0
    out = [lines[0]]
    libs = head["input"]["libraries"]
    rows = iter(lines[1:])
    for lib in libs:
        for _ in range(lib["images"]):
            r = json.loads(next(rows))
            for k in img:
                r[k] = 0
            out.append(json.dumps(r, separators=(",", ":")))
            images += 1
        for _ in range(lib["containers"]):
            r = json.loads(next(rows))
            for k in con:
                r[k] = 0
            r[names] = None
            out.append(json.dumps(r, separators=(",", ":")))
            containers += 1
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smcheck", default=os.path.join(HERE, "..", "build", "smcheck"))
    ap.add_argument("--pip", default="pip")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    os.makedirs(OUT, exist_ok=True)
    cache = tempfile.mkdtemp(prefix="smcheck-stacks-")
    facts = os.path.join(OUT, "facts.tar.xz")
    if os.path.exists(facts):  # keep what earlier runs recorded
        with tarfile.open(facts) as t:
            t.extractall(cache)
    table = os.path.join(OUT, "verdicts.tsv")
    rows = {}
    if os.path.exists(table):
        for line in open(table):
            if not line.startswith("#") and line.strip():
                c = line.rstrip("\n").split("\t")
                rows[(c[0], c[1])] = c
    try:
        for stack in STACKS:
            if only and stack["name"] not in only:
                continue
            try:
                wheels = resolve(args.pip, stack)
            except subprocess.CalledProcessError as e:
                print("%s: pip failed (%s): left as it was" % (stack["name"], e), file=sys.stderr)
                continue
            lock = os.path.join(OUT, "pylock.%s.toml" % stack["name"])
            with open(lock, "w") as f:
                f.write(pylock(stack, wheels))
            overall, _ = judge(args.smcheck, stack, lock, cache)
            if overall is None:
                continue
            for k in [k for k in rows if k[0] == stack["name"]]:
                del rows[k]
            for gpu, verdict in overall.items():
                rows[(stack["name"], gpu)] = [stack["name"], gpu, stack["gpus"][gpu], verdict]
                want = stack["gpus"][gpu]
                agree = (verdict in ("ok", "jit") if want == "runs" else
                         verdict == "none" if want == "fails" else verdict == want)
                print("%-20s %-7s %-8s %-8s%s" % (stack["name"], gpu, want, verdict,
                                                  "" if agree else "  <- disagrees"), flush=True)
        # The facts, trimmed, in one archive: records are keyed by sha256, so every stack's
        # wheels are in it once; only those a recorded lock names.
        wanted = set()
        for name in os.listdir(OUT):
            if name.startswith("pylock.") and name.endswith(".toml"):
                for line in open(os.path.join(OUT, name)):
                    if "sha256 = " in line:
                        wanted.add(line.split('sha256 = "', 1)[1][:64])
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:xz", preset=9) as t:
            for root, _, files in sorted(os.walk(cache)):
                for name in sorted(files):
                    if not name.endswith(".json") or name[:-5] not in wanted:
                        continue
                    path = os.path.join(root, name)
                    data = trim(open(path).read()).encode()
                    info = tarfile.TarInfo(os.path.relpath(path, cache))
                    info.size = len(data)
                    info.mtime = 0
                    info.mode = 0o600
                    t.addfile(info, io.BytesIO(data))
        with open(facts, "wb") as f:
            f.write(buf.getvalue())
        with open(table, "w") as f:
            f.write("# tests/stacks/verdicts.tsv: written by tools/stacks.py. stack, GPU, what\n"
                    "# its documentation says (runs: ok or jit; partial; compiler; fails: none),\n"
                    "# smcheck's overall verdict of the stack installed (tests/stacks.py checks\n"
                    "# it from facts.tar.xz)\n")
            for k in sorted(rows, key=lambda k: (k[0], int(k[1][3:]))):
                f.write("\t".join(rows[k]) + "\n")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
