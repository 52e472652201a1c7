"""kinetrack.hand: the FABRIK hand tracker on a Qualisys glove recording."""
from typing import Any, Optional

def track_recording(path: str, solver: str = "fabrik", use_middle_markers: bool = False,
                    backend: str = "euclid",
                    calibration_frames: Optional[tuple[int, int]] = None, *, compare_lm: bool = False,
                    out: str = "", summary_json: str = "", urdf: str = "", errors: str = "") -> dict[str, Any]: ...
