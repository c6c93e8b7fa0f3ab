#!/usr/bin/env python3
"""The library's layers, checked in the built objects: who calls whom between source files.

Usage: layers.py LIBSMCHECK_A [--show]
Reads the archive with nm: each object's defined functions and the symbols it leaves undefined;
an object that uses a symbol another defines calls into it. Then checks, following those edges
transitively:
  - the printers (report_text, report_json) reach none of the readers, the judge, derive or the
    advice: they only read a finished result;
  - the judge (verdict, describe, serves) reaches no reader and nothing of derive or the printers;
  - the readers reach neither the judge nor the printers;
  - there is no cycle of calls among the files (readers below the model, the judge below derive,
    printers on top);
  - the judge and the rules do no I/O (no open, read, mmap, fopen ... among their undefined
    symbols), and one finder reads containers: only finder and fatbin use the container and entry
    header parsers.
--show prints the graph, one file and what it calls per line. Prints one line per rule, then
"N passed, M failed".
"""
import re
import subprocess
import sys

from harness import check, equal, finish

READERS = {"scan", "wheel", "entry", "conda", "image", "walk", "env", "meta", "finder", "fatbin",
           "elf", "pe", "inflate", "deflate", "pinflate", "source", "containers"}
JUDGE = {"verdict", "describe", "serves"}
DERIVE = {"check"}
ADVICE = {"builds"}
PRINTERS = {"report_text", "report_json"}


def graph(archive):
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        m = re.match(r"[^:]*:([^:]+)\.c\.o:\s*(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        used.setdefault(obj, set())
        if kind in "TDRB":
            defined[sym] = obj
        elif kind == "U":
            used[obj].add(sym)
    edges = {o: {defined[s] for s in syms if s in defined and defined[s] != o}
             for o, syms in used.items()}
    return edges, used


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


def forbid(edges, group, banned, what):
    bad = [(a, b) for a in sorted(group & set(edges)) for b in sorted(reach(edges, a) & banned)]
    check(not bad, what, "; ".join(path(edges, a, b) for a, b in bad[:3]))


def main():
    edges, used = graph(sys.argv[1])
    if "--show" in sys.argv:
        for o in sorted(edges):
            print(f"{o}: {' '.join(sorted(edges[o]))}")
    check(PRINTERS <= set(edges) and "verdict" in edges, f"{len(edges)} objects read")
    forbid(edges, PRINTERS, READERS | JUDGE | DERIVE | ADVICE,
           "printers reach no reader, judge, derive or advice")
    forbid(edges, JUDGE, READERS | DERIVE | PRINTERS, "the judge reaches no reader, derive or printer")
    forbid(edges, READERS, JUDGE | DERIVE | ADVICE | PRINTERS,
           "readers reach no judge, derive, advice or printer")
    io = {"open", "openat", "read", "pread", "pread64", "mmap", "mmap64", "fopen", "fopen64",
          "fread", "readdir", "opendir", "dlopen"}
    bad = {o: sorted(used.get(o, set()) & io) for o in sorted(JUDGE | {"rules", "versions"})}
    check(not any(bad.values()), "the judge and the rules do no I/O",
          "; ".join(f"{o}: {' '.join(v)}" for o, v in bad.items() if v))
    parsers = {"smc_fatbin_header", "smc_fatbin_entry"}
    readers = sorted(o for o, syms in used.items() if syms & parsers)
    check(set(readers) <= {"finder", "containers", "fatbin"}, "one finder: only the finder "
          "(finder, containers) and fatbin parse container and entry headers", " ".join(readers))
    found = cycles(edges)
    check(not found, "no cycle of calls among the files", "; ".join(" ".join(c) for c in found))
    return finish()


if __name__ == "__main__":
    sys.exit(main())
