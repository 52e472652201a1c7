"""The kinetrack input protocol (KTP) codec: the binary layout read back with Python's struct
module (an independent decoder of docs/streaming.md), the JSON form read back with the json
module, round trips, and every fault class with its reason."""
import json
import struct

import numpy as np
import pytest

import kinetrack as kt

NAMES = ["Pelvis", "L5", "L3", "T12", "T8"]


def sample(n=3):
    p = np.column_stack([0.25 * np.arange(n), -0.5 * np.ones(n), 1.0 + 0.125 * np.arange(n)])
    a = 0.3 * (np.arange(n) + 1)
    q = np.column_stack([np.cos(a), np.zeros(n), np.sin(a), np.zeros(n)])
    return p, q


def test_binary_layout_matches_struct_and_round_trips():
    p, q = sample()
    b = kt.encode_ktp(77, 1.5, [4, 0, 2], p, q)
    assert len(b) == 24 + 3 * 32
    magic, version, kind, count, seq, reserved, time = struct.unpack("<4sBBHIId", b[:24])
    assert (magic, version, kind, count, seq, reserved, time) == (b"KTRK", 1, 1, 3, 77, 0, 1.5)
    for i, index in enumerate([4, 0, 2]):
        rec = struct.unpack("<HH3f4f", b[24 + 32 * i:24 + 32 * (i + 1)])
        assert rec[0] == index and rec[1] == 0
        np.testing.assert_allclose(rec[2:5], p[i], rtol=1e-7)
        np.testing.assert_allclose(rec[5:9], q[i], rtol=1e-7)
    d = kt.parse_ktp(b, "poses", NAMES)
    assert d["status"] == "ok" and d["error"] == "" and d["seq"] == 77 and d["time"] == 1.5
    np.testing.assert_array_equal(d["indices"], [4, 0, 2])
    np.testing.assert_allclose(d["positions"], p, rtol=1e-7)
    np.testing.assert_allclose(d["quaternions"], q, rtol=1e-7)
    # Markers: 16-byte records, no quaternion.
    m = kt.encode_ktp(3, 0.25, [1, 3], p[:2])
    assert len(m) == 24 + 2 * 16 and m[5] == 2
    assert struct.unpack("<HH3f", m[40:56])[0] == 3
    d = kt.parse_ktp(m, "markers", NAMES)
    assert d["status"] == "ok" and d["kind"] == "markers" and "quaternions" not in d
    assert kt.KTP_VERSION == 1


def test_json_form_reads_back_exactly():
    p, q = sample()
    text = kt.encode_ktp_json(5, 0.1, ["T8", "Pelvis", "L3"], p, q)
    j = json.loads(text)
    assert j["type"] == "poses" and j["version"] == 1 and j["seq"] == 5 and j["time"] == 0.1
    assert [s["name"] for s in j["segments"]] == ["T8", "Pelvis", "L3"]
    np.testing.assert_array_equal([s["p"] for s in j["segments"]], p)  # doubles, exactly
    np.testing.assert_array_equal([s["q"] for s in j["segments"]], q)
    d = kt.parse_ktp(text, "poses", NAMES)
    assert d["status"] == "ok"
    np.testing.assert_array_equal(d["indices"], [4, 0, 2])
    np.testing.assert_array_equal(d["positions"], p)
    markers = kt.encode_ktp_json(6, 0.2, ["L5"], p[:1])
    assert json.loads(markers)["markers"] == [{"name": "L5", "p": list(p[0])}]
    assert kt.parse_ktp(markers.encode(), "markers", NAMES)["status"] == "ok"


@pytest.mark.parametrize("message, status, reason", [
    (b"KTRK\x01", "truncated", "header"),
    (b"hello", "malformed", "neither"),
    ("{", "malformed", "not JSON"),
    ('{"type":"poses","version":2,"seq":1,"time":0,"segments":[]}', "unsupported", "version 2"),
    ('{"type":"markers","version":1,"seq":1,"time":0,"markers":[]}', "unsupported", "this server takes poses"),
    ('{"type":"poses","version":1,"seq":1,"time":0,"segments":[],"x":1}', "malformed", "unknown field 'x'"),
    ('{"type":"poses","version":1,"seq":1,"time":0,"segments":[{"name":"Head","p":[0,0,0],"q":[1,0,0,0]}]}',
     "malformed", "unknown name 'Head'"),
    ('{"type":"poses","version":1,"seq":1,"time":0,"segments":[{"name":"L5","p":[0,0,0],"q":[2,0,0,0]}]}',
     "malformed", "segments[0].q"),
])
def test_faults_are_classified_with_a_reason(message, status, reason):
    d = kt.parse_ktp(message, "poses", NAMES)
    assert d["status"] == status
    assert reason in d["error"]


def test_binary_faults():
    p, q = sample()
    b = kt.encode_ktp(1, 0.0, [0, 1, 2], p, q)
    assert kt.parse_ktp(b[:-1], "poses", NAMES)["status"] == "truncated"
    assert kt.parse_ktp(b + b"\0", "poses", NAMES)["status"] == "oversized"
    assert kt.parse_ktp(kt.encode_ktp(1, 0.0, [0, 9, 2], p, q), "poses", NAMES)["error"].startswith(
        "segments[1]: index 9 outside")
    assert "given twice" in kt.parse_ktp(kt.encode_ktp(1, 0.0, [0, 0, 2], p, q), "poses", NAMES)["error"]
    with pytest.raises(ValueError):
        kt.encode_ktp(1, 0.0, [0, 1], p, q)  # 2 indices, 3 positions
