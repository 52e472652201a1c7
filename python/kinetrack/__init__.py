"""kinetrack: real-time whole-body motion tracking (IK, dynamics, capture readers) for Python.

numpy in and out; SI units (m, rad, s), world frame Z up; quaternions are ordered (w, x, y, z).
Configurations q have nq = 7 + num_joints entries (base position, base quaternion, joints);
velocities have nv entries (base linear, base angular in the world frame, joint rates).
See docs/python.md for the API overview, shapes and the benchmark figures.
"""
from ._kinetrack import *  # noqa: F401,F403
from ._kinetrack import ParseError, __doc__ as _ext_doc  # noqa: F401
from ._kinetrack import __version__  # noqa: F401  (the VERSION file, through kinetrack/version.hpp)

import sys as _sys

# `import kinetrack.fabrik` / `.hand` / `.prior` / `.experiments` work like attribute access.
_sys.modules[__name__ + ".fabrik"] = fabrik  # noqa: F405
_sys.modules[__name__ + ".hand"] = hand  # noqa: F405
_sys.modules[__name__ + ".prior"] = prior  # noqa: F405
_sys.modules[__name__ + ".experiments"] = experiments  # noqa: F405
del _sys
