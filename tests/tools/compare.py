"""What crosscheck.sh and judgecheck.sh share when they set smcheck's JSON beside a reference's."""
import json
import os
import re
import sys


def key(path):
    # "lib.a(member.o)" and "lib.a!member.o" name the same archive member
    m = re.match(r"^(.*\.a)\((.*)\)$", path)
    if m:
        path = m.group(1) + "!" + m.group(2)
    outer, sep, rest = path.partition("!")
    return os.path.normpath(outer) + sep + rest


def load(path, who):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as ex:
        print("cannot read the JSON of %s: %s" % (who, ex))
        sys.exit(1)
