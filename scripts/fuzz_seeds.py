#!/usr/bin/env python3
"""Compact fuzz seeds: small, still valid copies of the shared recordings and models (issue 20).

The shared files are 60 KB-3 MB; libFuzzer mutates and re-parses a seed per execution, so whole
files give 80-600 executions per second and cutting them at -max_len leaves the XML and binary
readers with inputs they refuse at the cut (the mvnx harness covered 140 edges at 4 KB instead
of 562). This script writes, for each reader, the same files shortened to a few frames (their
frame counts patched so they stay valid) or, for models, to a few of each element, into
OUTDIR/<reader>/. For the fuzzer's speed (executions per second fall with the input's size) they
also lose what the readers never read: MVNX sensors, joints and per-frame angles, most of a C3D
parameter section's DESCRIPTIONS text, an .osim model's left side; URDF robots are cut to their
first dozen links, a VSK subject to its parameters. Six small C3D files written here (Intel,
DEC and MIPS; float and integer data) join them: the shared C3D files are all Intel floats.
scripts/fuzz.sh calls it; the outputs live in the build tree, never in the project (the originals
are ../shared's).

Usage: scripts/fuzz_seeds.py SHARED OUTDIR [--frames N]
"""
from __future__ import annotations

import argparse
import math
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


def drop_indentation(root: ET.Element) -> None:
    """Empties the whitespace-only text and tails (the indentation) of every element."""
    for e in root.iter():
        if e.text is not None and not e.text.strip():
            e.text = None
        if e.tail is not None and not e.tail.strip():
            e.tail = None


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
    # For the fuzzer's speed: what the reader never reads goes (sensors, joints, ergonomic
    # angles, contacts, per-frame joint angles, centre of mass, sensor data), and each segment
    # keeps 3 of its points; indentation goes too.
    read = {"mvnx", "subject", "segments", "segment", "points", "point", "pos_b", "pos_s", "frames", "frame",
            "orientation", "position", "velocity", "acceleration", "angularVelocity",
            "angularAcceleration", "comment", "securityCode"}
    for parent in tree.getroot().iter():
        for child in list(parent):
            tag = child.tag.rsplit("}", 1)[-1]
            if tag not in read:
                parent.remove(child)
        if parent.tag.endswith("points"):
            for child in list(parent)[3:]:
                parent.remove(child)
    drop_indentation(tree.getroot())
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
    drop_left_side(root)
    drop_indentation(root)
    return xml_bytes(tree)


def urdf(path: Path, keep: int) -> bytes | None:
    """The robot cut to its first links: the first 4 * `keep` links of the file and the joints
    between them (still one tree: the files list links root first), the visual and collision
    shapes of the first `keep` of them, at most `keep` sensors, no <gazebo> or <transmission>
    extensions (the reader never reads them), no indentation. The human-gazebo and iCub files
    are 50-170 KB, 30-100 KB even without their shapes; cut like this, 3-6 KB."""
    tree = ET.parse(path)
    root = tree.getroot()
    links = [e.get("name") for e in root.findall("link")][: 4 * keep]
    kept = set(links)
    # A link stays if it is among the first ones and the root or reached from a kept parent.
    children = {}
    for j in root.findall("joint"):
        p, c = j.find("parent"), j.find("child")
        if p is not None and c is not None:
            children[c.get("link")] = p.get("link")
    kept = {n for n in kept if n not in children or children[n] in kept}
    for child in list(root):
        drop = child.tag in ("gazebo", "transmission")
        if child.tag == "link":
            drop = child.get("name") not in kept
        elif child.tag == "joint":
            p, c = child.find("parent"), child.find("child")
            drop = p is None or c is None or p.get("link") not in kept or c.get("link") not in kept
        if drop:
            root.remove(child)
    for sensor in root.findall("sensor")[keep:]:
        root.remove(sensor)
    for link in root.findall("link")[keep:]:
        for child in list(link):
            if child.tag in ("visual", "collision"):
                link.remove(child)
    drop_indentation(root)
    return xml_bytes(tree)


def vsk(path: Path, keep: int) -> bytes | None:
    """The subject's <Parameters> only (the reader reads nothing else: skeleton, marker set and
    sticks go), each parameter with its NAME, VALUE and PRIOR; 62 KB become 11.5 KB."""
    tree = ET.parse(path)
    root = tree.getroot()
    for child in list(root):
        if child.tag != "Parameters":
            root.remove(child)
    for e in root.iter():
        for attribute in list(e.attrib):
            if e is not root and attribute not in ("NAME", "VALUE", "PRIOR"):
                del e.attrib[attribute]
    drop_indentation(root)
    return xml_bytes(tree)


