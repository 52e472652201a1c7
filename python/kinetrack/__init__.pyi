"""Type stubs of the kinetrack Python module (docs/python.md). Shapes in comments: nq = 7 +
num_joints (base position m, base quaternion w, x, y, z, joints rad or m), nv = nv_base +
num_joints; SI units, world frame Z up."""
from typing import Any, Iterator, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import fabrik as fabrik
from . import hand as hand
from . import prior as prior
from . import experiments as experiments

ArrayLike = npt.ArrayLike
NDArray = npt.NDArray[np.float64]
FrameRef = Union[str, int]

__version__: str

class ParseError(ValueError):
    file: str
    line: int  # 1-based; 0 when not tied to a line
    message: str

# --- models ---------------------------------------------------------------------------------
class Model:
    @staticmethod
    def human66(height: float = 1.75, mass: float = 73.0, fixed_base: bool = False) -> Model: ...
    @staticmethod
    def human48(height: float = 1.75, mass: float = 73.0, fixed_base: bool = False) -> Model: ...
    @staticmethod
    def builtin(name: str, height: float = 1.75, mass: float = 73.0, fixed_base: bool = False) -> Model: ...
    @staticmethod
    def load(path: str, fixed_base: bool = False) -> Model: ...
    def with_markers(self, marker_set: str, height: Optional[float] = None) -> Model: ...
    @property
    def name(self) -> str: ...
    @property
    def up(self) -> NDArray: ...  # (3,) world up: +Z kinetrack/URDF, +Y OpenSim
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    @property
    def nv_base(self) -> int: ...
    @property
    def floating_base(self) -> bool: ...
    @property
    def num_joints(self) -> int: ...
    @property
    def num_links(self) -> int: ...
    @property
    def num_frames(self) -> int: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def link_names(self) -> list[str]: ...
    @property
    def frame_names(self) -> list[str]: ...
    @property
    def joint_types(self) -> list[str]: ...
    @property
    def joint_axes(self) -> NDArray: ...  # (num_joints, 3)
    @property
    def lower_limits(self) -> NDArray: ...  # (num_joints,)
    @property
    def upper_limits(self) -> NDArray: ...  # (num_joints,)
    @property
    def velocity_limits(self) -> NDArray: ...  # (num_joints,)
    @property
    def effort_limits(self) -> NDArray: ...  # (num_joints,)
    @property
    def total_mass(self) -> float: ...
    @property
    def geoms(self) -> list[dict[str, Any]]: ...  # name, link, link_name, shape, size, rotation, position, mesh, collision, visual, rgba
    @property
    def link_parents(self) -> npt.NDArray[np.int32]: ...  # (num_links,)
    @property
    def frame_links(self) -> npt.NDArray[np.int32]: ...  # (num_frames,)
    def frame_id(self, name: str) -> int: ...
    def joint_id(self, name: str) -> int: ...
    def link_id(self, name: str) -> int: ...
    def link_mass(self, link: FrameRef) -> float: ...
    def neutral(self) -> NDArray: ...  # (nq,)
    def to_urdf(self) -> str: ...

class Data:
    def __init__(self, model: Model) -> None: ...
    @property
    def model(self) -> Model: ...
    @property
    def link_rotations(self) -> NDArray: ...  # (num_links, 3, 3), read-only view
    @property
    def link_positions(self) -> NDArray: ...  # (num_links, 3)
    @property
    def frame_rotations(self) -> NDArray: ...  # (num_frames, 3, 3)
    @property
    def frame_positions(self) -> NDArray: ...  # (num_frames, 3)

def builtin_model_names() -> list[str]: ...
def marker_set_names() -> list[str]: ...

def model_info(model: str, *, height: Optional[float] = None, mass: Optional[float] = None,
               fixed_base: bool = False) -> dict[str, Any]: ...

# --- kinematics -----------------------------------------------------------------------------
def forward_kinematics(model: Model, data: Data, q: ArrayLike, update_frames: bool = True) -> None: ...
def update_frame_placements(model: Model, data: Data) -> None: ...
def frame_placement(model: Model, data: Data, frame: FrameRef) -> tuple[NDArray, NDArray]: ...
def frame_jacobian(model: Model, data: Data, frame: FrameRef, out: Optional[NDArray] = None) -> NDArray: ...  # (6, nv)
def forward_kinematics_batch(model: Model, q: ArrayLike,
                             frames: Optional[Sequence[FrameRef]] = None) -> tuple[NDArray, NDArray]: ...
def integrate(model: Model, q: ArrayLike, v: ArrayLike, dt: float = 1.0) -> NDArray: ...
def difference(model: Model, q0: ArrayLike, q1: ArrayLike) -> NDArray: ...
def random_configuration(model: Model, seed: int = 0) -> NDArray: ...
def position_limit_violation(model: Model, q: ArrayLike) -> float: ...

# --- IK ---------------------------------------------------------------------------------------
class Status:
    converged: Status
    stationary: Status
    iteration_limit: Status
    infeasible: Status
    failed: Status
    def __int__(self) -> int: ...

