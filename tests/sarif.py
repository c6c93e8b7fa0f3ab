#!/usr/bin/env python3
"""Tests of --format sarif: what GitHub code scanning needs of SARIF 2.1.0, on real bytes.

Usage: sarif.py SMCHECK FIXTURES_DIR
Each report is validated against the OASIS schema of SARIF 2.1.0 (tests/schemas/), then checked
against the JSON report of the same run: one result per library and GPU whose status is worse
than ok, with its rule (one per cause), level and security-severity from the status, a location
at the file or archive by a URI relative to the working directory, a fingerprint that is stable
across runs and differs between results; unreadable inputs are the run's notifications. Prints
"N passed, M failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import check, corpus, equal, finish

import jsonschema

SMCHECK, FIXTURES = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "schemas", "sarif-schema-2.1.0.json"), encoding="utf-8") as f:
    SCHEMA = json.load(f)
VALIDATOR = jsonschema.Draft4Validator(SCHEMA)


def run(*args, cwd):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1")
    p = subprocess.run([SMCHECK, *args], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def sarif_and_json(args, paths, cwd):
    rc, out, err = run(*args, "--format", "sarif", *paths, cwd=cwd)
    rc2, out2, _ = run(*args, "--format", "json", *paths, cwd=cwd)
    return rc, json.loads(out), rc2, json.loads(out2), err


def valid(doc, what):
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.absolute_path))
    check(not errors, what + ": valid SARIF 2.1.0" +
          ("" if not errors else f" ({'/'.join(map(str, errors[0].absolute_path))}: "
                                 f"{errors[0].message[:200]})"))


def expected_results(report):
    """(library path, target token, status, cause) of every judgement worse than ok."""
    tokens = [t["token"] for t in report["targets"]]
    out = set()
    for inp in report["inputs"]:
        for lib in inp["libraries"]:
            for j in lib.get("verdicts", []):
                if j["status"] not in ("ok", "no-code"):
                    out.add((lib["path"], tokens[j["target"]], j["status"], j["cause"]))
    return out


def path_of(r):
    logical = r["locations"][0].get("logicalLocations")
    return logical[0]["fullyQualifiedName"] if logical else \
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]


def results_of(sarif):
    return {(path_of(r), r["properties"]["target"], r["properties"]["status"], r["ruleId"])
            for r in sarif["runs"][0]["results"]}


def owner_status(report):
    """(library path, target token) -> the status of what the library belongs to: its
    distribution's verdict, or, claimed by none, its own."""
    tokens = [t["token"] for t in report["targets"]]
    out = {}
    for inp in report["inputs"]:
        owner = {}
        for d in inp.get("distributions", []):
            for path in d["libraries"]:
                owner[path] = {v["target"]: v["status"] for v in d.get("verdicts", [])}
        for lib in inp["libraries"]:
            for j in lib.get("verdicts", []):
                out[(lib["path"], tokens[j["target"]])] = \
                    owner.get(lib["path"], {}).get(j["target"], j["status"])
    return out


def structure(sarif, what, report=None):
    run0 = sarif["runs"][0]
    driver = run0["tool"]["driver"]
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    check(sarif["version"] == "2.1.0" and driver["name"] == "smcheck" and driver["version"],
          what + ": version 2.1.0, tool smcheck with its version")
    check(len(ids) == len(set(ids)), what + ": one rule per cause, ids unique")
    check(all(r.get("shortDescription", {}).get("text") and r.get("help", {}).get("text")
              and 0.0 <= float(r["properties"]["security-severity"]) <= 10.0 for r in rules),
          what + ": every rule has a description, help and a security-severity in 0..10")
    results = run0["results"]
    check(all(ids[r["ruleIndex"]] == r["ruleId"] for r in results),
          what + ": every result's ruleIndex names its ruleId")
    severity = {"none": "8.0", "partial": "5.0", "gated": "5.0", "jit": "2.0"}
    level = {"none": "error", "partial": "warning", "gated": "warning", "jit": "note"}
    check(all(r["properties"]["security-severity"] == severity[r["properties"]["status"]]
              for r in results), what + ": security-severity from the status")
    informational = run0["properties"]["informational"]
    owners = owner_status(report) if report else {}

    def want_level(r):
        """none is an error only where it makes its distribution none: a vendored library's is
        a warning, an alternative's that is not loaded a note (issue 23)."""
        if informational:
            return "note"
        status, key = r["properties"]["status"], (path_of(r), r["properties"]["target"])
        if status == "none" and owners.get(key, "none") != "none":
            return "note" if r["properties"].get("role") == "alternative" else "warning"
        return level[status]
    check(all(r["level"] == want_level(r) for r in results),
          what + ": level from the status and what it does to its distribution" +
          (" (notes: representative GPUs)" if informational else ""))
    check(all(r["message"]["text"] and len(r["locations"]) == 1 for r in results),
          what + ": every result has a message and one location")
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    check(all(not u.startswith("/") and not u.startswith("file:") and not u.startswith("./")
              for u in uris), what + ": locations are relative URIs")
    prints = [r["partialFingerprints"]["smcheckLibraryTarget/v1"] for r in results]
    check(len(prints) == len(set(prints)), what + ": fingerprints differ between results")
    check(all(r["partialFingerprints"]["primaryLocationLineHash"] ==
              r["partialFingerprints"]["smcheckLibraryTarget/v1"] + ":1" for r in results),
          what + ": primaryLocationLineHash given (upload-sarif would hash the binary's lines)")
    return results


