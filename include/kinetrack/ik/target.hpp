#pragma once
// Target handles shared by every IK solver (DynamicalIk, InstantaneousIk, PairwiseIk).
#include <cstdint>

#include "kinetrack/core/types.hpp"

namespace kinetrack {

/// A target of one solver instance, as returned by its add*Target calls.
using TargetId = Id<struct TargetTag>;

enum class TargetType : std::uint8_t { Position, Orientation, Pose };

}  // namespace kinetrack