class Result:
    status: Status
    iterations: int
    mnte: float
    limit_violation: float
    row_violation: float
    gap: bool  # no valid data this frame: the state was held

class StepResult(Result):
    qp_iterations: int
    active_bounds: int
    max_gain_dt: float
    unstable_gain: bool
    diverging: bool
    non_finite: bool
    residual_norm: float

class SolveResult(Result):
    rejected_steps: int
    qp_iterations: int
    evaluations: int
    initial_cost: float
    cost: float
    max_orientation_error: float
    max_position_error: float
    damping: float

class PairwiseSolveResult(Result):
    subsystems: int
    not_converged: int
    total_iterations: int
    max_pair_orientation_error: float
    max_orientation_error: float
    max_position_error: float
    unenforced_row_violation: float
    wall_time: float

class TargetType:
    position: TargetType
    orientation: TargetType
    pose: TargetType

class TaskSet:
    def add_position(self, frame: str, weight: float = 1.0, gain: float = 10.0) -> int: ...
    def add_orientation(self, frame: str, weight: float = 1.0, gain: float = 10.0) -> int: ...
    def add_pose(self, frame: str, position_weight: float = 1.0, orientation_weight: float = 1.0,
                 position_gain: float = 10.0, orientation_gain: float = 10.0) -> int: ...
    def remove(self, task: int) -> None: ...
    def set_enabled(self, task: int, enabled: bool) -> None: ...
    def set_weights(self, task: int, position_weight: float, orientation_weight: float) -> None: ...
    def set_gains(self, task: int, position_gain: float, orientation_gain: float) -> None: ...
    def set_position(self, task: int, position: ArrayLike, velocity: Optional[ArrayLike] = None) -> None: ...
    def set_orientation(self, task: int, rotation: ArrayLike,
                        angular_velocity: Optional[ArrayLike] = None) -> None: ...  # (3, 3) or (4,) w, x, y, z
    def frame(self, task: int) -> str: ...
    def type(self, task: int) -> str: ...
    def __len__(self) -> int: ...
    # Marker and coordinate tasks (MarkerIk.tasks); each kind has its own ids.
    def add_marker(self, frame: str, weight: float = 1.0) -> int: ...
    def remove_marker(self, marker: int) -> None: ...
    def set_marker_enabled(self, marker: int, enabled: bool) -> None: ...
    def set_marker_weight(self, marker: int, weight: float) -> None: ...
    def set_measurement(self, marker: int, position: ArrayLike) -> None: ...  # (3,) m; NaN: missing
    def marker_frame(self, marker: int) -> str: ...
    def marker_weight(self, marker: int) -> float: ...
    @property
    def num_markers(self) -> int: ...
    def add_coordinate(self, joint: str, weight: float = 1.0) -> int: ...
    def remove_coordinate(self, task: int) -> None: ...
    def set_coordinate_enabled(self, task: int, enabled: bool) -> None: ...
    def set_coordinate_weight(self, task: int, weight: float) -> None: ...
    def set_coordinate_value(self, task: int, value: float) -> None: ...  # rad or m; NaN: off
    def coordinate_joint(self, task: int) -> str: ...
    def coordinate_weight(self, task: int) -> float: ...
    @property
    def num_coordinates(self) -> int: ...
    # Posture tasks (their own ids): DYN's secondary objective 1/2 sum w_j (nu_j - v*_j)^2 with
    # v*_j = v_j + K (value_j - s_j); MarkerIk's sum w_j (s_j - value_j)^2 (values only).
    def add_posture(self, weights: ArrayLike = 1.0, gain: float = 10.0) -> int: ...  # float or (n_joints,)
    def set_posture_weights(self, task: int, weights: ArrayLike) -> None: ...
    def set_posture_gain(self, task: int, gain: float) -> None: ...
    def set_posture_values(self, task: int, values: ArrayLike) -> None: ...  # (n_joints,), NaN: joint out
    def set_posture_velocities(self, task: int, velocities: Optional[ArrayLike]) -> None: ...  # None clears
    def set_posture_enabled(self, task: int, enabled: bool) -> None: ...
    def remove_posture(self, task: int) -> None: ...
    def posture_weights(self, task: int) -> NDArray: ...  # (n_joints,)
    def posture_values(self, task: int) -> NDArray: ...
    def posture_velocities(self, task: int) -> NDArray: ...  # zeros unless set
    @property
    def postures(self) -> list[int]: ...  # ids of the live posture tasks
    @property
    def num_postures(self) -> int: ...

class BaseIntegrator:
    exponential_baumgarte: BaseIntegrator
    exponential: BaseIntegrator
    euler_baumgarte: BaseIntegrator

class TargetVelocitySource:
    zero: TargetVelocitySource
    finite_difference: TargetVelocitySource

class Discretization:
    paper: Discretization
    consistent: Discretization

class GainMode:
    continuous: GainMode
    per_step: GainMode

