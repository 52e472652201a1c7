#pragma once
// Private to the C3D reader: what each POINT entry is (marker, unlabelled trajectory, model
// output) and the unique names of the kept points.
#include <string>
#include <vector>

#include "c3d_format.hpp"
#include "kinetrack/io/capture/c3d.hpp"

namespace kinetrack::io::detail {

/// `label` without a "SUBJECT:" prefix (up to the last ':').
std::string withoutSubjectPrefix(const std::string& label);

/// The kind of every label: listed in a POINT group of model outputs (POINT:ANGLES, FORCES,
/// MOMENTS, POWERS, MODELED_MARKERS, REACTIONS and the groups POINT:TYPE_GROUPS names), a Plug-in
/// Gait segment frame point (PELO, LFEA, …), an unlabelled "*<digits>" trajectory, else a marker.
std::vector<C3dPointKind> classifyC3dPoints(const C3dParameters& params, const std::vector<std::string>& labels);

/// Unique names for the points `kept` (indices into `labels`): the label without its subject
/// prefix; an empty or repeated name becomes the raw label when that is unique, else
/// "Point<index + 1>" (then "_2", "_3", … if taken). Each rename is a warning (the first 20, then
/// a count).
std::vector<std::string> uniqueC3dNames(const std::vector<std::string>& labels, const std::vector<int>& kept,
                                        std::vector<std::string>& warnings);

}  // namespace kinetrack::io::detail
