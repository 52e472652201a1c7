#pragma once
// The configuration nearest to a given one that satisfies the model's joint limits and linear
// rows: a feasible starting state for the trackers (the iCub's zero pose violates its elbow
// limits and a coupled shoulder row).
#include "kinetrack/model/configuration.hpp"

namespace kinetrack {

/// q with the joint coordinates replaced by argmin ‖s − s₀‖² subject to the position limits and
/// lower ≤ A s ≤ upper (Model::linearConstraints), base unchanged. Returns q unchanged when it is
/// already feasible. Throws InvalidArgument when the limits and rows admit no point (naming the
/// largest row violation) or on a size mismatch.
Configuration nearestFeasible(const Model& model, const Configuration& q);

}  // namespace kinetrack