def drop_left_side(root: ET.Element) -> None:
    """Removes the bodies named *_l (the left leg and arm: a mirror of the right side's code
    paths, half of a whole-body model's bytes) with their joints, coordinates and everything that
    names one of them (muscles, markers, constraints, contact geometry)."""
    def kinematic_names(e: ET.Element) -> set[str]:  # bodies, joints, coordinates (offset frames
        # are named per joint: "pelvis_offset" is in hip_l and in back)
        return {x.get("name") for x in e.iter()
                if x.get("name") and (x.tag in ("Body", "Coordinate") or x.tag.endswith("Joint"))}
    removed: set[str] = set()
    for body_set in root.iter("BodySet"):
        for objects in body_set.iter("objects"):
            for body in list(objects):
                if body.get("name", "").endswith("_l"):
                    removed |= kinematic_names(body)  # 3.x: its joint and coordinates are inside
                    objects.remove(body)
    if not removed:
        return
    def names_removed(e: ET.Element) -> bool:
        text = ET.tostring(e, encoding="unicode")
        return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", text) for n in removed)
    for joint_set in root.iter("JointSet"):  # 4.0: joints in their own set
        for objects in joint_set.iter("objects"):
            for joint in list(objects):
                if names_removed(joint):
                    removed |= kinematic_names(joint)
                    objects.remove(joint)
    for set_name in ("ForceSet", "MarkerSet", "ConstraintSet", "ContactGeometrySet", "ProbeSet",
                     "ComponentSet", "ControllerSet"):
        for s in root.iter(set_name):
            for objects in s.iter("objects"):
                for child in list(objects):
                    if names_removed(child):
                        objects.remove(child)


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


def c3d_small(path: Path, frames: int) -> bytes | None:
    """`c3d` with a smaller parameter section, for the fuzzer's speed (the shared files' sections
    are 40-50 KB, most of it DESCRIPTIONS text): each DESCRIPTIONS string cut to 2 characters,
    the records' own descriptions emptied and the PROCESSING group (subject measurements nothing
    reads) cut to 3 parameters; the header's and POINT:DATA_START's data block moved to match."""
    data = c3d(path, frames)
    if data is None:
        return None
    data = bytearray(data)
    u16 = lambda at: struct.unpack_from("<H", data, at)[0]
    section = (data[0] - 1) * 512
    data_at = (u16(16) - 1) * 512
    records: list[tuple[bytes, int, bytes, bytes]] = []  # (name length byte, group id, name, body)
    at, end = section + 4, section + data[section + 2] * 512
    while at + 2 < end:
        n = abs(struct.unpack_from("<b", data, at)[0])
        if n == 0:
            break
        gid = struct.unpack_from("<b", data, at + 1)[0]
        name = bytes(data[at + 2 : at + 2 + n])
        next_at = at + 2 + n
        offset = struct.unpack_from("<h", data, next_at)[0]
        body_end = next_at + offset if offset else end
        records.append((bytes(data[at : at + 1]), gid, name, bytes(data[next_at + 2 : body_end])))
        if offset == 0:
            break
        at = body_end
    groups = {-gid: name.upper() for _, gid, name, _ in records if gid < 0}
    out, processing = bytearray(), 0
    for length, gid, name, body in records:
        if gid < 0:  # group: its description emptied
            body = bytes([0])
        else:
            if groups.get(gid) == b"PROCESSING":
                processing += 1
                if processing > 3:
                    continue
            kind, nd = struct.unpack_from("<bB", body, 0)
            dims = list(body[2 : 2 + nd])
            values = body[2 + nd :]
            count = 1
            for d in dims:
                count *= d
            values = values[: count * abs(kind)]
            if name.upper() == b"DESCRIPTIONS" and kind == -1 and nd == 2 and dims[0] > 2:
                width, k = dims[0], dims[1]
                values = b"".join(values[i * width : i * width + 2] for i in range(k))
                dims[0] = 2
            body = struct.pack("<bB", kind, nd) + bytes(dims) + values + bytes([0])
        last_offset_at = len(out) + 2 + len(name)
        out += length + struct.pack("<b", gid) + name + struct.pack("<h", len(body) + 2) + body
    if records:  # the last record's offset is 0: the end of the section
        struct.pack_into("<h", out, last_offset_at, 0)
    blocks = (4 + len(out) + 511) // 512
    head = bytearray(data[section : section + 4])
    head[2] = blocks
    new_section = head + out + bytes(blocks * 512 - 4 - len(out))
    new_data_block = section // 512 + blocks + 1
    result = bytearray(data[:section]) + new_section + data[data_at:]
    struct.pack_into("<H", result, 16, new_data_block)
    # POINT:DATA_START (int16) in the new section.
    at = section + 4
    while True:
        n = abs(struct.unpack_from("<b", result, at)[0])
        gid = struct.unpack_from("<b", result, at + 1)[0]
        name = bytes(result[at + 2 : at + 2 + n]).upper()
        next_at = at + 2 + n
        offset = struct.unpack_from("<h", result, next_at)[0]
        if gid > 0 and name == b"DATA_START" and groups.get(gid) == b"POINT":
            kind, nd = struct.unpack_from("<bB", result, next_at + 2)
            if kind == 2:
                struct.pack_into("<H", result, next_at + 4 + nd, new_data_block)
        if offset == 0:
            break
        at = next_at + offset
    return bytes(result)


