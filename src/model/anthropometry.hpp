#pragma once
// Private to the model library: the segment mass properties of the built-in human models.
#include <string>
#include <vector>

#include "kinetrack/model/human_models.hpp"

namespace kinetrack::detail {

/// Mass properties of one segment link (link frame: COM in m, inertia about the COM in kg m²).
struct SegmentInertial {
  std::string link;
  Inertial inertial;
};

/// The inertials of the 23 Xsens segment links of a human model with dimensions `d`, body mass
/// `mass` (kg) and de Leva's (1996) parameters for `sex`, in humanSegmentNames() order; their
/// masses sum to `mass`. Throws InvalidArgument unless 20 ≤ mass ≤ 300 kg.
std::vector<SegmentInertial> humanSegmentInertials(const HumanDimensions& d, double mass, Sex sex);

}  // namespace kinetrack::detail
