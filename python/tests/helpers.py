"""Small numerical helpers of the tests (SO(3) log, RSS)."""
import os

import numpy as np


def so3_log(R):
    """Rotation vector of a rotation matrix (|θ| < π)."""
    c = np.clip((np.trace(R) - 1.0) / 2.0, -1.0, 1.0)
    theta = np.arccos(c)
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2.0
    if theta < 1e-12:
        return w
    return w * theta / np.sin(theta)


def rss_bytes():
    """Resident set size of this process (Linux /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
