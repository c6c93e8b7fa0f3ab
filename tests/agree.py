#!/usr/bin/env python3
"""Every mode says the same: one pipeline, whatever is printed.

Usage: agree.py SMCHECK API_REPORT FIXTURES_DIR STUB_LIBCUDA
Runs smcheck over every fixture of fixtures/nvcc and fixtures/gen (not the hostile corpus) and
every wheel, package, environment, image and wheelhouse tests/make_wheels.py assembles, all at
once, in each mode, against six GPUs, with a driver (12.8) and without, and compares:
  - judging as JSON, with --detail, with --verify, and through the library API (api_report):
    per library and GPU its status, cause, reason, next step and whether it is an unused
    alternative; per distribution and input their statuses, reasons and next steps; overall;
  - the text matrix (each cell's status), the text of --detail (each failing GPU's status and
    reason) and SARIF (each result's status and the reason in its message) against the JSON;
  - scan as JSON, with --detail and with --verify: what each library and distribution serves;
  - with no GPU named, the local GPUs (a stub libcuda reporting them): the command's JSON and
    the API's, for one GPU, for two of one machine, and for none (the representative matrix).
Prints one line per comparison ("ok" or "FAILED" with the first difference), then
"N passed, M failed".
"""
import json
import os
import re
import subprocess
import sys

from harness import check, corpus, equal, finish, long, quick

SMCHECK, API, FIXTURES, STUB = (os.path.abspath(a) for a in sys.argv[1:5])
HERE = os.path.dirname(os.path.abspath(__file__))
GPUS = "sm_61,sm_75,sm_80,sm_86,h100,sm_120"


# The local machines the stub driver reports: one H100, an A100 and a T4 together, none.
LOCAL = ("NVIDIA H100 80GB HBM3|9.0|0", "NVIDIA A100-SXM4-80GB|8.0|0;Tesla T4|7.5|0", "")


