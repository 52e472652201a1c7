"""MXTP (Xsens MVN network streaming, type 02) datagrams: encode/parse round trip, the byte layout
read back with Python's own struct module (an independent decoder), and every fault class."""
import struct

import numpy as np

import kinetrack as kt


def sample_datagram(n=23):
    ids = np.arange(1, n + 1, dtype=np.int32)
    p = np.column_stack([0.1 * np.arange(n), -0.5 * np.ones(n), 1.25 * np.ones(n)])
    a = 0.1 * np.arange(n)
    q = np.column_stack([np.cos(a), np.sin(a), np.zeros(n), np.zeros(n)])
    return ids, p, q


def test_round_trip_and_layout_match_struct():
    ids, p, q = sample_datagram()
    b = kt.encode_mxtp(77, 1234, ids, p, q, character=1)
    assert len(b) == 24 + 23 * 32
    magic, sample, counter, items, time_ms, character, bodies, props, fingers, _, payload = struct.unpack(
        ">6sIBBIBBBBHH", b[:24])
    assert (magic, sample, counter, items, time_ms, character, bodies, payload) == (
        b"MXTP02", 77, 0x80, 23, 1234, 1, 23, 23 * 32)
    for i in range(23):
        rec = struct.unpack(">i3f4f", b[24 + 32 * i:24 + 32 * (i + 1)])
        assert rec[0] == i + 1
        np.testing.assert_allclose(rec[1:4], p[i], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(rec[4:8], q[i], rtol=1e-6, atol=1e-7)
    d = kt.parse_mxtp(b)
    assert d["status"] == "ok" and d["sample"] == 77 and d["time_ms"] == 1234
    np.testing.assert_array_equal(d["ids"], ids)
    np.testing.assert_allclose(d["positions"], p, atol=1e-6)
    np.testing.assert_allclose(d["quaternions"], q, atol=1e-6)


def test_faults_are_classified():
    ids, p, q = sample_datagram()
    b = kt.encode_mxtp(1, 2, ids, p, q)
    assert kt.parse_mxtp(b[:100])["status"] == "truncated"
    assert kt.parse_mxtp(b + b"\0")["status"] == "oversized"
    assert kt.parse_mxtp(b"XXTP" + b[4:])["status"] == "malformed"
    assert kt.parse_mxtp(b[:5] + b"1" + b[6:])["status"] == "unsupported"
    bad_q = q.copy()
    bad_q[3] = 0.0
    assert kt.parse_mxtp(kt.encode_mxtp(1, 2, ids, p, bad_q))["status"] == "malformed"
    assert kt.MXTP_DEFAULT_PORT == 9763
