#!/usr/bin/env python3
"""fleet.py SMCHECK FIXTURES_DIR: a fleet declared once, in pyproject.toml's [tool.smcheck]
(issue 47). A project judged with no options judges each target as if its gpus, driver and
platform were given, found from a folder below the file as ruff finds its; the reports name the
targets in text, JSON (valid against docs/report.schema.json) and SARIF (a run each); the exit
status is the worst; fail-on comes from the file unless --fail-on says otherwise; --gpu (or
--driver, --platform) leaves the fleet out, said once; --no-config ignores it and --config names
another. Fail closed: a fleet that is not TOML, empty, with a key or value smcheck does not take,
or a target the command line would refuse is exit 2 naming its line, never a pass. skylos's
.skylos/gpu-targets.yml (version 1) is read as its fleet where no pyproject.toml declares one,
as strictly as skylos reads it. Prints one line per check and "N passed, M failed"."""
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

SKYLOS = """# the fleet skylos preflight checks
version: 1
targets:
  - name: training
    vendor: nvidia
    driver: "580.65.06"
    compute_capability: "9.0"
    platform: linux/amd64
  - name: workstation
    vendor: NVIDIA
    driver: r580
    compute_capability: sm_120
    platform: linux
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
        skylos(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish()


def skylos(work):
    """skylos's .skylos/gpu-targets.yml: found as pyproject.toml is, judged the same way, refused
    (exit 2, one line naming the file and line) wherever skylos would refuse it, and where a
    target names no compute capability (smcheck would have no GPU to judge)."""
    repo = os.path.join(work, "skylos-repo")
    below = os.path.join(repo, "pkg")
    os.makedirs(os.path.join(repo, ".skylos"))
    os.makedirs(below)
    yml = os.path.join(repo, ".skylos", "gpu-targets.yml")
    with open(yml, "w") as f:
        f.write(SKYLOS)
    rc, out, err = run([DEMO], below)
    heads = [l for l in out.splitlines() if l.startswith("== fleet target ")]
    check(rc == 1 and heads == [
        "== fleet target training (%s:4): --gpu 9.0 --driver 580.65.06 --platform linux/amd64" % yml,
        "== fleet target workstation (%s:9): --gpu 12.0 --driver 580" % yml] and
        "overall: sm_120 none" in out and
        err == "smcheck: %s:9: target 'workstation': platform linux names no architecture "
               "(amd64, arm64): where the libraries load is not checked\n" % yml,
        "skylos's gpu-targets.yml, no options, from a folder below: each target judged (its "
        "compute capability as the GPU, r580 as 580, 'linux' alone said to check no "
        "architecture)", (rc, heads, err[-300:]))

    # Every spelling skylos takes of a compute capability, a driver and a platform.
    spelled = SKYLOS.replace('"9.0"', '"90-real"').replace("sm_120", '"compute_86"').replace(
        "linux/amd64", "Windows/ARM64").replace("r580", '"570.124"')
    with open(yml, "w") as f:
        f.write(spelled.replace("platform: linux\n", "platform: linux/arm64\n"))
    rc, out, err = run([DEMO], below)
    heads = [l for l in out.splitlines() if l.startswith("== fleet target ")]
    check(heads == [
        "== fleet target training (%s:4): --gpu 9.0 --driver 580.65.06 --platform windows/arm64" % yml,
        "== fleet target workstation (%s:9): --gpu 8.6 --driver 570.124 --platform linux/arm64" % yml]
        and rc == 1 and "an x86-64 ELF library: it cannot load on windows-arm64" in out,
        "skylos's spellings: 90-real, compute_86, Windows/ARM64 (a Linux wheel is the wrong "
        "platform there), 570.124", (rc, heads, out[:400]))
    with open(yml, "w") as f:
        f.write(SKYLOS.replace('"9.0"', '"75"').replace("sm_120", '"8.6+ptx"'))
    rc, out, err = run(["--format", "json", DEMO], below)
    doc = json.loads(out) if out.startswith("{") else {}
    gpus = [[g["token"] for g in t["report"]["targets"]] for t in doc.get("fleet", {}).get("targets", [])]
    check(gpus == [["sm_75"], ["sm_86"]] and doc["fleet"]["path"] == yml,
          "JSON: '75' and '8.6+ptx' are GPUs sm_75 and sm_86; the fleet's path is the YAML file",
          (gpus, out[:200]))

    # pyproject.toml's [tool.smcheck] in the same folder is smcheck's own: it wins.
    toml = os.path.join(repo, "pyproject.toml")
    with open(toml, "w") as f:
        f.write(FLEET)
    rc, out, err = run([DEMO], below)
    check(out.count("== fleet target") == 2 and ("(%s:7)" % toml) in out,
          "a [tool.smcheck] beside .skylos/: pyproject.toml's fleet is judged", out[:200])
    os.remove(toml)
    yaml_path = os.path.join(work, "fleet.yaml")
    with open(yaml_path, "w") as f:
        f.write(SKYLOS)
    rc, out, err = run(["--config", yaml_path, DEMO], work)
    check(rc == 1 and out.count("== fleet target") == 2, "--config a .yaml file: skylos's contract",
          (rc, err[-200:]))

    for what, text, words in (
            ("not YAML", SKYLOS.replace("    vendor: NVIDIA", "   vendor: [nvidia"), "not YAML"),
            ("version quoted", SKYLOS.replace("version: 1", 'version: "1"'), ":2: version must be 1, unquoted"),
            ("version 2", SKYLOS.replace("version: 1", "version: 2"), ":2: version must be 1"),
            ("no version", SKYLOS.replace("version: 1\n", ""), "version must be 1, unquoted (the version of skylos's contract that smcheck reads); it is not given"),
            ("a key skylos does not know", SKYLOS + "gpus: a100\n", ":14: has a key skylos's version 1 does not know: 'gpus'"),
            ("no targets", "version: 1\ntargets: []\n", ":2: targets must be a list of 1 to 256"),
            ("a target key skylos does not know", SKYLOS.replace("    vendor: NVIDIA", "    vendor: NVIDIA\n    gpus: rtx-5090"),
             ":11: target 2: has a key skylos's version 1 does not know: 'gpus'"),
            ("a key given twice", SKYLOS.replace("    platform: linux\n", "    platform: linux\n    vendor: nvidia\n"),
             ":14: target 2: gives 'vendor' twice"),
            ("another vendor", SKYLOS.replace("vendor: NVIDIA", "vendor: amd"), ":10: target 2: vendor must be nvidia"),
            ("no vendor", SKYLOS.replace("    vendor: NVIDIA\n", ""), ":9: target 2: vendor must be nvidia (it is not given)"),
            ("no compute capability (a driver only)", SKYLOS.replace("    compute_capability: sm_120\n", ""),
             ":9: target 2: names no compute_capability"),
            ("a compute capability read as a float", SKYLOS.replace('"9.0"', "9.0"),
             ":7: target 1: compute_capability must be a string: '9.0' is read as a float"),
            ("a driver read as an integer", SKYLOS.replace("r580", "580"),
             ":11: target 2: driver must be a string: '580' is read as an integer"),
            ("a compute capability skylos does not take", SKYLOS.replace("sm_120", "sm_90a"),
             ":12: target 2: compute_capability 'sm_90a' is none of"),
            ("a driver skylos does not take", SKYLOS.replace("r580", "latest"), ":11: target 2: driver 'latest' is none of"),
            ("a platform skylos does not take", SKYLOS.replace("platform: linux\n", "platform: linux/ppc64le\n"),
             ":13: target 2: platform 'linux/ppc64le' is none of"),
            ("two targets of one name", SKYLOS.replace("name: workstation", "name: training "),
             ":9: target 2: is named 'training', as target 1 is"),
            ("an alias", SKYLOS.replace('driver: "580.65.06"', "driver: &d \"580.65.06\"").replace("driver: r580", "driver: *d"),
             ":11: an alias (*name): none is read here"),
            ("a tag", SKYLOS.replace("r580", "!!int 580"), ":11: target 2: driver has a tag (tag:yaml.org,2002:int)"),
            ("a second document", SKYLOS + "---\nversion: 1\n", ":15: holds a second document"),
            ("a list, not a mapping", "- version: 1\n", ":1: is not a mapping of version and targets"),
            ("empty", "# nothing\n", ": is empty")):
        with open(yml, "w") as f:
            f.write(text)
        rc, out, err = run([DEMO], below)
        lines = err.splitlines()
        check(rc == 2 and out == "" and len(lines) == 1 and lines[0].startswith("smcheck: " + yml)
              and words in lines[0], "skylos's file fails closed, %s: exit 2, one line naming it"
              % what, (rc, err[:300]))

    # Read as skylos reads it: a regular file of at most 1,000,000 bytes, never through a link.
    os.remove(yml)
    real = os.path.join(work, "real-targets.yml")
    with open(real, "w") as f:
        f.write(SKYLOS)
    os.symlink(real, yml)
    rc, out, err = run([DEMO], below)
    check(rc == 2 and out == "" and "a symbolic link" in err and err.count("\n") == 1,
          "a symbolic link as .skylos/gpu-targets.yml: exit 2, not followed", (rc, err[:300]))
    os.remove(yml)
    with open(yml, "w") as f:
        f.write(SKYLOS + "#" * 1000000 + "\n")
    rc, out, err = run([DEMO], below)
    check(rc == 2 and out == "" and "not a regular file of at most 1,000,000 bytes" in err,
          "a gpu-targets.yml over 1,000,000 bytes: exit 2", (rc, err[:300]))


if __name__ == "__main__":
    sys.exit(main())