class DynamicalIkOptions:
    damping: float
    collision_damping: float  # λ added while collision rows are in the QP
    limit_gain: float
    default_velocity_limit: float
    discrete_safe_limits: bool
    use_model_velocity_limits: bool
    base_linear_velocity_limit: float
    base_angular_velocity_limit: float
    integrator: BaseIntegrator
    baumgarte_gain: float
    velocity_source: TargetVelocitySource
    gain_mode: GainMode
    discretization: Discretization
    midpoint_jacobian: bool
    sparse_qp: bool
    def __init__(self, **fields: Any) -> None: ...

class InstantaneousIkBackend:
    native: InstantaneousIkBackend
    ipopt: InstantaneousIkBackend

class OrientationResidual:
    chordal: OrientationResidual
    sine: OrientationResidual

class InstantaneousIkOptions:
    backend: InstantaneousIkBackend
    orientation_tolerance: float
    position_tolerance: float
    orientation_residual: OrientationResidual
    max_iterations: int
    step_tolerance: float
    function_tolerance: float
    feasibility_tolerance: float
    initial_damping: float
    min_damping: float
    max_damping: float
    keep_damping: bool
    sparse_qp: bool
    def __init__(self, **fields: Any) -> None: ...

class PairwiseIkOptions:
    threads: int
    spin_microseconds: float
    solver: InstantaneousIkOptions
    merge_coupled_subsystems: bool
    def __init__(self, **fields: Any) -> None: ...

class _Solver:
    @property
    def model(self) -> Model: ...
    @property
    def tasks(self) -> TaskSet: ...
    @property
    def state(self) -> NDArray: ...  # (nq,)
    def set_state(self, q: ArrayLike) -> None: ...

class DynamicalIk(_Solver):
    def __init__(self, model: Model, options: Optional[DynamicalIkOptions] = None) -> None: ...
    options: DynamicalIkOptions
    @property
    def velocity(self) -> NDArray: ...  # (nv,)
    def step(self, dt: float) -> StepResult: ...
    def mnte(self) -> float: ...
    def solve_sequence(self, dt: Union[float, ArrayLike], positions: Optional[ArrayLike] = None,
                       rotations: Optional[ArrayLike] = None, steps_per_frame: int = 1) -> dict[str, np.ndarray]: ...

class InstantaneousIk(_Solver):
    def __init__(self, model: Model, options: Optional[InstantaneousIkOptions] = None) -> None: ...
    def solve(self) -> SolveResult: ...
    def solve_sequence(self, positions: Optional[ArrayLike] = None,
                       rotations: Optional[ArrayLike] = None) -> dict[str, np.ndarray]: ...

class PairwiseIk(_Solver):
    def __init__(self, model: Model, options: Optional[PairwiseIkOptions] = None) -> None: ...
    def solve(self) -> PairwiseSolveResult: ...
    def solve_sequence(self, positions: Optional[ArrayLike] = None,
                       rotations: Optional[ArrayLike] = None) -> dict[str, np.ndarray]: ...

# --- pin-and-drag IK (Nakamura Eq. 6-12) ------------------------------------------------------
PinDragMode = TargetType  # the mode of a pin or drag is its task's type

class PinDragRole:
    free: PinDragRole
    pinned: PinDragRole
    dragged: PinDragRole

class PinDragOptions:
    drag_gain: float  # K_P, 1/s
    pin_gain: float  # K_F, 1/s
    limit_return_gain: float  # K_L, 1/s
    limit_margin: float  # rad or m
    posture_gain: float  # K_D, 1/s (0 = off)
    sr_max_damping: float  # k0
    sr_threshold: float  # w0
    max_joint_velocity: float  # rad/s or m/s
    max_base_linear_velocity: float  # m/s
    max_base_angular_velocity: float  # rad/s
    base_mobility: float
    max_lock_passes: int
    def __init__(self, **fields: Any) -> None: ...

class PinDragResult(Result):
    pin_position_error: float  # m
    pin_orientation_error: float  # rad
    drag_error: float
    drag_damping: float
    sr_damping: float
    velocity_scale: float
    locked_joints: int
    aux_rows: int
    active_rows: int

_Mode = Union[TargetType, Literal["position", "orientation", "pose"]]

class PinDragIk:
    def __init__(self, model: Model, options: Optional[PinDragOptions] = None) -> None: ...
    @property
    def model(self) -> Model: ...
    @property
    def options(self) -> PinDragOptions: ...
    @property
    def pins(self) -> TaskSet: ...
    @property
    def drags(self) -> TaskSet: ...
    @property
    def state(self) -> NDArray: ...  # (nq,)
    def set_state(self, q: ArrayLike) -> None: ...
    @property
    def velocity(self) -> NDArray: ...  # (nv,)
    @property
    def velocity_limits(self) -> NDArray: ...  # (nv,)
    def pin(self, frame: Union[str, int], mode: _Mode = ..., gain: Optional[float] = None,
            position: Optional[ArrayLike] = None, rotation: Optional[ArrayLike] = None) -> int: ...
    def drag(self, frame: Union[str, int], mode: _Mode = ..., gain: Optional[float] = None) -> int: ...
    def set_drag_target(self, frame: Union[str, int], position: ArrayLike,
                        velocity: Optional[ArrayLike] = None) -> None: ...
    def set_drag_orientation(self, frame: Union[str, int], rotation: ArrayLike) -> None: ...
    def release(self, frame: Union[str, int]) -> None: ...
    def release_all(self) -> None: ...
    def role(self, frame: Union[str, int]) -> PinDragRole: ...
    def set_desired_joints(self, joints: ArrayLike) -> None: ...
    def set_joint_mobility(self, mobility: ArrayLike) -> None: ...
    def update(self, dt: float) -> PinDragResult: ...

