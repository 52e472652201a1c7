"""kinetrack.hand: the FABRIK hand tracker on a Qualisys glove recording."""
from typing import Any

def track_recording(path: str, solver: str = "fabrik", use_middle_markers: bool = False,
                    backend: str = "euclid") -> dict[str, Any]: ...
