#pragma once
// Generalised-force CSV, the output of `kinetrack dynamics id`: one row per frame of the input
// motion (docs/formats.md):
//
//   time,base_fx,base_fy,base_fz,base_mx,base_my,base_mz,<joint 0>,…,<joint n−1>,valid
//
// Units: s; N and N m for the floating base's residual (world-frame force and moment about the
// base origin; absent for a fixed base); N m (revolute) or N (prismatic) per joint. valid is 0
// where the row could not be computed (a gap of the motion touches its difference stencil); its
// values are then 0. Numbers in shortest round-trip form.
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// Writes the rows atomically (a failure leaves no file). Throws InvalidArgument when the sizes
/// disagree (times, rows, valid flags, nv per row) or a valid row holds a NaN or infinite value,
/// ParseError naming `path` when it cannot be written.
void writeForceCsv(const std::string& path, const Model& model, const std::vector<double>& times,
                   const std::vector<VectorXd>& forces, const std::vector<std::uint8_t>& valid);

}  // namespace kinetrack::io