def run(cmd, devices=None):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1", NO_COLOR="1")
    if devices is not None:
        env.update(SMCHECK_LIBCUDA=STUB, STUB_DEVICES=devices, STUB_DRIVER_VERSION="12080")
    p = subprocess.run(cmd, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape")


def inputs(work):
    found = []
    for sub in ("nvcc", "gen"):
        d = os.path.join(FIXTURES, sub)
        found += sorted(os.path.join(d, n) for n in os.listdir(d)
                        if os.path.isfile(os.path.join(d, n)) and not n.startswith("hostile")
                        and not n.endswith((".md", ".py", ".cu", ".txt")))
    found += sorted(os.path.join(work, n) for n in os.listdir(work)
                    if not n.startswith(("bad_", "image_hostile", "bomb", "escape", "cut")))
    return found


def judged(doc):
    """What a judging report says, as plain tuples keyed by path and GPU."""
    out = {"overall": [v["status"] for v in doc.get("overall", [])]}
    for i in doc["inputs"]:
        out[("input", i["path"])] = [(v["status"], v["reason"]) for v in i.get("verdicts", [])]
        for d in i.get("distributions", []):
            out[("dist", i["path"], d["location"])] = [
                (v["status"], v["reason"], v["next"]) for v in d.get("verdicts", [])]
        for lib in i["libraries"]:
            out[("lib", lib["path"])] = [
                (v["status"], v["cause"], v["reason"], v["next"], v["unused"])
                for v in lib.get("verdicts", [])]
    return out


def served(doc):
    out = {}
    for i in doc["inputs"]:
        for d in i.get("distributions", []):
            out[("dist", d["location"])] = d.get("serves")
        for lib in i["libraries"]:
            out[("lib", lib["path"])] = lib.get("serves")
    return out


def first_difference(a, b):
    for k in sorted(set(a) | set(b), key=str):
        if a.get(k) != b.get(k):
            return f"{k}: {a.get(k)!r} | {b.get(k)!r}"
    return ""


def same(what, a, b):
    check(a == b, what, first_difference(a, b))  # the first key where they differ, both values


def json_of(cmd, devices=None):
    rc, text = run(cmd, devices)
    try:
        return json.loads(text)
    except ValueError:
        check(False, " ".join(os.path.basename(c) for c in cmd[:6]), f"exit {rc}: not JSON")
        return None


def text_cells(text, targets):
    """The text matrix: each row's cells, by the path that ends it."""
    cells = {}
    width = 8  # a cell; 10 where a status name (cpu-only, compiler) takes 8
    for line in text.splitlines():
        head = re.match(r"(sm_\d+ +)\S.*library$", line)  # the header: its first column's width
        if head:
            width = len(head.group(1))
        words = line.split()
        if len(words) > len(targets) and all(
                re.fullmatch(r"~?(ok|jit|partial|gated|none|cpu-only|compiler|-)", w)
                for w in words[:len(targets)]):
            path = line[width * len(targets):]
            if not path.startswith("["):
                cells[path] = [w.lstrip("~") for w in words[:len(targets)]]
    return cells


def text_reasons(text):
    """--detail's lines under a row: "    sm_90 none: why" (unused ones say so first)."""
    found, path = {}, None
    for line in text.splitlines():
        if not line.startswith(" "):  # a row: a library's, or a distribution's ("[name v]")
            m = re.fullmatch(r"(?:~?\S+ +)+?(/\S.*|[^\[\s~]\S*)", line)
            path = m.group(1) if m and "[" not in line.split("/")[0] else None
            continue
        m = re.fullmatch(r"    (sm_\d+) (\w+)(?: \(an alternative[^)]*\))?: (.*)", line)
        if m and path:
            found[(path, m.group(1))] = (m.group(2), m.group(3))
    return found


def main():
    work, done = corpus("wheels", FIXTURES)
    try:
        paths = inputs(work)
        check(len(paths) > 60, f"{len(paths)} inputs")
        # The quick part: with a driver, and scan; the long part: with none, the next steps
        # applied, and the local GPUs.
        for driver in [d for d, part in (("12.8", quick), ("", long)) if part()]:
            drv = ["--driver", driver] if driver else []
            name = f"driver {driver or 'unknown'}"
            base = json_of([SMCHECK, "--gpu", GPUS, *drv, "--format", "json", *paths])
            if base is None:
                continue
            want = judged(base)
            targets = ["sm_%s" % t["compute_capability"].replace(".", "") for t in base["targets"]]
            for extra in (["--detail"], ["--verify"], ["-j1"]):
                doc = json_of([SMCHECK, "--gpu", GPUS, *drv, "--format", "json", *extra, *paths])
                if doc is not None:
                    same(f"{name}: json {' '.join(extra)} = json", judged(doc), want)
            rc, text = run([API, "json", GPUS, driver, *paths])
            try:
                same(f"{name}: the API's json = the command's", judged(json.loads(text)), want)
            except ValueError:
                check(False, f"{name}: the API's json", f"exit {rc}")
            # The text matrix and --detail's reasons.
            _, text = run([SMCHECK, "--gpu", GPUS, *drv, *paths])
            cells = text_cells(text, targets)
            libs = {k[1]: v for k, v in want.items() if k[0] == "lib" and v}
            # A store of loose cubins has one row (its store's statuses); --detail lists them.
            stores = {l["path"] for i in base["inputs"] for l in i["libraries"]
                      if l["role"] == "store"}
            rows = {p: v for p, v in libs.items() if p not in stores}
            check(set(rows) <= set(cells), f"{name}: text has a row for every library not of a store",
                  str(sorted(set(rows) - set(cells))[:3]))
            same(f"{name}: text cells = json statuses",
                 {p: cells.get(p) for p in rows}, {p: [v[0] for v in rows[p]] for p in rows})
            store_rows = [l for l in text.splitlines() if "a store of " in l]
            check(len(store_rows) == len({p.rsplit("/", 1)[0] for p in stores}) and stores,
                  f"{name}: one text row for each store ({len(store_rows)})")
            _, text = run([SMCHECK, "--gpu", GPUS, *drv, "--detail", *paths])
            said = text_reasons(text)
            expect = {(p, targets[t]): (v[0], v[2]) for p, vs in libs.items()
                      for t, v in enumerate(vs) if (p, targets[t]) in said}
            check(len(expect) > 20, f"{name}: --detail text gives {len(expect)} reasons")
            same(f"{name}: --detail text reasons = json",
                 {k: said[k] for k in expect}, expect)
            # SARIF: one result per library and GPU worse than ok, with the JSON's reason.
            doc = json_of([SMCHECK, "--gpu", GPUS, *drv, "--format", "sarif", *paths])
            if doc is not None:
                got = {}
                for r in doc["runs"][0]["results"]:
                    status, msg = r["properties"]["status"], r["message"]["text"]
                    path = msg[:msg.find(f" is {status} on ")]
                    got[(path, r["properties"]["target"])] = (status, msg)
                bad = [k for k, (status, msg) in got.items() if k[0] in libs
                       and (status, True) != (libs[k[0]][targets.index(k[1])][0],
                                              libs[k[0]][targets.index(k[1])][2] in msg)]
                check(not bad and len(got) > 20,
                      f"{name}: {len(got)} SARIF results, each with the JSON's status and reason",
                      str(bad[:3]))
        # Next steps, applied: each driver a library or distribution is told to get (with a 12.4
        # driver) makes it ok or jit when judged with that driver; a build step is offered only
        # where no driver does.
        base = long() and json_of([SMCHECK, "--gpu", GPUS, "--driver", "12.4", "--format", "json",
                                   *paths])
        steps = {}
        for i in base["inputs"] if base else []:
            rows = [("lib", l["path"], l["verdicts"]) for l in i["libraries"]]
            rows += [("dist", d["location"], d["verdicts"]) for d in i["distributions"]]
            for kind, key, vs in rows:
                for v in vs:
                    m = re.match(r"a driver of \S+ or newer \(CUDA (\d+)(?:\.(\d+))?\)", v["next"] or "")
                    if m:
                        cuda = "%s.%s" % (m.group(1), m.group(2) or "0")
                        steps.setdefault(cuda, []).append((kind, key, v["target"], v["next"]))
        if long():
            check(sum(map(len, steps.values())) > 5,
                  "driver 12.4: %d driver steps offered" % sum(map(len, steps.values())))
        for cuda, todo in sorted(steps.items()):
            doc = json_of([SMCHECK, "--gpu", GPUS, "--driver", cuda, "--format", "json", *paths])
            got = {}
            for i in doc["inputs"] if doc else []:
                for l in i["libraries"]:
                    got.update({("lib", l["path"], v["target"]): v["status"] for v in l["verdicts"]})
                for d in i["distributions"]:
                    got.update({("dist", d["location"], v["target"]): v["status"]
                                for v in d["verdicts"]})
            bad = [(k, t, n, got.get((k, key, t))) for k, key, t, n in todo
                   if got.get((k, key, t)) not in ("ok", "jit", "partial")]
            check(not bad, f"{len(todo)} steps to a driver for CUDA {cuda}, applied: it runs "
                           "(ok, jit, or partial)",
                  str(bad[:3]))
        # No GPU named: both front doors choose the local GPUs the same way (one machine, its
        # platform, its driver), or the representative matrix where there are none.
        for devices in LOCAL if long() else ():
            name = "local GPUs: " + (devices.replace("|", " ") or "none")
            doc = json_of([SMCHECK, "--format", "json", *paths], devices)
            rc, text = run([API, "json", "auto", "", *paths], devices)
            try:
                api = json.loads(text)
            except ValueError:
                check(False, f"{name}: the API's json", f"exit {rc}")
                continue
            if doc is not None:
                check(not devices or len(doc["targets"]) == devices.count(";") + 1,
                      f"{name}: {len(doc['targets'])} targets")
                same(f"{name}: the API's targets = the command's", dict(enumerate(api["targets"])),
                     dict(enumerate(doc["targets"])))
                same(f"{name}: the API's json = the command's", judged(api), judged(doc))
                same(f"{name}: the API's driver = the command's", api["driver"], doc["driver"])
        # scan: what is served, whatever is shown or verified.
        base = quick() and json_of([SMCHECK, "scan", "--format", "json", *paths])
        if base:
            want = served(base)
            check(sum(v is not None for v in want.values()) > 40,
                  f"scan: {sum(v is not None for v in want.values())} serving lists")
            for extra in (["--detail"], ["--verify"]):
                doc = json_of([SMCHECK, "scan", "--format", "json", *extra, *paths])
                if doc is not None:
                    same(f"scan {' '.join(extra)}: serving = scan's", served(doc), want)
    finally:
        done()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