# --- readers ----------------------------------------------------------------------------------
class MotionClip:
    source: str
    segment_names: list[str]
    segment_parents: list[int]
    @property
    def num_frames(self) -> int: ...
    @property
    def num_segments(self) -> int: ...
    @property
    def times(self) -> NDArray: ...  # (N,)
    @property
    def positions(self) -> NDArray: ...  # (N, S, 3)
    @property
    def rotations(self) -> NDArray: ...  # (N, S, 3, 3)
    @property
    def linear_velocity(self) -> NDArray: ...  # (N, S, 3) or (0, S, 3)
    @property
    def angular_velocity(self) -> NDArray: ...
    @property
    def valid(self) -> npt.NDArray[np.bool_]: ...  # (N, S)

class MarkerTrajectories:
    source: str
    names: list[str]
    data_rate: float
    @property
    def num_frames(self) -> int: ...
    @property
    def num_markers(self) -> int: ...
    @property
    def times(self) -> NDArray: ...  # (N,)
    @property
    def positions(self) -> NDArray: ...  # (N, M, 3), NaN when missing
    @property
    def up(self) -> NDArray: ...  # (3,) the lab's up axis: +Z converted, +Y a TRC as it is
    def with_up(self, model: Model) -> MarkerTrajectories: ...

def read_bvh(path: str, units: str = "auto", velocities: bool = True) -> MotionClip: ...
def read_mvnx(path: str) -> MotionClip: ...
def read_trc(path: str, y_up: bool = True) -> MarkerTrajectories: ...
def read_orientations(path: str) -> dict[str, Any]: ...
def read_mot(path: str) -> dict[str, Any]: ...
def read_c3d(path: str, z_up: bool = True, keep_virtual_points: bool = False,
             keep_unlabeled: bool = False) -> dict[str, Any]: ...
def read_analog(path: str) -> dict[str, Any]: ...  # C3D or .anc: rate, labels, units, values (S, C)
def gait(model: str, trial: str, out: str, *, scale_setup: str = "", static_trial: str = "",
         ik_setup: str = "", loads: str = "", muscles: str = "static-opt",
         reserves: Sequence[tuple[str, float]] = (), force_sets: Sequence[str] = (), cutoff: float = 6.0,
         emg: str = "", emg_channels: Sequence[str] = (), threads: int = 0,
         marker_set: str = "", emg_side: str = "r", emg_map: Sequence[str] = ()) -> dict[str, Any]: ...
def emg_envelopes(path: str, channels: Sequence[str], *, out: str = "", rate: float = 100.0,
                  band_low: float = 20.0, band_high: float = 450.0, envelope: float = 6.0,
                  normalise: str = "peak", onset_sd: float = 3.0) -> dict[str, Any]: ...
def ground_reactions(path: str, location: str = "origin", threshold: float = 0.0, zero: bool = True,
                     rotate: str = "") -> dict[str, Any]: ...
def c3d_export(input: str, *, trc: str = "", grf: str = "", external_loads: str = "", analog: str = "",
               location: str = "origin", threshold: float = 0.0, zero: bool = True, rotate: str = "",
               apply_to: Sequence[str] = (), channels: Sequence[str] = (), right_body: str = "calcn_r",
               left_body: str = "calcn_l") -> dict[str, Any]: ...
def read_qtm_tsv(path: str) -> dict[str, Any]: ...
def read_joint_csv(path: str) -> dict[str, Any]: ...

class ExternalLoads:
    @property
    def source(self) -> str: ...
    @property
    def data_source(self) -> str: ...
    @property
    def forces(self) -> list[dict[str, Any]]: ...
    @property
    def times(self) -> NDArray: ...
    def sample(self, t: float) -> list[dict[str, Any]]: ...

def read_external_loads(path: str, data_file: str = "") -> ExternalLoads: ...
def read_id_setup(path: str) -> dict[str, Any]: ...

def write_joint_csv(model: Model, motion: Union[TrackResult, dict[str, Any]], path: str) -> None: ...
def write_mot(columns: Sequence[str], times: ArrayLike, values: ArrayLike, path: str, *, in_degrees: bool = True,
              name: str = "kinetrack") -> None: ...
def write_trc(trial: MarkerTrajectories, path: str, units: str = "mm") -> None: ...

