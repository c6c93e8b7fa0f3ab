#!/usr/bin/env python3
"""The library's wings and layers, checked in the built objects: who calls whom between files.

Usage: layers.py LIBSMCHECK_A SRC_LIB [--show]
A file's wing is the folder of SRC_LIB it lives in; WINGS gives their order, lowest first, and
every folder must be one of them. Reads the archive with nm: each object's defined functions and
the symbols it leaves undefined; an object that uses a symbol another defines calls into it. Then
checks, following those edges transitively:
  - every source file of SRC_LIB is in the archive, and every object of the archive comes from
    one (or is a table generated from data/);
  - calls go down the wings, never up: a file calls only files of its own wing or of lower ones;
  - the printers (print) reach no reader (bytes, find, acquire, read), no judge and no derive:
    they only read a finished result;
  - the judge reaches no reader, nothing of derive and no printer;
  - there is no cycle of calls among the files;
  - each wing's headers (its folder's, and for targets and derive smcheck/targets.h and
    smcheck/builds.h, which the command includes too) declare no function that another wing's
    files define (static inline ones aside); smcheck/model.h, the shared model, is the one
    exception;
  - the judge and the rules do no I/O (no open, read, mmap, fopen ... among their undefined
    symbols), and one finder reads containers: only the find wing and fatbin use the container
    and entry header parsers.
--show prints the graph, one file (wing/name) and what it calls per line. Prints one line per
rule, then "N passed, M failed".
"""
import os
import re
import subprocess
import sys

from harness import check, equal, finish

WINGS = ["base", "rules", "targets", "bytes", "find", "acquire", "read", "judge", "derive",
         "print", "api"]
READERS = {"bytes", "find", "acquire", "read"}
TABLES = {"gpu_table", "builds_table", "cpu_builds", "loaders", "support", "uses"}  # from data/


def wings_of(src):
    """Each source file's wing, by the folder it lives in; and the folders that are no wing."""
    wing, strays = {}, []
    for d in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, d)):
            strays.append(d)
            continue
        if d not in WINGS:
            strays.append(d + "/")
        for f in os.listdir(os.path.join(src, d)):
            if f.endswith(".c"):
                wing[f[:-2]] = d
    return wing, strays


def graph(archive):
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    defined, used, functions = {}, {}, {}
    for line in out.splitlines():
        m = re.match(r"[^:]*:([^:]+)\.c\.o:\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        used.setdefault(obj, set())
        if kind in "TDRB":
            defined[sym] = obj
        if kind == "T":
            functions[sym] = obj
        elif kind == "U":
            used[obj].add(sym)
    edges = {o: {defined[s] for s in syms if s in defined and defined[s] != o}
             for o, syms in used.items()}
    # ar lists every member, nm only those with symbols (pinflate.c built without ISA-L has none)
    members = subprocess.run(["ar", "t", archive], capture_output=True, text=True, check=True).stdout
    objects = {m[:-4] for m in members.split() if m.endswith(".c.o")}
    return edges, used, objects, functions


def reach(edges, start):
    seen, todo = set(), [start]
    while todo:
        for n in edges.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def path(edges, start, goal):
    """A chain of calls from start to goal, for the message."""
    prev, todo = {start: None}, [start]
    while todo:
        n = todo.pop(0)
        if n == goal:
            chain = []
            while n:
                chain.append(n)
                n = prev[n]
            return " -> ".join(reversed(chain))
        for m in sorted(edges.get(n, ())):
            if m not in prev:
                prev[m] = n
                todo.append(m)
    return ""


def cycles(edges):
    """The strongly connected components of more than one file (Tarjan's, iteratively)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        n = stack.pop()
                        on.discard(n)
                        comp.append(n)
                        if n == node:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def declared(path):
    """The functions a header declares at file scope (not static inline ones)."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    inline = set(re.findall(r"static\s+inline\b[^;{]*?\b(smc\w*_\w+)\s*\(", text))
    return set(re.findall(r'^(?!static|typedef|#|\s|extern "C"|})[^;{}()]*?\b(smc\w*_\w+)\s*\(',
                          text, flags=re.M)) - inline


def headers(src):
    """Each wing header (its path) and its wing."""
    out = {os.path.join(src, d, f): d for d in WINGS if os.path.isdir(os.path.join(src, d))
           for f in os.listdir(os.path.join(src, d)) if f.endswith(".h")}
    shared = os.path.join(src, "..", "include", "smcheck")
    out.update({os.path.join(shared, "targets.h"): "targets",
                os.path.join(shared, "builds.h"): "derive"})
    return out


def forbid(edges, group, banned, what):
    bad = [(a, b) for a in sorted(group & set(edges)) for b in sorted(reach(edges, a) & banned)]
    check(not bad, what, "; ".join(path(edges, a, b) for a, b in bad[:3]))


def main():
    edges, used, members, functions = graph(sys.argv[1])
    wing, strays = wings_of(sys.argv[2])
    if "--show" in sys.argv:
        for o in sorted(edges, key=lambda o: (WINGS.index(wing.get(o, "base")), o)):
            print(f"{wing.get(o, 'data')}/{o}: {' '.join(sorted(edges[o]))}")
    check(not strays, f"src/lib holds only the wings' folders ({len(WINGS)})", " ".join(strays))
    objects = members - TABLES
    equal(sorted(objects), sorted(wing), f"{len(wing)} source files, each in the archive")
    level = {o: WINGS.index(w) for o, w in wing.items()}
    level.update({t: 0 for t in TABLES})
    up = sorted(f"{wing[a]}/{a} -> {wing[b]}/{b}" for a in sorted(objects & set(wing))
                for b in edges.get(a, ()) if level.get(b, 0) > level[a])
    check(not up, "calls go down the wings, never up", "; ".join(up[:5]))

    def files(*names):
        return {o for o, w in wing.items() if w in names}
    forbid(edges, files("print"), files(*READERS, "judge", "derive"),
           "printers reach no reader, judge or derive")
    forbid(edges, files("judge"), files(*READERS, "derive", "print"),
           "the judge reaches no reader, derive or printer")
    forbid(edges, files(*READERS), files("judge", "derive", "print"),
           "readers reach no judge, derive or printer")
    io = {"open", "openat", "read", "pread", "pread64", "mmap", "mmap64", "fopen", "fopen64",
          "fread", "readdir", "opendir", "dlopen"}
    bad = {o: sorted(used.get(o, set()) & io) for o in sorted(files("judge", "rules"))}
    check(not any(bad.values()), "the judge and the rules do no I/O",
          "; ".join(f"{o}: {' '.join(v)}" for o, v in bad.items() if v))
    parsers = {"smc_fatbin_header", "smc_fatbin_entry"}
    readers = sorted(o for o, syms in used.items() if syms & parsers)
    check(set(readers) <= files("find") | {"fatbin"}, "one finder: only the find wing and fatbin "
          "parse container and entry headers", " ".join(readers))
    foreign = []
    for h, w in sorted(headers(sys.argv[2]).items()):
        # A function no object defines is not another wing's (pinflate.c without ISA-L defines
        # nothing its header declares).
        foreign += [f"{os.path.basename(h)}: {n} ({wing[functions[n]]})" for n in sorted(declared(h))
                    if n in functions and wing.get(functions[n]) != w]
    check(not foreign, "each wing's headers declare only its own functions", "; ".join(foreign[:5]))
    found = cycles(edges)
    check(not found, "no cycle of calls among the files", "; ".join(" ".join(c) for c in found))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
