#!/usr/bin/env python3
"""fleet.py SMCHECK FIXTURES_DIR: a fleet declared once, in pyproject.toml's [tool.smcheck]
(issue 47). A project judged with no options judges each target as if its gpus, driver and
platform were given, found from a folder below the file as ruff finds its; the reports name the
targets in text, JSON (valid against docs/report.schema.json) and SARIF (a run each); the exit
status is the worst; fail-on comes from the file unless --fail-on says otherwise; --gpu (or
--driver, --platform) leaves the fleet out, said once; --no-config ignores it and --config names
another. Fail closed: a fleet that is not TOML, empty, with a key or value smcheck does not take,
or a target the command line would refuse is exit 2 naming its line, never a pass. Prints one line
per check and "N passed, M failed"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import check, finish

SMCHECK, FIX = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DEMO = os.path.join(FIX, "demo")
FLEET = """[project]
name = "demo"

[tool.smcheck]
fail-on = "none"

[[tool.smcheck.targets]]
name = "training"
gpus = "h100,a100"
driver = "13.0"
platform = "linux-x86_64"

[[tool.smcheck.targets]]
name = "workstation"
gpus = "rtx-5090"
driver = "13.0"
"""


def run(args, cwd):
    env = dict(os.environ, SMCHECK_LIBCUDA="/nonexistent/libcuda.so.1")
    for k in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        env.pop(k, None)
    p = subprocess.run([SMCHECK, *args], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    work = tempfile.mkdtemp(prefix="smcheck-fleet-")
    try:
        project = os.path.join(work, "project")
        below = os.path.join(project, "src", "deep")
        os.makedirs(below)
        toml = os.path.join(project, "pyproject.toml")
        with open(toml, "w") as f:
            f.write(FLEET)
        # A pyproject.toml without the table, nearer: passed over, as ruff passes over one
        # without [tool.ruff].
        with open(os.path.join(project, "src", "pyproject.toml"), "w") as f:
            f.write('[project]\nname = "inner"\n')

        rc, out, err = run([DEMO], below)
        heads = [l for l in out.splitlines() if l.startswith("== fleet target ")]
        check(rc == 1 and heads == [
            "== fleet target training (%s:7): --gpu h100,a100 --driver 13.0 --platform linux-x86_64"
            % toml, "== fleet target workstation (%s:13): --gpu rtx-5090 --driver 13.0" % toml]
            and "overall: sm_120 none" in out and err == "",
            "no options, from two folders below: each target judged and named; exit 1 (the "
            "workstation's RTX 5090 has no code in demo_sm80_sm90)", (rc, heads, err[-300:]))

        rc, out, err = run(["--format", "json", DEMO], below)
        doc = json.loads(out) if out.startswith("{") else {}
        targets = doc.get("fleet", {}).get("targets", [])
        check(rc == 1 and [t["name"] for t in targets] == ["training", "workstation"] and
              [len(t["report"]["targets"]) for t in targets] == [2, 1] and
              doc["fleet"]["path"] == toml,
              "JSON: the fleet's path, a report per target under its name", out[:300])
        try:
            import jsonschema
            with open(os.path.join(os.path.dirname(FIX), "docs", "report.schema.json")) as f:
                schema = json.load(f)
            errs = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
            check(not errs, "JSON: valid against docs/report.schema.json",
                  [e.message[:200] for e in errs[:3]])
        except ImportError:
            print("skip   JSON against the schema: no python3-jsonschema")

        rc, out, err = run(["--format", "sarif", DEMO], below)
        runs = json.loads(out)["runs"] if out.startswith("{") else []
        check(rc == 1 and [r.get("automationDetails", {}).get("id") for r in runs] ==
              ["smcheck/training/", "smcheck/workstation/"] and
              [r["properties"]["fleetTarget"] for r in runs] == ["training", "workstation"],
              "SARIF: a run per target, its automationDetails.id and fleetTarget its name",
              out[:300])

        # fail-on from the file: jit fails the workstation (demo_ptx is jit on it); the command
        # line's --fail-on overrides it.
        with open(toml, "w") as f:
            f.write(FLEET.replace('fail-on = "none"', 'fail-on = "never"'))
        rc, out, err = run([DEMO], below)
        check(rc == 0, "fail-on = \"never\" from the file: exit 0", (rc, err[-200:]))
        rc, out, err = run(["--fail-on", "none", DEMO], below)
        check(rc == 1, "--fail-on none on the command line overrides the file's", rc)
        with open(toml, "w") as f:
            f.write(FLEET)

        rc, out, err = run(["--gpu", "a100", DEMO], below)
        check(rc == 0 and "== fleet target" not in out and
              err == "smcheck: %s: its fleet is not used: the command line names --gpu\n" % toml,
              "--gpu given: the fleet is left out, said once", (rc, err))
        rc, out, err = run(["--no-config", DEMO], below)
        check(rc == 0 and "== fleet target" not in out and "representative GPU" in err,
              "--no-config: no fleet (the representative matrix, for information)", (rc, err[-200:]))
        elsewhere = os.path.join(work, "elsewhere")
        os.mkdir(elsewhere)
        rc, out, err = run(["--config", toml, DEMO], elsewhere)
        check(rc == 1 and out.count("== fleet target") == 2, "--config FILE from elsewhere", rc)
        rc, out, err = run([DEMO], elsewhere)
        check("== fleet target" not in out, "no pyproject.toml above: no fleet", out[:200])
        # A FIFO named pyproject.toml on the way up is not opened (it would block): passed over.
        fifo = os.path.join(work, "fifo", "in")
        os.makedirs(fifo)
        os.mkfifo(os.path.join(work, "fifo", "pyproject.toml"))
        try:
            rc, out, err = run([DEMO], fifo)
            check("== fleet target" not in out and rc == 0, "a FIFO named pyproject.toml above: "
                  "passed over, no wait", (rc, err[-200:]))
        except subprocess.TimeoutExpired:
            check(False, "a FIFO named pyproject.toml above: passed over, no wait", "it waited")

        # Fail closed: exit 2, the file and line named, nothing judged.
        for what, text, words in (
                ("not TOML", FLEET.replace('gpus = "rtx-5090"', "gpus = = 1"), ":  not TOML: line 15"),
                ("no targets", '[tool.smcheck]\nfail-on = "none"\n', ":1: [tool.smcheck] declares no targets"),
                ("a key it does not know", FLEET.replace("[tool.smcheck]\n", "[tool.smcheck]\ngpu = \"a100\"\n"),
                 ":4: [tool.smcheck] has a key smcheck does not know: 'gpu'"),
                ("a target key it does not know", FLEET.replace('driver = "13.0"\nplatform', 'drivers = "13.0"\nplatform'),
                 ":7: target 1: has a key smcheck does not know: 'drivers'"),
                ("a target without gpus", FLEET.replace('gpus = "rtx-5090"\n', ""), ":13: target 2: has no gpus"),
                ("a number for a string", FLEET.replace('driver = "13.0"\nplatform', "driver = 13.0\nplatform"),
                 ":7: target 1: driver must be a string"),
                ("two targets of one name", FLEET.replace('"workstation"', '"training"'),
                 ":13: target 2: is named 'training', as target 1 is"),
                ("a GPU it does not know", FLEET.replace('"rtx-5090"', '"rtx-9999"'),
                 ":13: target 'workstation': gpus: "),
                ("a driver it does not take", FLEET[:FLEET.rindex('"13.0"')] + '"banana"\n',
                 ":13: target 'workstation': driver wants"),
                ("a platform it does not take", FLEET.replace('"linux-x86_64"', '"linux-mips"'),
                 ":7: target 'training': platform wants"),
                ("a fail-on it does not take", FLEET.replace('fail-on = "none"', 'fail-on = "sometimes"'),
                 ":4: fail-on wants")):
            with open(toml, "w") as f:
                f.write(text)
            rc, out, err = run([DEMO], below)
            lines = err.splitlines()
            check(rc == 2 and out == "" and len(lines) == 1 and
                  lines[0].startswith("smcheck: " + toml) and words.replace(":  ", ": ") in lines[0],
                  "fail closed, %s: exit 2, one line naming the file and line" % what, (rc, err[:300]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
