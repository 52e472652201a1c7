"""kinetrack.fabrik: FABRIK over a tree of joint points (positions (n, 3) in m)."""
from typing import Sequence

import numpy as np
import numpy.typing as npt

class Skeleton:
    def __init__(self, parents: Sequence[int], rest: npt.ArrayLike) -> None: ...  # rest (n, 3)
    def set_hinge(self, joint: int, axis: npt.ArrayLike, min_angle: float, max_angle: float) -> None: ...
    def set_ball(self, joint: int, cone_angle: float, min_twist: float = ..., max_twist: float = ...) -> None: ...
    def set_coupling(self, distal: int, k: float) -> None: ...
    @property
    def size(self) -> int: ...
    def length(self, joint: int) -> float: ...

class Status:
    converged: Status
    unreachable: Status
    iteration_limit: Status
    stalled: Status

class Result:
    status: Status
    iterations: int
    error: float

class Solver:
    def __init__(self, skeleton: Skeleton) -> None: ...
    def set_target(self, joint: int, target: npt.ArrayLike) -> None: ...
    def clear_target(self, joint: int) -> None: ...
    def clear_targets(self) -> None: ...
    def solve(self, positions: npt.NDArray[np.float64], tolerance: float = 1e-6, max_iterations: int = 100,
              root: str = "fixed", restarts: int = 3,
              stop_when_stalled: bool = False) -> Result: ...  # positions (n, 3), in place
    def hinge_angle(self, joint: int) -> float: ...