# --- tracking ---------------------------------------------------------------------------------
class Capture:
    @staticmethod
    def from_arrays(names: Sequence[str], times: ArrayLike, positions: ArrayLike, rotations: ArrayLike, *,
                    parents: Optional[Sequence[int]] = None, source: str = "arrays") -> "Capture": ...
    @property
    def kind(self) -> str: ...
    @property
    def clip(self) -> MotionClip: ...
    @property
    def calibration_names(self) -> list[str]: ...
    path: str

class TrackResult:
    model: Model
    times: NDArray  # (N,)
    q: NDArray  # (N, nq)
    gaps: npt.NDArray[np.bool_]
    mnte: NDArray
    rmse: NDArray
    step_us: NDArray
    summary: dict[str, Any]
    quality: Optional[dict[str, Any]]  # retarget only
    motion: Optional[dict[str, Any]]  # retarget only
    def __iter__(self) -> Iterator[Any]: ...

def load_capture(path: str, units: str = "auto", rate: float = 0.0) -> Capture: ...
def demo(*, model: str = "human66", height: float = 1.75, mass: float = 73.0, duration: float = 10.0,
         rate: float = 120.0, transient: float = 2.0, out: str = "") -> TrackResult: ...
def track(model: Union[Model, str], capture: Union[str, Capture], solver: str = "dynamical", *, map: str = "",
          calibration: str = "", kappa: float = 1.0, max_step_deg: float = 5.0, max_substeps: int = 64,
          threads: int = 0, transient: float = 2.0, units: str = "auto", rate: float = 0.0, out: str = "",
          summary_json: str = "", mot: str = "", bvh: str = "") -> TrackResult: ...

def icub_for_retargeting(model: Model, shoulder_velocity: float = 2.0, torso_velocity: float = 1.0) -> Model: ...

def retarget(robot: Model, capture: Union[str, Capture], solver: str = "dynamical", *, map: str = "",
             segment_map: str = "", calibration: str = "", max_step_deg: float = 5.0, threads: int = 0,
             shoulder_velocity: float = 2.0, torso_velocity: float = 1.0, transient: float = 2.0, out: str = "",
             summary_json: str = "", mot: str = "", bvh: str = "", save_map: str = "", contacts: bool = True,
             contact_weight: float = 1000.0, root_weight: float = 10.0, quality_json: str = "",
             quality_csv: str = "", motion_out: str = "", motion_rate: float = 0.0,
             quat_order: str = "xyzw", collisions: bool = True, collision_margin: float = 0.01) -> TrackResult: ...

def robot_map(robot: Model, map: str = "") -> dict[str, Any]: ...

def auto_robot_map(robot: Model) -> dict[str, Any]: ...

def robot_map_names() -> list[str]: ...

def batch(out: str, *, manifest: str = "", input_dir: str = "", threads: int = 0, resume: bool = False,
          model: str = "", solver: str = "dynamical", map: str = "", calibration: str = "", command: str = "track",
          args: str = "") -> dict[str, Any]: ...

class Method:
    dynamical: Method
    wholebody: Method
    wholebody_ipopt: Method
    pairwise: Method

def frame_solvers() -> list[dict[str, Any]]: ...

class TrackerOptions:
    method: Method
    solver: str  # a frame_solvers() name; "" = method
    marker_ik: MarkerIkOptions
    pin_drag: PinDragOptions
    kappa: float
    max_step_rotation: float  # rad
    max_substeps: int
    dynamical: DynamicalIkOptions
    wholebody: InstantaneousIkOptions
    pairwise: PairwiseIkOptions
    first_frame_iterations: int
    first_frame_interval: float  # s
    def __init__(self, **fields: Any) -> None: ...

class StreamTarget:
    frame: str
    orientation: bool
    position: bool
    weight: float
    def __init__(self, **fields: Any) -> None: ...

class FrameOutcome(Result):
    rmse: float
    non_finite: bool

class StreamTracker:
    def __init__(self, model: Model, targets: Sequence[StreamTarget],
                 options: Optional[TrackerOptions] = None) -> None: ...
    @property
    def num_targets(self) -> int: ...
    @property
    def state(self) -> NDArray: ...
    def set_state(self, q: ArrayLike) -> None: ...
    def track(self, time: float, rotations: ArrayLike, positions: ArrayLike,
              valid: bool = True) -> FrameOutcome: ...  # (T, 3, 3) or (T, 4); (T, 3)
    def track_sequence(self, times: ArrayLike, rotations: ArrayLike, positions: ArrayLike,
                       valid: Optional[ArrayLike] = None) -> dict[str, np.ndarray]: ...

# --- dynamics ---------------------------------------------------------------------------------
class DynamicsData:
    def __init__(self, model: Model) -> None: ...

def rnea(model: Model, data: DynamicsData, q: ArrayLike, v: ArrayLike, a: ArrayLike,
         wrenches: Optional[list[dict[str, Any]]] = None, gravity: Optional[ArrayLike] = None) -> NDArray: ...
def crba(model: Model, data: DynamicsData, q: ArrayLike) -> NDArray: ...
def nonlinear_effects(model: Model, data: DynamicsData, q: ArrayLike, v: ArrayLike,
                      gravity: Optional[ArrayLike] = None) -> NDArray: ...