def c3d_synthetic(processor: str, float_data: bool, type_groups: bool) -> bytes:
    """A small C3D file written here (3 KB): 5 points (3 markers, one with a subject prefix and a
    gap, an angle, a force), 4 analog channels at 2 samples a frame, a force plate, TRIAL,
    SUBJECTS and MANUFACTURER, 3 frames; in the processor's byte order and number formats
    ("intel", "dec" or "mips"). The shared files are all Intel floats: these seeds reach the
    DEC and MIPS paths and integer data at a size the fuzzer runs fast."""
    big = processor == "mips"

    def u16(v: int) -> bytes:
        return struct.pack(">H" if big else "<H", v & 0xFFFF)

    def i16(v: int) -> bytes:
        return struct.pack(">h" if big else "<h", v)

    def f32(v: float) -> bytes:
        if processor != "dec":
            return struct.pack(">f" if big else "<f", v)
        if v == 0:
            return bytes(4)
        m, e = math.frexp(abs(v))  # |v| = m 2^e, m in [0.5, 1): VAX exponent e + 128
        fraction = int(round((2 * m - 1) * (1 << 23))) & 0x7FFFFF
        hi = (0x8000 if v < 0 else 0) | ((e + 128) & 0xFF) << 7 | fraction >> 16
        return struct.pack("<HH", hi, fraction & 0xFFFF)

    def chars(strings: list[str], width: int) -> tuple[list[int], bytes]:
        return [width, len(strings)], b"".join(x.encode().ljust(width)[:width] for x in strings)

    frames, first = 3, 10
    labels = ["S1:LASI", "RASI", "LKNE", "LKneeAngles", "LGroundReactionForce"]
    analog_channels, samples = 4, 2
    scale = -0.1 if float_data else 0.1
    groups = ["POINT", "ANALOG", "FORCE_PLATFORM", "TRIAL", "SUBJECTS", "MANUFACTURER"]
    params: list[tuple[str, str, int, list[int], bytes]] = []  # group, name, type, dims, values

    def param(group: str, name: str, kind: int, dims: list[int], values: bytes) -> None:
        params.append((group, name, kind, dims, values))

    def ints(group: str, name: str, values: list[int]) -> None:
        param(group, name, 2, [] if len(values) == 1 else [len(values)], b"".join(i16(v) for v in values))

    def floats(group: str, name: str, values: list[float], dims: list[int] | None = None) -> None:
        param(group, name, 4, ([] if len(values) == 1 else [len(values)]) if dims is None else dims,
              b"".join(f32(v) for v in values))

    def texts(group: str, name: str, strings: list[str], width: int) -> None:
        dims, data = chars(strings, width)
        param(group, name, -1, dims, data)

    ints("POINT", "USED", [len(labels)])
    floats("POINT", "SCALE", [scale])
    floats("POINT", "RATE", [100.0])
    ints("POINT", "DATA_START", [0])  # patched below
    ints("POINT", "FRAMES", [frames])
    texts("POINT", "UNITS", ["mm"], 2)
    texts("POINT", "LABELS", labels[:4], 20)
    texts("POINT", "LABELS2", labels[4:], 20)
    texts("POINT", "DESCRIPTIONS", ["left ASIS", "", "knee", "angles", "force"], 10)
    texts("POINT", "ANGLES", ["LKneeAngles"], 12)
    texts("POINT", "FORCES", ["LGroundReactionForce"], 20)
    texts("POINT", "ANGLE_UNITS", ["deg"], 3)
    texts("POINT", "FORCE_UNITS", ["N"], 1)
    if type_groups:
        texts("POINT", "TYPE_GROUPS", ["ANGLES", "ANGLE", "FORCES", "FORCE"], 6)
    ints("ANALOG", "USED", [analog_channels])
    texts("ANALOG", "LABELS", ["Fx1", "Fy1", "Fz1", "Mz1"], 4)
    floats("ANALOG", "SCALE", [0.5, 0.5, 1.0, 2.0])
    ints("ANALOG", "OFFSET", [0, 0, 2, -1])
    floats("ANALOG", "GEN_SCALE", [1.0])
    floats("ANALOG", "RATE", [200.0])
    texts("ANALOG", "UNITS", ["N", "N", "N", "Nmm"], 3)
    ints("FORCE_PLATFORM", "USED", [1])
    ints("FORCE_PLATFORM", "TYPE", [2])
    ints("FORCE_PLATFORM", "CHANNEL", [1, 2, 3, 4, 4, 4], )
    floats("FORCE_PLATFORM", "CORNERS", [300, 200, 0, -300, 200, 0, -300, -200, 0, 300, -200, 0], [3, 4, 1])
    floats("FORCE_PLATFORM", "ORIGIN", [0.0, 0.0, -40.0], [3, 1])
    ints("TRIAL", "ACTUAL_START_FIELD", [first, 0])
    ints("TRIAL", "ACTUAL_END_FIELD", [first + frames - 1, 0])
    floats("TRIAL", "CAMERA_RATE", [100.0])
    texts("SUBJECTS", "NAMES", ["S1"], 2)
    ints("SUBJECTS", "USES_PREFIXES", [1])
    texts("MANUFACTURER", "COMPANY", ["kinetrack"], 9)
    texts("MANUFACTURER", "SOFTWARE", ["fuzz_seeds"], 10)
    param("MANUFACTURER", "VERSION", 1, [3], bytes([1, 2, 3]))

    def section(data_start: int) -> bytes:
        out = bytearray()
        for i, g in enumerate(groups, start=1):
            body = bytes([0])
            out += struct.pack("<bb", len(g), -i) + g.encode() + i16(len(body) + 2) + body
        for group, name, kind, dims, values in params:
            if (group, name) == ("POINT", "DATA_START"):
                values = i16(data_start)
            body = struct.pack("<bB", kind, len(dims)) + bytes(dims) + values + bytes([0])
            out += struct.pack("<bb", len(name), groups.index(group) + 1) + name.encode()
            out += (i16(0) if (group, name) == params[-1][:2] else i16(len(body) + 2)) + body
        blocks = (4 + len(out) + 511) // 512
        head = bytes([1, 0x50, blocks, {"intel": 84, "dec": 85, "mips": 86}[processor]])
        return (head + out).ljust(blocks * 512, b"\0")

    blocks = len(section(0)) // 512
    data_start = 2 + blocks
    header = bytearray(512)
    header[0], header[1] = 2, 0x50
    header[2:4] = u16(len(labels))
    header[4:6] = u16(analog_channels * samples)
    header[6:8] = u16(first)
    header[8:10] = u16(first + frames - 1)
    header[10:12] = u16(10)
    header[12:16] = f32(scale)
    header[16:18] = u16(data_start)
    header[18:20] = u16(samples)
    header[20:24] = f32(100.0)
    rows = bytearray()
    for k in range(frames):
        for j in range(len(labels)):
            xyz = [100.0 * j + k, 50.0 - j, 900.0 + 3 * k]
            missing = (j == 2 and k == 1)
            residual = -1.0 if missing else 0.5
            values = [0.0, 0.0, 0.0] if missing else xyz
            if float_data:
                rows += b"".join(f32(v) for v in values) + f32(residual)
            else:
                rows += b"".join(i16(int(round(v / scale))) for v in values)
                rows += i16(-1) if missing else i16(3 << 8 | 5)  # cameras (high byte), residual
        for a in range(analog_channels * samples):
            rows += f32(10.0 * a - k) if float_data else i16(10 * a - k)
    return bytes(header) + section(data_start) + bytes(rows)


READERS = {
    "bvh": ("*.bvh", bvh),
    "trc": ("*.trc", trc),
    "mot": ("*.[ms][ot][to]", mot),
    "qtm": ("*.tsv", qtm),
    "mvnx": ("*.mvnx", mvnx),
    "osim": ("*.osim", osim),
    "c3d": ("*.c3d", c3d_small),
    "urdf": ("*.urdf", urdf),
    "vsk": ("*.vsk", vsk),
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
        if reader == "c3d":
            for processor in ("intel", "dec", "mips"):
                for float_data in (True, False):
                    name = f"synthetic_{processor}_{'float' if float_data else 'int'}.c3d"
                    (out / name).write_bytes(c3d_synthetic(processor, float_data, processor == "mips"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
