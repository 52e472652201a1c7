"""kinetrack.prior: gradient projection with a learned joint-angle density (GPM seed, docs/gpm.md)."""
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

from . import Model

NDArray = npt.NDArray[np.float64]

joint_names: list[str]  # the 25 joints of the DH upper body, theta order

class SubjectFit:
    subject: str
    theta: NDArray  # (N, 25) recorded joint angles, rad
    lower: NDArray  # (25,)
    upper: NDArray  # (25,)
    quality: dict[str, Any]
    def hands(self, frame: int) -> dict[str, NDArray]: ...  # positions (2, 3), rotations (2, 3, 3)
    def forward_kinematics(self, theta: npt.ArrayLike) -> dict[str, NDArray]: ...

def fit_subject(subject: str, clips: Sequence[str], rate: float = 0.0, center_twists: bool = False) -> SubjectFit: ...

class DensityPrior:
    inc: int
    def occupied_cells(self, group: int) -> int: ...
    def gradient(self, theta: npt.ArrayLike, hand_positions: npt.ArrayLike) -> tuple[NDArray, int]: ...

def upper_body_prior(fits: Sequence[SubjectFit], inc: int = 1, min_samples: int = 10) -> DensityPrior: ...

class GradientProjection:
    def __init__(self, fit: SubjectFit, prior: Optional[DensityPrior] = None, gain: float = 0.02,
                 iterations: int = 3, max_prior_step: float = 0.035) -> None: ...
    def solve(self, theta: npt.ArrayLike, hand_positions: npt.ArrayLike, hand_rotations: npt.ArrayLike,
              method: str = "GP") -> dict[str, Any]: ...

def run_subject(fit: SubjectFit, prior: Optional[DensityPrior] = None, method: str = "GP") -> float: ...

class HumanPrior:
    model_name: str
    joint_names: list[str]
    def write(self, path: str) -> None: ...

def read_prior(path: str) -> HumanPrior: ...
def build_human_prior(model: Model, motion: npt.ArrayLike, inc: int = 1) -> HumanPrior: ...

class SparsePriorIk:
    q: NDArray  # (nq,)
    def __init__(self, model: Model, targets: Sequence[str], prior: Optional[HumanPrior] = None) -> None: ...
    def set_state(self, q: npt.ArrayLike) -> None: ...
    def solve(self, positions: npt.ArrayLike, rotations: npt.ArrayLike, use_prior: bool = True) -> dict[str, Any]: ...
