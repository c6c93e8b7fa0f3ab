#!/usr/bin/env python3
"""The JSON report against its schema (docs/report.schema.json, schema_version 2).

Usage: schema.py SMCHECK FIXTURES_DIR [STUB_LIBCUDA [API_REPORT]]
Validates every tests/golden/*.json, then what smcheck writes now in each mode (scan, --detail,
--verify, judging with and without a driver, the local-GPU default, gpus, gpus --list, advise,
advise --detail) over fixtures/nvcc, fixtures/gen, the wheels, conda packages, environments and
images tests/make_wheels.py assembles, and the hostile corpus of fixtures/gen.py; and the reports
the library API writes (API_REPORT: tests/api_report.c), JSON with and without a driver. Then proves the
schema can fail: copies of a golden report, each with one thing wrong, must all be rejected.
Prints one line per check, and for a failure the file or mode and the path inside the document
where validation failed.
Exit 0 when all pass, 1 when one fails, 77 (skipped) without python3-jsonschema.
"""
import copy
import glob
import json
import os
import subprocess
import sys

from harness import check, corpus, equal, finish, long, quick

try:
    import jsonschema
except ImportError:
    print("skipped: python3's jsonschema is not installed (Debian: python3-jsonschema)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCHEMA = os.path.join(ROOT, "docs", "report.schema.json")
GOLDEN = os.path.join(HERE, "golden")


def where(error):
    """The JSON-pointer-like place of an error in the document, and in the schema."""
    doc = "/" + "/".join(str(p) for p in error.absolute_path)
    rule = "/" + "/".join(str(p) for p in error.absolute_schema_path)
    return f"at {doc}: {error.message[:300]} (schema {rule})"


def errors_of(validator, doc):
    # The deepest, most specific errors first: an if/then or oneOf wraps the one that matters.
    found = []
    for e in validator.iter_errors(doc):
        leaf = jsonschema.exceptions.best_match([e]) if e.context else e
        found.append(leaf)
    return found


def validate(validator, doc, what):
    errs = errors_of(validator, doc)
    check(not errs, what, "\n".join(where(e) for e in errs[:5]) +
          (f"\n... and {len(errs) - 5} more" if len(errs) > 5 else ""))


def golden_json(path):
    """A golden case holds stdout, then "--- stderr ---" and "--- exit N ---" (tests/golden.sh)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    return json.loads(text.split("\n--- stderr ---\n", 1)[0])


def run(smcheck, args, cwd, extra_env=None):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1")
    env.pop("VIRTUAL_ENV", None)
    env.pop("CONDA_PREFIX", None)
    env.update(extra_env or {})
    p = subprocess.run([smcheck, *args], cwd=cwd, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode(
        "utf-8", "surrogateescape")


def modes(fixtures, wheels, hostile, stub):
    """(name, args, cwd, env) of every mode whose JSON is checked; ("long", name, args, cwd, env)
    for one of the long part."""
    builds = os.path.join(HERE, "builds_fixture.tsv")
    archives = sorted(n for n in os.listdir(wheels)
                      if n.endswith((".whl", ".conda", ".tar.bz2")))
    envs = [n for n in ("venv", "conda", "rollup_env", "missing_alt_env", "rootfs", "conda_unpacked",
                           "conda_big")
            if os.path.isdir(os.path.join(wheels, n))]
    images = [n for n in ("image_oci", "image_oci.tar", "image_docker.tar", "image_unpacked",
                          "image_opaque_root.tar", "image_hostile.tar")
              if os.path.exists(os.path.join(wheels, n))]
    gpus = "7.5,8.7,9.0,10.0,11.0,12.0,12.1"
    yield "scan", ["scan", "nvcc", "gen"], fixtures, None
    yield "scan --detail", ["scan", "--detail", "nvcc", "gen", "nvfatbin"], fixtures, None
    yield "scan --verify", ["scan", "--verify", "gen"], fixtures, None
    yield "judge, no driver", ["--gpu", gpus, "nvcc", "gen"], fixtures, None
    yield "judge --driver 12.8 --detail", ["--gpu", gpus, "--driver", "12.8", "--detail",
                                           "nvcc", "gen", "nvfatbin"], fixtures, None
    yield "judge --driver 13.0", ["--gpu", gpus, "--driver", "13.0", "nvcc", "gen"], fixtures, None
    yield "judge, no --gpu and no GPU (matrix)", ["nvcc/multi.so", "gen/sm90a_v1.so"], \
        fixtures, None
    yield "judge, a missing input", ["--gpu", "h100", "does/not/exist.so", "nvcc/multi.so"], \
        fixtures, None
    yield "scan wheels, conda packages", ["scan", "--detail", *archives], wheels, None
    yield "judge wheels, conda packages --driver 12.4", [
        "--gpu", "sm_75,sm_90,sm_120", "--driver", "12.4", "--detail", *archives], wheels, None
    yield "scan environments", ["scan", *envs], wheels, None
    yield "judge environments", ["--gpu", "sm_75,sm_90,sm_120", *envs], wheels, None
    yield "judge environments --driver 12.8 --detail", [
        "--gpu", "v100,h100,rtx-5090", "--driver", "12.8", "--detail", *envs], wheels, None
    yield "scan images", ["scan", *images], wheels, None
    yield "judge images --driver 12.4", [
        "--gpu", "rtx-4090,l4,h100", "--driver", "12.4", *images], wheels, None
    if os.path.isdir(os.path.join(wheels, "venv")):
        yield "judge the default input ($VIRTUAL_ENV)", ["--gpu", "h100"], wheels, \
            {"VIRTUAL_ENV": os.path.join(wheels, "venv")}
    # The hostile corpus (the long part: 15 MB of JSON): names that are not UTF-8 or hold escapes,
    # floods of findings and errors (findings_more, errors_more).
    corpus = sorted(os.listdir(hostile))
    yield "long", "scan the hostile corpus --detail", [
        "scan", "--detail", "--max-inflate", "64M", *corpus], hostile, None
    yield "long", "judge the hostile corpus --driver 12.8", [
        "--gpu", "h100,sm_120", "--driver", "12.8", "--max-inflate", "64M", *corpus], hostile, None
    yield "gpus, no driver", ["gpus"], fixtures, None
    yield "gpus --list", ["gpus", "--list"], fixtures, None
    if stub:
        stub_env = {"SMCHECK_LIBCUDA": stub, "STUB_DRIVER_VERSION": "12080",
                    "STUB_DEVICES": "NVIDIA H100 80GB HBM3|9.0|0;Orin|8.7|1"}
        yield "gpus, a stub driver", ["gpus"], fixtures, stub_env
        yield "judge the local GPUs (stub driver)", ["nvcc/multi.so", "gen"], fixtures, stub_env
    yield "advise", ["advise", "--builds-table", builds, "--gpu", "RTX 5090", "--driver",
                     "570.124.06"], fixtures, None
    yield "advise --detail", ["advise", "--builds-table", builds, "--gpu", "v100,h100", "--driver",
                              "13.0", "--detail"], fixtures, None
    yield "advise, none for a Jetson", ["advise", "--builds-table", builds, "--gpu", "orin",
                                        "--driver", "12.6"], fixtures, None
    if os.path.isdir(os.path.join(wheels, "rollup_env")):
        yield "advise ENV (torch installed: replaced)", [
            "advise", "--builds-table", builds, "--gpu", "6.1",
            os.path.join(wheels, "rollup_env")], wheels, None
        yield "advise ENV (the build installed: kept)", [
            "advise", "--builds-table", builds, "--gpu", "9.0", "--driver", "13.0",
            os.path.join(wheels, "torch_env")], wheels, None


def mutations(doc):
    """(what, broken copy) pairs made from a real judging report; each must be rejected."""
    lib = lambda d: d["inputs"][0]["libraries"][0]
    verdict = lambda d: lib(d)["verdicts"][0]

    def renamed(d):
        lib(d)["container_count"] = lib(d).pop("containers")

    def bad_status(d):
        verdict(d)["status"] = "fine"

    def bad_verdict_key(d):
        by = verdict(d)["containers_by_verdict"]
        by["loadable"] = by.pop("compatible")

    def missing(d):
        del d["inputs"][0]["errors"]

    def wrong_type(d):
        lib(d)["containers"] = str(lib(d)["containers"])

    def bad_version(d):
        d["schema_version"] = 1

    def extra(d):
        d["generated_at"] = "2026-12-01T00:00:00Z"

    def bad_image_kind(d):
        lib(d)["container_list"][0]["images"][0]["kind"] = "sass"

    def bad_token(d):
        lib(d)["token_counts"][0]["token"] = "sm90"

    def left_out(d):
        del lib(d)["layer"]  # version 2: a key is null, never absent

    def number_version(d):
        d["targets"][0]["compute_capability"] = 9.0  # versions are "X.Y" strings

    def no_overall(d):
        del d["overall"]

    for what, f in [("a renamed key (libraries[].containers -> container_count)", renamed),
                    ("a wrong status enum (verdicts[].status = fine)", bad_status),
                    ("a wrong verdict key in containers_by_verdict", bad_verdict_key),
                    ("a missing required key (inputs[].errors)", missing),
                    ("a wrong type (containers as a string)", wrong_type),
                    ("schema_version 1", bad_version),
                    ("a key left out (libraries[].layer) rather than null", left_out),
                    ("a version as a number", number_version),
                    ("an unknown top-level key", extra),
                    ("a wrong image kind (--detail)", bad_image_kind),
                    ("a malformed token in token_counts", bad_token),
                    ("a judging report without overall", no_overall)]:
        d = copy.deepcopy(doc)
        f(d)
        yield what, d


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    smcheck, fixtures = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    stub = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else None
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        check(True, "the schema is a valid draft 2020-12 schema")
    except jsonschema.exceptions.SchemaError as e:
        check(False, "the schema is a valid draft 2020-12 schema", where(e))
        return 1
    validator = jsonschema.Draft202012Validator(schema)

    if quick():
        goldens = sorted(glob.glob(os.path.join(GOLDEN, "*.json")))
        check(bool(goldens), f"golden JSON cases found ({len(goldens)})")
        for path in goldens:
            validate(validator, golden_json(path), "golden " + os.path.basename(path))

    wheels, done_wheels = corpus("wheels", fixtures)
    hostile, done_hostile = corpus("hostile", fixtures)
    try:
        api = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 and quick() else None
        for driver in ("12.8", "") if api else ():
            p = subprocess.run([api, "json", "h100,sm_61,sm_120", driver, *sorted(
                glob.glob(os.path.join(wheels, "*.whl")))], capture_output=True, text=True,
                env=dict(os.environ, SMCHECK_LIBCUDA="/nonexistent"))
            try:
                validate(validator, json.loads(p.stdout),
                         f"the library API's JSON, driver {driver or 'unknown'} (exit {p.returncode})")
            except ValueError as e:
                check(False, "the library API writes JSON", f"exit {p.returncode}: {e}")
        for mode in modes(fixtures, wheels, hostile, stub):
            if not (long() if mode[0] == "long" else quick()):
                continue
            name, args, cwd, env = mode[-4:]
            rc, out, err = run(smcheck, ["--format", "json", *args] if args[0] not in
                               ("scan", "gpus", "advise") else
                               [args[0], "--format", "json", *args[1:]], cwd, env)
            try:
                doc = json.loads(out)
            except ValueError as e:
                check(False, f"mode {name}: JSON on stdout",
                      f"exit {rc}: {e}; stderr: {err.strip()[:300]}")
                continue
            validate(validator, doc, f"mode {name} (exit {rc})")
    finally:
        done_wheels()
        done_hostile()

    if quick():
        base = golden_json(os.path.join(GOLDEN, "judge_h100.json"))
        validate(validator, base, "mutations start from a valid golden (judge_h100.json)")
        for what, doc in mutations(base):
            errs = errors_of(validator, doc)
            check(bool(errs), "rejects " + what, "the schema accepted it")
            if errs:
                print("       " + where(errs[0]))

    return finish()


if __name__ == "__main__":
    sys.exit(main())
