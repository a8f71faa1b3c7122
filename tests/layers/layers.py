#!/usr/bin/env python3
"""layers.py: no two files of a module call each other, directly or in a
circle, and no two modules do.

Arguments: the modules' static libraries (lib*.a) or folders of object
files (an executable's objects).  Reads their symbols with nm: a file
calls another when it uses a symbol the other defines.  Prints each
circle found and exits 1; 0 when the calls form layers."""
import os
import subprocess
import sys


def members(path):
    """{file name: (defined symbols, used symbols)} of an archive or a
    folder of objects."""
    if os.path.isdir(path):
        objs = [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith('.o')]
        out = subprocess.run(['nm', '-A'] + objs, capture_output=True, text=True, check=True).stdout
    else:
        out = subprocess.run(['nm', '-A', path], capture_output=True, text=True, check=True).stdout
    files = {}
    for line in out.splitlines():
        where, _, rest = line.rpartition(':')
        name = os.path.basename(where).replace('.c.o', '.c')
        p = rest.split()
        d, u = files.setdefault(name, (set(), set()))
        if len(p) == 3 and p[1] in 'TDBRC':
            d.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            u.add(p[1])
    return files


def circles(edges):
    """The strongly connected components with more than one node
    (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def calls(files):
    """{caller: {callee: [symbols]}} between the given files."""
    owner = {s: f for f, (d, _) in files.items() for s in d}
    edges = {}
    for f, (_, used) in files.items():
        for s in used:
            g = owner.get(s)
            if g and g != f:
                edges.setdefault(f, {}).setdefault(g, []).append(s)
    return edges


def report(kind, comps, edges):
    for comp in comps:
        print('%s call each other in a circle: %s' % (kind, ', '.join(comp)))
        for a in comp:
            for b, syms in sorted(edges.get(a, {}).items()):
                if b in comp:
                    print('  %s -> %s (%s)' % (a, b, ', '.join(sorted(syms)[:4])))


def main(paths):
    bad = 0
    modules = {}
    for path in paths:
        name = os.path.basename(path.rstrip('/'))
        files = members(path)
        if not files:
            print('%s: no object files' % path)
            return 1
        edges = calls(files)
        comps = circles(edges)
        report('files of ' + name, comps, edges)
        bad += len(comps)
        d = set().union(*(f[0] for f in files.values()))
        u = set().union(*(f[1] for f in files.values()))
        modules[name] = (d, u - d)
    medges = calls(modules)
    comps = circles(medges)
    report('modules', comps, medges)
    bad += len(comps)
    print('%d modules, %d circles' % (len(paths), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
