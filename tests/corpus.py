#!/usr/bin/env python3
"""corpus.py OUT FIXTURES_DIR: writes the generated corpora several tests read (ctest's fixture
`corpus`, in SMCHECK_TEST_CORPUS): OUT/wheels (tests/make_wheels.py) and OUT/hostile
(fixtures/gen.py --hostile), both at once, then OUT/done. A test reads them and writes nothing
there (harness.corpus)."""
import os
import subprocess
import sys

from harness import make_corpus


def main():
    out, fixtures = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.path.exists(out):
        subprocess.run(["chmod", "-R", "u+rwx", out], check=True)
        subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    runs = [(kind, subprocess.Popen(make_corpus(kind, os.path.join(out, kind), fixtures),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            for kind in ("wheels", "hostile")]
    failed = 0
    for kind, p in runs:
        _, err = p.communicate()
        if p.returncode:
            print("FAILED the %s corpus (exit %d): %s" % (kind, p.returncode, err.decode()[-2000:]))
            failed += 1
        else:
            print("ok     the %s corpus in %s" % (kind, os.path.join(out, kind)))
    if failed:
        return 1
    open(os.path.join(out, "done"), "w").close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