def aba(model: Model, data: DynamicsData, q: ArrayLike, v: ArrayLike, tau: ArrayLike,
        wrenches: Optional[list[dict[str, Any]]] = None, gravity: Optional[ArrayLike] = None) -> NDArray: ...
def center_of_mass(model: Model, data: DynamicsData, q: ArrayLike) -> NDArray: ...
def kinetic_energy(model: Model, data: DynamicsData, q: ArrayLike, v: ArrayLike) -> float: ...
def spatial_momentum(model: Model, data: DynamicsData, q: ArrayLike, v: ArrayLike) -> NDArray: ...

def inverse_dynamics(model: Union[str, Model], motion: Union[str, TrackResult, dict[str, Any]], *,
                     gravity: float = 9.80665, wrench_file: str = "", wrench_outside: str = "error",
                     derivatives: str = "fd", cutoff: Optional[float] = None, out: str = "") -> dict[str, Any]: ...
def opensim_inverse_dynamics(model: str, motion: Union[str, dict[str, Any]], loads: str = "", setup: str = "",
                             lowpass_cutoff_hz: Optional[float] = None,
                             time_range: Optional[tuple[float, float]] = None, in_degrees: Optional[bool] = None, *,
                             out: str = "", reference: str = "", com_offset: str = "") -> dict[str, Any]: ...

def simulate(model: str, *, duration: float = 2.0, step: float = 1e-3, rate: float = 100.0, integrator: str = "rk4",
             gravity: float = 9.80665, initial: str = "zero", base_height: float = 0.0, velocity: float = 0.0,
             seed: int = 1, holds: Sequence[str] = (), posture_gain: float = 0.0, solver: str = "auto",
             schedule: str = "serial", threads: int = 1, refine: int = 1, out: str = "") -> dict[str, Any]: ...

class MusclePaths:
    def __init__(self, osim: str) -> None: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def coordinates(self) -> list[str]: ...
    def evaluate(self, coordinates: ArrayLike) -> tuple[NDArray, NDArray]: ...

def muscle_forces(model: str = "", motion: str = "", method: str = "static-opt", setup: str = "",
                  lowpass: Optional[float] = None, start: Optional[float] = None, end: Optional[float] = None,
                  threads: int = 0, *, loads: str = "", force_sets: Sequence[str] = (),
                  reserves: dict[str, float] = ..., out: str = "", reference: str = "") -> dict[str, Any]: ...

# --- Nakamura's dynamics filter (docs/dynamics_filter.md) ---------------------------------------
class DynamicsFilter:
    def __init__(self, model: Model, contacts: Optional[list[dict[str, Any]]] = None, head: Any = None,
                 contact_source: str = "detect", friction: float = 0.8, kp: Optional[float] = None,
                 kd: Optional[float] = None, contact_height: float = 0.05, contact_speed: float = 0.8,
                 ground_normal: Optional[ArrayLike] = None, ground_offset: float = 0.0,
                 gravity: Optional[ArrayLike] = None, unactuated: Optional[Sequence[int]] = None,
                 residual_before: bool = True, pin_contacts: bool = True, contact_forces: str = "solved",
                 weighting: str = "unit", residual_softness: Optional[float] = None, kp_base: Optional[float] = None,
                 kd_base: Optional[float] = None, weight_base: float = 1.0,
                 anchor_at_reference: bool = False) -> None: ...
    def reset(self, q: ArrayLike, v: ArrayLike) -> None: ...
    def step(self, q: ArrayLike, v: ArrayLike, a: ArrayLike, dt: float, contact: Optional[Sequence[int]] = None,
             measured: Any = None) -> dict[str, Any]: ...

def dynamics_filter(model: str, input: str, *, grf: str = "", grf_mode: str = "apply", slope_deg: float = 0.0,
                    cutoff: float = 6.0, start: Optional[float] = None, end: Optional[float] = None,
                    adjust_com: str = "", sole: str = "auto", weight_base: Optional[float] = None, out: str = "",
                    torques: str = "", summary_json: str = "", report_csv: str = "", height: Optional[float] = None,
                    mass: Optional[float] = None, weighting: str = "unit", residual_softness: Optional[float] = None,
                    grf_threshold: float = 20.0, friction: float = 0.8, contact_height: float = 0.05,
                    contact_speed: float = 0.8, kp: Optional[float] = None, kd: Optional[float] = None,
                    kp_base: Optional[float] = None, kd_base: Optional[float] = None, force_tracking: float = 0.0,
                    ground_height: Optional[float] = None, skyhook: bool = True, pin: bool = True,
                    anchor_at_reference: bool = False) -> dict[str, Any]: ...
def filter_motion(filter: DynamicsFilter, qs: ArrayLike, times: ArrayLike, contact: Optional[Sequence[int]] = None,
                  measured: Any = None) -> dict[str, Any]: ...
