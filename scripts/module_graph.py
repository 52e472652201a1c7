#!/usr/bin/env python3
"""The library's module graph, read from src/CMakeLists.txt (kinetrack_library calls: each
target's kinetrack dependencies, public and private), as the table docs/architecture.md shows between its `modules:begin` and `modules:end` markers (with
--sizes: each module's files and lines too, not in the doc: they change with every edit). Usage:
  scripts/module_graph.py            print the table
  scripts/module_graph.py --check F  exit 1 when F's table is not the printed one (ctest docs.modules)
  scripts/module_graph.py --write F  replace F's table"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- modules:begin (scripts/module_graph.py --write) -->", "<!-- modules:end -->"


def targets():
    text = (ROOT / "src" / "CMakeLists.txt").read_text()
    text = re.sub(r"#[^\n]*", "", text)
    found = {}
    for m in re.finditer(r"kinetrack_library\(\s*(\w+)(.*?)\)\s*\n", text, re.S):
        name, rest = m.group(1), m.group(2)
        deps = sorted({d for d in re.findall(r"kinetrack_(\w+)", rest) if d != name})
        found[name] = deps
    # Umbrella targets (add_library(kinetrack_<name> INTERFACE)): the modules they link.
    for m in re.finditer(r"target_link_libraries\(kinetrack_(\w+)\s+INTERFACE(.*?)\)", text, re.S):
        found[m.group(1)] = sorted(set(re.findall(r"kinetrack_(\w+)", m.group(2))))
    return found


def size(name):
    folder = "app" if name.startswith("app") else name.replace("io_", "io/") if name.startswith("io_") else name
    files = list((ROOT / "src" / folder).glob("*.cpp")) + list((ROOT / "include" / "kinetrack" / folder).glob("*.hpp"))
    if name == "app_tracking":
        files = [f for f in files if re.search(r"/(job|track_job|model_job)\.(c|h)pp$", str(f))]
    elif name == "app":
        files = [f for f in files if not re.search(r"/(job|track_job|model_job)\.(c|h)pp$", str(f))]
    return len(files), sum(len(f.read_text().splitlines()) for f in files)


def layers(graph):
    depth = {}

    def d(n):
        if n not in depth:
            depth[n] = 1 + max((d(x) for x in graph[n] if x in graph), default=-1)
        return depth[n]

    for n in graph:
        d(n)
    return depth


def table():
    graph = targets()
    depth = layers(graph)
    rows = ["| layer | module | depends on (kinetrack modules) |", "|---:|---|---|"]
    for name in sorted(graph, key=lambda n: (depth[n], n)):
        rows.append(f"| {depth[name]} | `{name}` | {', '.join(graph[name]) or '—'} |")
    return "\n".join(rows) + "\n"


def main():
    current = table()
    if len(sys.argv) == 1:
        print(current, end="")
        return 0
    if sys.argv[1] == "--sizes":
        for name in targets():
            files, lines = size(name)
            print(f"{name:14} {files:4} files {lines:7,} lines")
        return 0
    mode, path = sys.argv[1], pathlib.Path(sys.argv[2])
    text = path.read_text()
    a, b = text.index(BEGIN) + len(BEGIN) + 1, text.index(END)
    if mode == "--check":
        if text[a:b] != current:
            print(f"{path}: the module table is stale; run scripts/module_graph.py --write {path}", file=sys.stderr)
            return 1
        return 0
    path.write_text(text[:a] + current + text[b:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
