#!/usr/bin/env python3
"""k8s_manifests.py: deploy/kubernetes/*.yaml against the Kubernetes API's schema (v1.35, strict:
a field the API does not know is an error), offline, from tests/schemas/kubernetes.json
(tools/k8s-schema.py); then what the schema cannot say: the audit is an Indexed Job whose
completions are the N of its `--shard /N`, retried per index, its pods never restarted in place;
the merge and the store use the audit's volume at the path it writes; the store's Service selects
its pods; the image is deploy/Dockerfile's for this version. A manifest with a misspelt field is
refused, so the validation can fail. Prints one line per check and "N passed, M failed"."""
import copy
import glob
import json
import os
import re
import sys

from harness import check, finish

try:
    import yaml
    from jsonschema import Draft202012Validator
except ImportError as e:  # the README's packages have both (python3-yaml, python3-jsonschema)
    print("skip   %s" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def errors(schema, doc):
    kind = "%s/%s" % (doc.get("apiVersion"), doc.get("kind"))
    root = schema["kinds"].get(kind)
    if root is None:
        return ["%s: a kind the schema does not hold" % kind]
    v = Draft202012Validator(dict(root, **{"$defs": schema["$defs"]}))
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message[:200])
            for e in v.iter_errors(doc)]


def main():
    with open(os.path.join(HERE, "schemas", "kubernetes.json")) as f:
        schema = json.load(f)
    docs = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "deploy", "kubernetes", "*.yaml"))):
        with open(path) as f:
            for d in yaml.safe_load_all(f):
                if d:
                    docs[(d["kind"], d["metadata"]["name"])] = d
                    errs = errors(schema, d)
                    check(not errs, "%s: %s %s is valid against the API's schema" % (
                        os.path.basename(path), d["kind"], d["metadata"]["name"]), errs[:3])
    audit = docs.get(("Job", "smcheck-audit"))
    merge = docs.get(("Job", "smcheck-merge"))
    store = docs.get(("Deployment", "smcheck-facts"))
    service = docs.get(("Service", "smcheck-facts"))
    check(audit and merge and store and service and ("ConfigMap", "smcheck-projects") in docs and
          ("PersistentVolumeClaim", "smcheck-facts") in docs,
          "the audit and merge Jobs, the store's Deployment and Service, the volume and the "
          "projects are there", sorted(docs))
    if not (audit and merge and store and service):
        return finish()

    spec = audit["spec"]
    pod = spec["template"]["spec"]
    args = pod["containers"][0]["args"]
    shard = args[args.index("--shard") + 1] if "--shard" in args else ""
    out = args[args.index("--output") + 1] if "--output" in args else ""
    check(spec.get("completionMode") == "Indexed" and re.fullmatch(r"/\d+", shard) and
          int(shard[1:]) == spec.get("completions") and
          spec.get("parallelism", 1) <= spec["completions"] and
          spec.get("backoffLimitPerIndex", 0) >= 1 and pod.get("restartPolicy") == "Never" and
          args[0] == "audit",
          "the audit: an Indexed Job of %s completions, each pod its JOB_COMPLETION_INDEX of "
          "--shard %s, retried per index, never restarted in place" % (spec.get("completions"),
                                                                      shard))

    def claim_at(p, path):
        mounts = {m["name"]: m["mountPath"] for m in p["containers"][0].get("volumeMounts", [])}
        for v in p.get("volumes", []):
            c = v.get("persistentVolumeClaim", {}).get("claimName")
            if c and mounts.get(v["name"]) == path:
                return c
        return None

    margs = merge["spec"]["template"]["spec"]["containers"][0]["args"]
    claim = claim_at(pod, out)
    check(claim and claim_at(merge["spec"]["template"]["spec"],
                             margs[margs.index("--output") + 1]) == claim and
          margs[:2] == ["audit", "--merge"] and
          claim_at(store["spec"]["template"]["spec"], "/usr/share/nginx/html") == claim,
          "the merge and the store use the volume the audit writes (%s at %s)" % (claim, out))
    labels = store["spec"]["template"]["metadata"]["labels"]
    check(all(labels.get(k) == v for k, v in service["spec"]["selector"].items()) and
          store["spec"]["selector"]["matchLabels"] == service["spec"]["selector"],
          "the store's Service selects its pods")
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        version = re.search(r"project\(smcheck VERSION ([0-9.]+)", f.read()).group(1)
    with open(os.path.join(ROOT, "deploy", "Dockerfile")) as f:
        dockerfile = f.read()
    images = {p["spec"]["template"]["spec"]["containers"][0]["image"] for p in (audit, merge)}
    check(images == {"smcheck:%s" % version} and "ARG VERSION=%s" % version in dockerfile and
          "dist/smcheck-${VERSION}-linux-${ARCH}.tar.gz" in dockerfile,
          "the Jobs run deploy/Dockerfile's image of this version (smcheck:%s), made from the "
          "release tarball" % version, images)

    # Where tools/build-wheel.sh has made the tarball, the Dockerfile's link is to a file in it.
    link = re.search(r"ln -s /opt/(\S+) /usr/local/bin/smcheck", dockerfile)
    tarball = os.path.join(ROOT, "dist", "smcheck-%s-linux-x86_64.tar.gz" % version)
    if link and os.path.exists(tarball):
        import tarfile
        with tarfile.open(tarball) as t:
            member = link.group(1).replace("${VERSION}", version).replace("${ARCH}", "x86_64")
            check(member in t.getnames(), "the image's smcheck is the tarball's %s" % member)
    else:
        check(link is not None, "the Dockerfile links the tarball's smcheck onto PATH "
              "(no dist/ tarball here to look into)")

    # The validation can fail: a misspelt field, a value of the wrong type.
    bad = copy.deepcopy(audit)
    bad["spec"]["completion"] = bad["spec"].pop("completions")
    worse = copy.deepcopy(audit)
    worse["spec"]["parallelism"] = "sixteen"
    check(errors(schema, bad) and errors(schema, worse),
          "a misspelt field (completion) and a string for an integer are refused",
          (errors(schema, bad)[:1], errors(schema, worse)[:1]))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