def foot_contacts(model: Model, up: Optional[ArrayLike] = None) -> list[dict[str, Any]]: ...
def fit_soles_to_stance(model: Model, contacts: list[dict[str, Any]], qs: ArrayLike, times: ArrayLike,
                        up: Optional[ArrayLike] = None, ground_velocity: Optional[ArrayLike] = None,
                        still_speed: float = 0.15, min_frames: int = 5) -> list[dict[str, Any]]: ...
def sole_tilt(model: Model, contact: dict[str, Any], up: Optional[ArrayLike] = None) -> float: ...
def estimate_com_adjustment(model: Model, link: Any, qs: ArrayLike, times: ArrayLike, loads: ArrayLike,
                            load_links: Sequence[Any], unactuated: Optional[Sequence[int]] = None,
                            moment_rows: Optional[Sequence[int]] = None, gravity: Optional[ArrayLike] = None,
                            up: Optional[ArrayLike] = None) -> dict[str, Any]: ...

# --- Nakamura Eq. 14-15: polynomial mappings (docs/mapping.md) ------------------------------------
class PolynomialFeatures:
    def __init__(self, inputs: int, degree: int) -> None: ...
    @property
    def inputs(self) -> int: ...
    @property
    def degree(self) -> int: ...
    @property
    def size(self) -> int: ...
    def term(self, k: int) -> list[int]: ...
    def term_name(self, k: int, names: Sequence[str] = ...) -> str: ...
    def __call__(self, x: ArrayLike) -> NDArray: ...

class PolynomialMap:
    @property
    def matrix(self) -> NDArray: ...
    @property
    def features(self) -> PolynomialFeatures: ...
    @property
    def inputs(self) -> int: ...
    @property
    def outputs(self) -> int: ...
    def __call__(self, x: ArrayLike) -> NDArray: ...

class PolynomialMapFit:
    def __init__(self, x: ArrayLike, y: ArrayLike, degree: int, relative_tolerance: float = 1e-12) -> None: ...
    @property
    def rank(self) -> int: ...
    @property
    def singular_values(self) -> NDArray: ...
    @property
    def features(self) -> PolynomialFeatures: ...
    def map(self, k: int) -> PolynomialMap: ...
    def rms_error_by_rank(self, x: ArrayLike, y: ArrayLike) -> NDArray: ...

# --- marker IK --------------------------------------------------------------------------------
class MarkerIkOptions:
    accuracy: float
    relative_tolerance: float
    max_iterations: int
    first_solve_iterations: int
    initial_damping: float
    min_damping: float
    max_damping: float
    def __init__(self, **fields: Any) -> None: ...

class MarkerIkResult(Result):
    rejected_steps: int
    initial_cost: float
    cost: float
    markers_used: int
    total_squared_error: float
    rms_error: float
    max_error: float
    worst_marker: int
    coupler_violation: float

class MarkerIk:
    def __init__(self, model: Model, options: Optional[MarkerIkOptions] = None) -> None: ...
    def add_marker(self, frame: str, weight: float = 1.0) -> int: ...
    def add_coordinate_task(self, joint: str, weight: float = 1.0) -> int: ...
    def set_marker_weight(self, marker: int, weight: float) -> None: ...
    def set_bounds(self, lower: ArrayLike, upper: ArrayLike) -> None: ...
    def lock(self, joint: str, value: float) -> None: ...
    @property
    def tasks(self) -> TaskSet: ...  # marker, coordinate and posture tasks
    @property
    def num_markers(self) -> int: ...
    @property
    def state(self) -> NDArray: ...
    def set_state(self, q: ArrayLike) -> None: ...
    def solve(self, markers: Optional[ArrayLike] = None, coordinates: Optional[ArrayLike] = None) -> MarkerIkResult: ...
    def solve_sequence(self, markers: ArrayLike, coordinates: Optional[ArrayLike] = None) -> dict[str, np.ndarray]: ...
    def solve_trajectories(self, trajectories: MarkerTrajectories) -> dict[str, np.ndarray]: ...
    def marker_error(self, marker: int) -> float: ...
    def model_marker(self, marker: int) -> NDArray: ...

def markers_ik(model: Union[str, Model], markers: str, setup: str = "", start: Optional[float] = None,
               end: Optional[float] = None, marker_axes: str = "auto", marker_set: str = "", static: str = "",
               height: Optional[float] = None, mass: Optional[float] = None, vsk: str = "", out: str = "",
               errors: str = "", summary_json: str = "") -> dict[str, Any]: ...

def scale(model: str = "", setup: str = "", markers: str = "", out: str = "", marker_set: str = "",
          static_pose: str = "", marker_axes: str = "auto", strict: bool = False) -> dict[str, Any]: ...

# --- IMUs on OpenSim models, as OpenSense (docs/imu.md) ---------------------------------------
def imu_place(model: str = "", setup: str = "", orientations: str = "", out: str = "",
              base_imu: Optional[str] = None, base_heading_axis: Optional[str] = None,
              rotations: Optional[ArrayLike] = None, time: Optional[float] = None) -> dict[str, Any]: ...
