#!/usr/bin/env python3
"""Compact fuzz seeds: small, still valid copies of the shared recordings and models (issue 20).

The shared files are 60 KB-3 MB; libFuzzer mutates and re-parses a seed per execution, so whole
files give 80-600 executions per second and cutting them at -max_len leaves the XML and binary
readers with inputs they refuse at the cut (the mvnx harness covered 140 edges at 4 KB instead
of 562). This script writes, for each reader, the same files shortened to a few frames (their
frame counts patched so they stay valid) or, for models, to a few of each element, into
OUTDIR/<reader>/. scripts/fuzz.sh calls it; the outputs live in the build tree, never in the
project (the originals are ../shared's).

Usage: scripts/fuzz_seeds.py SHARED OUTDIR [--frames N]
"""
from __future__ import annotations

import argparse
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def text_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)


def bvh(path: Path, frames: int) -> bytes | None:
    lines = text_lines(path)
    for i, line in enumerate(lines):
        if line.strip().startswith("Frames:"):
            eol = "\r\n" if line.endswith("\r\n") else "\n"
            lines[i] = f"Frames: {frames}{eol}"
            # "Frame Time:" follows, then the rows.
            return "".join(lines[: i + 2 + frames]).encode("utf-8", "surrogateescape")
    return None


def trc(path: Path, frames: int) -> bytes | None:
    lines = text_lines(path)
    if len(lines) < 6:
        return None
    keys = lines[1].rstrip("\r\n").split("\t")
    values = lines[2].rstrip("\r\n").split("\t")
    for key in ("NumFrames", "OrigNumFrames"):
        if key in keys and keys.index(key) < len(values):
            values[keys.index(key)] = str(frames)
    eol = "\r\n" if lines[2].endswith("\r\n") else "\n"
    lines[2] = "\t".join(values) + eol
    # Header (5 lines, blank lines after it), then the rows.
    start = 5
    while start < len(lines) and lines[start].strip() == "":
        start += 1
    return "".join(lines[:5] + lines[start : start + frames]).encode("utf-8", "surrogateescape")


def mot(path: Path, frames: int) -> bytes | None:
    lines = text_lines(path)
    try:
        end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader")
    except StopIteration:
        return None
    head = [re.sub(r"^(nRows|datarows)=\d+", rf"\g<1>={frames}", line) for line in lines[:end]]
    return "".join(head + lines[end : end + 2 + frames]).encode("utf-8", "surrogateescape")


def qtm(path: Path, frames: int) -> bytes | None:
    lines = text_lines(path)
    out, rows = [], 0
    for line in lines:
        first = line.split("\t", 1)[0].strip()
        if first.isdigit():
            if rows == frames:
                break
            rows += 1
        elif first == "NO_OF_FRAMES":
            line = f"NO_OF_FRAMES\t{frames}" + ("\r\n" if line.endswith("\r\n") else "\n")
        out.append(line)
    return "".join(out).encode("utf-8", "surrogateescape")


def xml_bytes(tree: ET.ElementTree) -> bytes:
    return ET.tostring(tree.getroot(), encoding="utf-8", xml_declaration=True)


def register_namespaces(path: Path) -> None:
    for _, (prefix, uri) in ET.iterparse(path, events=["start-ns"]):
        ET.register_namespace(prefix, uri)


def mvnx(path: Path, frames: int) -> bytes | None:
    register_namespaces(path)
    tree = ET.parse(path)
    for parent in tree.getroot().iter():
        if parent.tag.endswith("frames"):
            normal = [f for f in parent if f.get("type") == "normal"]
            for f in normal[frames:]:
                parent.remove(f)
            # The count attributes of <frames> (segmentCount etc.) describe the layout, not the
            # number of frames; nothing to patch.
    return xml_bytes(tree)