def main():
    work = tempfile.mkdtemp(prefix="smcheck-sarif-")
    try:
        shared, done = corpus("wheels")
        subprocess.run(["cp", "-a", shared, os.path.join(work, "wheels")], check=True)
        done()
        shutil.copytree(os.path.join(FIXTURES, "nvcc"), os.path.join(work, "nvcc"))
        shutil.copytree(os.path.join(FIXTURES, "gen"), os.path.join(work, "gen"))

        # Libraries named relatively, GPUs named, a driver: partial, none, jit all occur.
        args = ["--gpu", "h100,sm_120,7.0,8.7", "--driver", "13.0"]
        paths = ["nvcc", "gen/cuda128.so", "gen/ptx_sm90a.so", "gen/gated_only.so"]
        rc, sarif, rc2, report, _ = sarif_and_json(args, paths, work)
        valid(sarif, "fixtures")
        results = structure(sarif, "fixtures", report)
        want, got = expected_results(report), results_of(sarif)
        check(got == want and len(results) == len(want),
              f"fixtures: one result per library and GPU worse than ok ({len(want)})")
        statuses = {s for _, _, s, _ in want}
        check({"none", "partial", "jit"} <= statuses, "fixtures: none, partial and jit results")
        check(rc == rc2 == 1, "fixtures: the exit status is the gate's, as with json")
        check(sarif["runs"][0]["invocations"][0]["executionSuccessful"] is True,
              "fixtures: every input read: executionSuccessful")

        again = json.loads(run(*args, "--format", "sarif", *paths, cwd=work)[1])
        fp = lambda doc: [r["partialFingerprints"] for r in doc["runs"][0]["results"]]
        check(fp(again) == fp(sarif), "fixtures: the same fingerprints in a second run")
        absolute = json.loads(run(*args, "--format", "sarif",
                                  *[os.path.join(work, p) for p in paths], cwd=work)[1])
        check(fp(absolute) == fp(sarif),
              "fixtures: absolute paths under the working directory: the same relative URIs")

        # A wheel: the result is at the wheel, the library inside it a logical location.
        demo = "wheels/demo_cuda-1.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
        rc, sarif, _, report, _ = sarif_and_json(["--gpu", "sm_75", "--driver", "12.4"], [demo],
                                                 work)
        valid(sarif, "wheel")
        results = structure(sarif, "wheel", report)
        check(results and all(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
            demo.replace("+", "+") and
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith(demo + "!")
            for r in results), "wheel: located at the wheel, the member a logical location")
        check(results_of(sarif) == expected_results(report),
              "wheel: one result per library and GPU worse than ok")

        # Issue 23: a run whose exit status is 0 holds no error. alt-1.0 on a 7.0 GPU: the
        # cuda118 alternative serves it, the cuda128 one (never loaded there) is none: a note.
        # vend-1.0 on 9.0: its vendored library (sm_70 only) is none, the wheel partial: a warning.
        for wheel, gpu, role, lvl in (("alt", "7.0", "alternative", "note"),
                                      ("vend", "9.0", "vendored", "warning")):
            p = "wheels/%s-1.0-py3-none-manylinux_2_28_x86_64.whl" % wheel
            rc, sarif, _, report, _ = sarif_and_json(["--gpu", gpu], [p], work)
            results = structure(sarif, wheel, report)
            nones = [r for r in results if r["properties"]["status"] == "none"]
            check(rc == 0 and nones and all(r["level"] == lvl and r["properties"].get("role") == role
                                            for r in nones) and
                  not any(r["level"] == "error" for r in results),
                  "%s on %s: exit 0, its %s library's none is a %s, no error" % (wheel, gpu, role,
                                                                                 lvl))

        # Unreadable and malformed inputs: notifications, executionSuccessful false, exit 2.
        rc, sarif, _, _, err = sarif_and_json(["--gpu", "h100"],
                                              ["gen/bad_truncated.so", "wheels/bad_corrupt.whl",
                                               "no-such-file"], work)
        valid(sarif, "bad inputs")
        notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        texts = " | ".join(n["message"]["text"] for n in notes)
        check(rc == 2 and sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False,
              "bad inputs: exit 2, executionSuccessful false")
        check(all(name in texts for name in ("bad_truncated.so", "bad_corrupt.whl",
                                              "no-such-file")) and
              all(n["level"] == "error" for n in notes),
              "bad inputs: each named in an error notification")

        # No GPU named and none local: the representative matrix, results are notes.
        rc, sarif, _, report, _ = sarif_and_json([], ["nvcc/multi.so"], work)
        valid(sarif, "matrix")
        results = structure(sarif, "matrix")
        check(sarif["runs"][0]["properties"]["informational"] is True and results and
              all(r["level"] == "note" for r in results) and rc == 0,
              "matrix: informational, every result a note, exit 0")

        # Not for listing.
        rc, _, err = run("scan", "--format", "sarif", "nvcc", cwd=work)
        check(rc == 64 and "sarif" in err, "scan --format sarif: a usage error")

        # The checks above can fail: a result without its ruleId is not SARIF.
        broken = json.loads(json.dumps(again))
        del broken["runs"][0]["results"][0]["message"]
        check(any(True for _ in VALIDATOR.iter_errors(broken)),
              "the schema rejects a result without a message")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
