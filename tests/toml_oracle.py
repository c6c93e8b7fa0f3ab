#!/usr/bin/env python3
"""toml_oracle.py: the TOML reader (src/lib/acquire/toml.c) against Python's tomllib, the oracle.

Each TOML file given, then the edge cases below (written here, some generated: every order of
two and three table-defining statements, and seeded random mutations of a small lock file), is
read by `TEST_TOML --dump` and by tomllib: both must accept or both refuse, and what they accept
must be the same tree. Compared as JSON: date-times on both sides as tomllib's objects would print
(isoformat), any string shaped as one too; inf and nan as the driver's "__inf__" strings; integers
and floats as numbers. Where tomllib accepts what a cJSON tree cannot hold (an integer beyond
+-2^53, U+0000 in a string or key), the reader must refuse.

Usage: toml_oracle.py TEST_TOML [FILE...]   (exit status 0: all agree)"""
import datetime
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import tomllib

EXACT = 2**53

# The forms tomllib reads date-times in (its _re.py), to turn text back into the same objects.
RE_DATETIME = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"(?:[Tt ]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]+))?"
    r"(?:([Zz])|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))?)?"
)
RE_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]+))?")


def micros(frac):
    return int(frac.ljust(6, "0")[:6]) if frac else 0


def canon_str(s):
    """A string shaped as a date-time becomes the isoformat of what tomllib makes of it."""
    try:
        m = RE_DATETIME.fullmatch(s)
        if m:
            y, mo, d, h, mi, sec, frac, z, sign, oh, om = m.groups()
            if h is None:
                return datetime.date(int(y), int(mo), int(d)).isoformat()
            tz = None
            if z:
                tz = datetime.timezone.utc
            elif sign:
                delta = datetime.timedelta(hours=int(oh), minutes=int(om))
                tz = datetime.timezone(-delta if sign == "-" else delta)
            return datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec),
                                     micros(frac), tzinfo=tz).isoformat()
        m = RE_TIME.fullmatch(s)
        if m:
            h, mi, sec, frac = m.groups()
            return datetime.time(int(h), int(mi), int(sec), micros(frac)).isoformat()
    except ValueError:
        pass
    return s


class Unholdable(Exception):
    """What tomllib read holds something a cJSON tree cannot."""


def canon_expected(v):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if "\0" in k:
                raise Unholdable("U+0000 in a key")
            out[k] = canon_expected(x)
        return out
    if isinstance(v, list):
        return [canon_expected(x) for x in v]
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if abs(v) > EXACT:
            raise Unholdable(f"integer {v} beyond 2^53")
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "__nan__"
        if math.isinf(v):
            return "__inf__" if v > 0 else "__-inf__"
        return v
    if isinstance(v, str):
        if "\0" in v:
            raise Unholdable("U+0000 in a string")
        return canon_str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    raise TypeError(type(v))