def osim(path: Path, keep: int) -> bytes | None:
    """The model with its geometry files dropped and at most `keep` objects in every set that
    nothing else refers to by name in the kinematic tree (forces, markers, probes, controllers,
    contact geometry); bodies, joints, coordinates and constraints are kept whole."""
    register_namespaces(path)
    tree = ET.parse(path)
    root = tree.getroot()
    for parent in root.iter():
        for child in list(parent):
            if child.tag in ("attached_geometry", "VisibleObject", "geometry_files", "Appearance", "FrameGeometry",
                             "credits", "publications"):
                parent.remove(child)
    for set_name in ("ForceSet", "MarkerSet", "ProbeSet", "ControllerSet", "ContactGeometrySet", "ComponentSet"):
        for s in root.iter(set_name):
            for objects in s.iter("objects"):
                for child in list(objects)[keep:]:
                    objects.remove(child)
    # Muscles keep a few path points: wrapping and via points still appear in the first ones.
    for path_set in root.iter("PathPointSet"):
        for objects in path_set.iter("objects"):
            for child in list(objects)[4:]:
                objects.remove(child)
    for e in root.iter():  # indentation
        if e.text is not None and not e.text.strip():
            e.text = None
        if e.tail is not None and not e.tail.strip():
            e.tail = None
    return xml_bytes(tree)


def c3d(path: Path, frames: int) -> bytes | None:
    """The file with its first `frames` frames: the header's last frame, POINT:FRAMES and
    TRIAL:ACTUAL_END_FIELD patched (Intel files only, as the shared ones are)."""
    data = bytearray(path.read_bytes())
    if len(data) < 512 or data[1] != 0x50:
        return None
    section = (data[0] - 1) * 512
    if data[section + 3] != 84:  # Intel
        return None
    u16 = lambda at: struct.unpack_from("<H", data, at)[0]
    points, analog, first = u16(2), u16(4), u16(6)
    scale = struct.unpack_from("<f", data, 12)[0]
    word = 4 if scale < 0 else 2
    data_at = (u16(16) - 1) * 512
    frame_bytes = (points * 4 + analog) * word
    struct.pack_into("<H", data, 8, first + frames - 1)
    # Walk the parameter records: name length, group id, name, offset to the next record.
    groups: dict[int, str] = {}
    params: list[tuple[int, str, int]] = []  # (group id, name, offset of the data type byte)
    at = section + 4
    end = section + data[section + 2] * 512
    while at + 2 < end:
        n = abs(struct.unpack_from("<b", data, at)[0])
        gid = struct.unpack_from("<b", data, at + 1)[0]
        if n == 0:
            break
        name = data[at + 2 : at + 2 + n].decode("ascii", "replace").upper()
        next_at = at + 2 + n
        offset = struct.unpack_from("<h", data, next_at)[0]
        if gid < 0:
            groups[-gid] = name
        else:
            params.append((gid, name, next_at + 2))
        if offset == 0:
            break
        at = next_at + offset
    def value_at(group: str, name: str) -> int | None:  # where an int16 parameter's values start
        for gid, pname, type_at in params:
            if (groups.get(gid, ""), pname) == (group, name):
                kind, dims = struct.unpack_from("<bB", data, type_at)
                return type_at + 2 + dims if kind == 2 else None
        return None

    if (at := value_at("POINT", "FRAMES")) is not None:
        struct.pack_into("<H", data, at, frames)
    start_at, end_at = value_at("TRIAL", "ACTUAL_START_FIELD"), value_at("TRIAL", "ACTUAL_END_FIELD")
    if start_at is not None and end_at is not None:
        lo, hi = struct.unpack_from("<HH", data, start_at)
        last = lo + 65536 * hi + frames - 1
        struct.pack_into("<HH", data, end_at, last % 65536, last // 65536)
    return bytes(data[: data_at + frames * frame_bytes])


READERS = {
    "bvh": ("*.bvh", bvh),
    "trc": ("*.trc", trc),
    "mot": ("*.[ms][ot][to]", mot),
    "qtm": ("*.tsv", qtm),
    "mvnx": ("*.mvnx", mvnx),
    "osim": ("*.osim", osim),
    "c3d": ("*.c3d", c3d),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shared")
    ap.add_argument("outdir")
    ap.add_argument("--frames", type=int, default=3)
    args = ap.parse_args()
    shared = Path(args.shared)
    for reader, (pattern, shorten) in READERS.items():
        out = Path(args.outdir) / reader
        out.mkdir(parents=True, exist_ok=True)
        for f in sorted(shared.rglob(pattern)):
            if reader == "mot" and f.suffix not in (".mot", ".sto"):
                continue
            try:
                small = shorten(f, args.frames)
            except (ET.ParseError, struct.error, StopIteration, IndexError, ValueError) as e:
                print(f"fuzz_seeds: {f}: not shortened ({e})", file=sys.stderr)
                continue
            if small is not None and len(small) < f.stat().st_size:
                (out / ("compact_" + f.name)).write_bytes(small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
