#!/usr/bin/env python3
"""tools/k8s-schema.py [WHEEL]: writes tests/schemas/kubernetes.json, the part of the Kubernetes
API's JSON schema (v1.35, strict: no property the API does not know) that the manifests of
deploy/kubernetes/ use: Job, Deployment, Service, PersistentVolumeClaim and ConfigMap, with every
definition they reach and no other. The schemas come from kubernetes-validate 1.37.0 on PyPI
(Apache-2.0; generated from the Kubernetes OpenAPI document, itself Apache-2.0), downloaded with
pip unless WHEEL names it; the API's descriptions are left out. tests/k8s_manifests.py validates the manifests against it, offline."""
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "schemas", "kubernetes.json")
VERSION = "v1.35.0-local-strict"
KINDS = {"batch/v1/Job": "job-batch-v1", "apps/v1/Deployment": "deployment-apps-v1",
         "v1/Service": "service-v1", "v1/PersistentVolumeClaim": "persistentvolumeclaim-v1",
         "v1/ConfigMap": "configmap-v1"}
REF = re.compile(r'"\$ref": "(?:/api/_definitions\.json)?#/\$defs/([^"]+)"')


def main():
    with tempfile.TemporaryDirectory() as tmp:
        wheel = sys.argv[1] if len(sys.argv) > 1 else None
        if not wheel:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp,
                            "kubernetes-validate==1.37.0"], check=True)
            wheel = os.path.join(tmp, os.listdir(tmp)[0])
        base = "kubernetes_validate/kubernetes-json-schema/%s/" % VERSION
        with zipfile.ZipFile(wheel) as z:
            defs = json.loads(z.read(base + "_definitions.json"))["$defs"]
            roots = {k: json.loads(z.read(base + f + ".json")) for k, f in KINDS.items()}
    keep, todo = set(), [m for r in roots.values() for m in REF.findall(json.dumps(r))]
    while todo:
        name = todo.pop()
        if name not in keep:
            keep.add(name)
            todo += REF.findall(json.dumps(defs[name]))
    def fix(o):  # local references; the API's descriptions dropped (they are most of the bytes)
        o = json.loads(REF.sub(r'"$ref": "#/$defs/\1"', json.dumps(o)))
        return strip(o)

    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items()
                    if not (k == "description" and isinstance(v, str))}
        return [strip(v) for v in o] if isinstance(o, list) else o
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema",
           "description": "Kubernetes %s API schema, strict, for %s (tools/k8s-schema.py, from "
                          "kubernetes-validate 1.37.0, Apache-2.0)" % (VERSION, ", ".join(KINDS)),
           "kinds": {k: fix(r) for k, r in roots.items()},
           "$defs": {n: fix(defs[n]) for n in sorted(keep)}}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("%s: %d kinds, %d definitions, %d bytes" % (OUT, len(roots), len(keep),
                                                      os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