def imu_ik(model: str = "", setup: str = "", orientations: str = "", out: str = "", errors: str = "",
           osim: str = "", rotations: Optional[ArrayLike] = None, weights: dict[str, float] = ...,
           accuracy: Optional[float] = None, start: Optional[float] = None,
           end: Optional[float] = None) -> dict[str, Any]: ...

# --- labelling of unlabelled markers (docs/labelling.md) --------------------------------------
class PredictionSpace:
    markers: PredictionSpace
    joints: PredictionSpace

class LabellerOptions:
    prediction: PredictionSpace
    init_vertical_offset: float
    gate_radius: float
    gate_growth: float
    gate_max: float
    max_candidates: int
    rigid_tolerance: float
    rigid_learning_rate: float
    lost_fraction: float
    reinit_after: float
    init_headings: int
    init_gate: float
    init_refine_rounds: int
    init_refine_gate: float
    init_max_rms: float
    posture_weight: float
    confidence_sigma: float
    unsure_threshold: float
    drop_unsure: bool
    max_points: int
    def __init__(self, **fields: Any) -> None: ...

class Labeller:
    def __init__(self, model: Union[str, Model], marker_set: str = "", markers: Sequence[str] = (),
                 reference: Optional[ArrayLike] = None, options: Optional[LabellerOptions] = None, *,
                 static: str = "", vsk: str = "", height: Optional[float] = None, joint_limits: bool = True,
                 marker_axes: str = "auto") -> None: ...
    @property
    def marker_names(self) -> list[str]: ...
    @property
    def model(self) -> Model: ...
    @property
    def initialisations(self) -> int: ...
    def label(self, points: ArrayLike, time: float) -> dict[str, Any]: ...
    def start(self, points: ArrayLike, time: float, marker_point: Sequence[int]) -> dict[str, Any]: ...
    def label_trial(self, frames: Sequence[ArrayLike], times: ArrayLike) -> dict[str, Any]: ...

def label_markers(model: str, input: str, *, strip_labels: bool = False, marker_set: str = "",
                  markers: Sequence[str] = (), static: str = "", vsk: str = "", height: Optional[float] = None,
                  joint_limits: bool = True, marker_axes: str = "auto", units: str = "mm", out: str = "",
                  ik_out: str = "", report: str = "", summary_json: str = "", confidence: str = "",
                  drop_unsure: bool = False, options: Optional[LabellerOptions] = None, scale_setup: str = "",
                  model_out: str = "") -> dict[str, Any]: ...

def read_point_csv(path: str, scale: float = 1.0) -> dict[str, Any]: ...

# --- streaming protocols (docs/streaming.md) ---------------------------------------------------
KTP_VERSION: int
MXTP_DEFAULT_PORT: int

def encode_ktp(seq: int, time: float, indices: Sequence[int], positions: ArrayLike,
               quaternions: Optional[ArrayLike] = None) -> bytes: ...
def encode_ktp_json(seq: int, time: float, names: Sequence[str], positions: ArrayLike,
                    quaternions: Optional[ArrayLike] = None) -> str: ...
def parse_ktp(data: Union[bytes, str], kind: str, names: Sequence[str]) -> dict[str, Any]: ...
def encode_mxtp(sample: int, time_ms: int, ids: ArrayLike, positions: ArrayLike, quaternions: ArrayLike,
                character: int = 0) -> bytes: ...
def parse_mxtp(data: bytes) -> dict[str, Any]: ...

class Server:
    def __init__(self, model: str = "human66", *, layout: str = "", marker_set: str = "", static: str = "",
                 interactive: bool = False, retarget: bool = False, map: str = "", solver: str = "dynamical",
                 rate: float = 0.0, host: str = "127.0.0.1", port: int = 0, udp_port: int = 0,
                 udp_out: str = "", contacts: bool = True, collisions: bool = True,
                 collision_margin: float = 0.01, imus: bool = False, imu_setup: str = "") -> None: ...
    @property
    def ws_port(self) -> int: ...
    @property
    def udp_port(self) -> int: ...
    def start(self) -> None: ...
    def stop(self) -> dict[str, Any]: ...
    def summary(self) -> dict[str, Any]: ...
    def summary_text(self) -> str: ...
    def __enter__(self) -> Server: ...
    def __exit__(self, *args: Any) -> None: ...

def replay(input: str, *, to: str = "127.0.0.1:9763", ws: str = "", protocol: str = "", marker_set: str = "",
           faults: str = "", rate: float = 0.0, loops: int = 1, fault_every: int = 10) -> dict[str, Any]: ...

# --- viewer (docs/viewer.md) -------------------------------------------------------------------
def viewer_bundled() -> bool: ...
def write_viewer(model: Model, result: Union[str, TrackResult], out: str, *, input: Optional[str] = None, map: str = "",
                 calibration: str = "", model_file: Optional[str] = None, markers: Optional[str] = None,
                 loads: Optional[str] = None, muscle_values: Optional[str] = None, muscles: bool = True,
                 person: Optional[str] = None, person_offset: float = 1.0, png: Optional[float] = None,
                 png_file: Optional[str] = None, size: tuple[int, int] = (1280, 720),
                 layers: str = "") -> dict[str, Any]: ...