def canon_got(v):
    if isinstance(v, dict):
        return {k: canon_got(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canon_got(x) for x in v]
    if isinstance(v, str):
        return canon_str(v)
    return v


def same(a, b):
    """Equal as trees, a bool never equal to a number (True == 1 in Python)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def oracle(data):
    """('ok', tree) or ('error', why), as the reader should answer."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return "error", f"tomllib: {e}"
    try:
        return "ok", canon_expected(doc)
    except Unholdable as e:
        return "error", f"cannot be held: {e}"


def run_driver(driver, paths):
    """The driver's line for each path; one that crashes is rerun a file at a time."""
    proc = subprocess.run([driver, "--dump", *paths], capture_output=True, timeout=600)
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode in (0, 1) and len(lines) == len(paths):
        return lines
    if len(paths) == 1:
        err = proc.stderr.decode(errors="replace")[-2000:]
        return [f"crash: exit status {proc.returncode}: {err}"]
    return [line for p in paths for line in run_driver(driver, [p])]


# --- the edge cases ---------------------------------------------------------------------------

CASES = [
    # keys
    b"a = 1", b"a.b.c = 1", b'a . "b c" . \'d\' = 1', b'"" = 1', b"'' = 1", b"1.2 = 3",
    b'"a.b" = 1\na.b = 2', b"a = 1\n\"a\" = 2", b"a = 1\na = 2", b"a.b = 1\na.b = 2",
    b"= 1", b"a. = 1", b".a = 1", b"a..b = 1", b"a b = 1", b'"""a""" = 1', b"'''a''' = 1",
    b'"a\nb" = 1', b"a\t=\t1", b"a = 1 # c", b"a=1\r\nb=2\r\n", b"a=1\rb=2",
    b"\xc3\xa9 = 1", b'"\xc3\xa9" = 1', b"a = 1\n\x00", b"\xef\xbb\xbfa = 1",
    b'"\\u0000" = 1', b'"\\u0001" = 1',
    # tables
    b"[a]\n[a]", b"[a]\n[b]\n[a.c]", b"[a.b]\n[a]", b"[a]\n[a.b]\n[a]", b"[a.b.c]\n[a]\nb.d = 1",
    b"[a.b.c]\n[a]\nb.d = 1\n[a.b]", b"[a.b.c]\n[a]\nb.d = 1\n[a.b.e]", b"[a]\nb.c = 1\n[a.b]",
    b"[a]\nb.c = 1\n[a.b.d]", b"[a.b]\n[a]\nb.c = 1", b"a.b = 1\n[a]", b"a.b = 1\n[a.c]",
    b"[fruit]\napple.color = 'red'\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true",
    b"[fruit]\napple.color = 'red'\n[fruit.apple]", b"[ a . b ]", b"[a] b = 1", b"[]", b"[a.]",
    b"[[a]]\n[a]", b"[a]\n[[a]]", b"a = []\n[[a]]", b"a = [{}]\n[[a]]", b"a = [{}]\n[a.b]",
    b"[[a]]\n[[a.b]]\n[a.b.c]\n[[a]]\n[a.b]", b"[[a.b]]\n[a]\nb.c = 1", b"[[a]]\n[x]\na.b = 1",
    b"[[a]]\nb = 1\n[[a]]\nb = 2", b"[[a] ]", b"[ [a]]", b"[[a]]]", b"[a]]", b"[[a]",
    b"a = {}\n[a]", b"a = {b = 1}\na.c = 2", b"a = {b = 1}\n[a.c]", b"a = {b = {}}\n[a.b.c]",
    b"a = {b.c = 1, b.d = 2}", b"a = {b = {}, b.c = 1}", b"a = {b.c = 1, b = 2}",
    b"a = {b = 1,}", b"a = {b = 1\n}", b"a = {\nb = 1}", b"a = {b = [\n1]}", b"a = {,}",
    b"a = 1\na.b = 2", b"a = 1\n[a.b]", b"a = 1\n[a]", b"a = 's'\n[[a.b]]",
    b"[a.b]\nc = 1\n[a]\nb.d = 2", b"[a]\nb.c.d = 1\nb.c.e = 2\nb.f = 3",
    # arrays
    b"a = []", b"a = [ ]", b"a = [1,]", b"a = [,]", b"a = [1,,2]", b"a = [1 2]",
    b"a = [\n1,\n# c\n2, # d\n]", b"a = [1, 'a', 2.0, [], {}, true, 1979-05-27]",
    b"a = [[[]]]", b"a = [1\n,2]", b"a = [", b"a = [1,", b"a = [1,\r2]",
    # strings
    b'a = "\\b\\t\\n\\f\\r\\"\\\\"', b'a = "\\u00e9\\U0001F600"', b'a = "\\uD800"',
    b'a = "\\uDFFF"', b'a = "\\U00110000"', b'a = "\\u12"', b'a = "\\x41"', b'a = "\\e"',
    b'a = "\\ "', b'a = "\\u0000"', b'a = "tab\there"', b'a = "\x01"', b"a = '\x7f'",
    b"a = 'C:\\path'", b"a = ''", b'a = ""', b'a = "', b"a = '", b'a = "a\nb"',
    b'a = """\nx"""', b'a = """\r\nx\r\ny"""', b'a = """a \\\n\n   b"""', b'a = """a \\   \n b"""',
    b'a = """a \\   b"""', b'a = """a\\\r\nb"""', b'a = """x""""', b'a = """x"""""',
    b'a = """x""""""', b'a = """"x"""', b'a = """"""', b'a = """\x1b"""', b'a = """x\ry"""',
    b"a = '''\nx'''", b"a = ''''x'''''", b"a = '''x''''''", b"a = '''\\n'''", b"a = '''x\ry'''",
    b"a = '''\x00'''", b"a = '''a\tb'''", b'a = "\xed\xa0\x80"', b'a = "\xc0\x80"',
    b'a = "\xf4\x90\x80\x80"', b'a = "\xe2\x82"', b"# \xff", b"# \x7f", b"# \ttab",
    # integers
    b"a = 0", b"a = +0", b"a = -0", b"a = 01", b"a = 0_1", b"a = 1_000", b"a = 1__0",
    b"a = 1_", b"a = _1", b"a = +17", b"a = -17", b"a = 0xDEADbeef", b"a = 0xdead_BEEF",
    b"a = 0o755", b"a = 0b1101", b"a = 0x", b"a = 0x_1", b"a = 0o8", b"a = 0b2", b"a = +0x1",
    b"a = -0o1", b"a = 0X1", b"a = 0B1", b"a = 9007199254740992", b"a = -9007199254740992",
    b"a = 9007199254740993", b"a = 9223372036854775807", b"a = 9223372036854775808",
    b"a = 0x1FFFFFFFFFFFFF", b"a = 0x20000000000001", b"a = 123abc", b"a = 1 2", b"a = 1.2.3",
    # floats
    b"a = 1.5", b"a = -0.0", b"a = +1.0", b"a = 1e5", b"a = 1E+05", b"a = 1e-05", b"a = 1.5e1_0",
    b"a = 224_617.445_991", b"a = .5", b"a = 5.", b"a = 1.e5", b"a = 1e", b"a = 1e_5",
    b"a = 01.5", b"a = 1.5_", b"a = 1_.5", b"a = 1._5", b"a = inf", b"a = +inf", b"a = -inf",
    b"a = nan", b"a = +nan", b"a = -nan", b"a = Inf", b"a = infinity", b"a = 1e400",
    b"a = 4.9e-324", b"a = 0.1", b"a = 3.141592653589793238462643", b"a = 1e-400",
    b"a = 6.02214076e23",
    # booleans
    b"a = true", b"a = false", b"a = True", b"a = truex", b"a = tru", b"a = [true,false]",
    # date-times
    b"a = 1979-05-27T07:32:00Z", b"a = 1979-05-27T00:32:00.999999-07:00",
    b"a = 1979-05-27 07:32:00+05:30", b"a = 1979-05-27t07:32:00z", b"a = 1979-05-27T07:32:00",
    b"a = 1979-05-27", b"a = 07:32:00", b"a = 00:32:00.5", b"a = 2024-02-29", b"a = 2023-02-29",
    b"a = 2000-02-29", b"a = 1900-02-29", b"a = 2023-13-01", b"a = 2023-04-31", b"a = 0000-01-01",
    b"a = 1979-5-27", b"a = 24:00:00", b"a = 23:59:60", b"a = 07:32", b"a = 1979-05-27T07:32",
    b"a = 1979-05-27 07:32", b"a = 1979-05-27T07:32:00+7:00", b"a = 1979-05-27T07:32:00+24:00",
    b"a = 1979-05-27T07:32:00.", b"a = 07:32:00Z", b"a = 1979-05-27 # c", b"a = 1979-05-27T",
    b"a = 2000-01-01T00:00:00.1234567891Z", b"a = [1979-05-27T07:32:00Z,07:32:00]",
    b"a = 1979-05-27T07:32:00-00:00", b"a = 1979-05-27T07:32:00 Z",
    # values out of place
    b"a =", b"a = # c", b"a = 1 b = 2", b"a = @", b"a 1", b"[a]\n= 1",
]

# Every order of two and three statements that define tables and keys in the ways TOML rules on.
STATEMENTS = [b"[a]", b"[a.b]", b"[[a]]", b"[[a.b]]", b"a.b = 1", b"a = 1", b"a = {}",
              b"a = [{}]", b"b.c = 1", b"[a.b.c]", b"a.b.c = 1", b"[x]"]

# A small lock file to mutate.
LOCK = b"""version = 1
requires-python = ">=3.10"

[[package]]
name = "numpy"
version = "2.2.6"
source = { registry = "https://pypi.org/simple" }
wheels = [
    { url = "https://x/n.whl", hash = "sha256:ab", size = 5, upload-time = 2025-04-07T13:32:52Z },
]

[package.metadata]
requires-dist = [{ name = "x", specifier = '>=1' }]

[[package.wheels2]]
hashes.sha256 = \"\"\"c1\\
  2\"\"\"
n = [0x1f, 1e3, -inf, 07:00:00]
"""
ALPHABET = b"[]{}=.,\"'#\n \t\\abc019_-+:eTZ\r"


def generated():
    yield from CASES
    for n in (2, 3):
        for combo in itertools.product(STATEMENTS, repeat=n):
            yield b"\n".join(combo)
    rng = random.Random(1)
    for _ in range(3000):
        data = bytearray(LOCK)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                del data[i]
            elif op == 1:
                data[i] = rng.choice(ALPHABET)
            else:
                data.insert(i, rng.choice(ALPHABET))
        yield bytes(data)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    driver = sys.argv[1]
    inputs = []
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            inputs.append((path, f.read(), path))
    with tempfile.TemporaryDirectory() as tmp:
        for i, data in enumerate(generated()):
            path = os.path.join(tmp, f"case{i}.toml")
            with open(path, "wb") as f:
                f.write(data)
            inputs.append((f"case {i}", data, path))
        lines = []
        for k in range(0, len(inputs), 500):
            lines += run_driver(driver, [p for _, _, p in inputs[k:k + 500]])
    bad = accepted = 0
    for (name, data, _), line in zip(inputs, lines):
        want, what = oracle(data)
        if line.startswith("crash"):
            got, tree = "crash", line
        elif line.startswith("error: "):
            got, tree = "error", line[7:]
        else:
            got, tree = "ok", canon_got(json.loads(line))
        agree = got == want and (got == "error" or same(tree, what))
        accepted += got == "ok"
        if not agree:
            bad += 1
            print(f"DISAGREE {name}: {data[:300]!r}")
            print(f"  tomllib: {want}: {str(what)[:300]}")
            print(f"  reader:  {got}: {str(tree)[:300]}")
    print(f"{len(inputs)} inputs ({accepted} accepted by the reader), {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
