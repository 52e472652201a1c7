#pragma once
// The scale factors of OpenSim's ScaleTool (its ModelScaler): every body starts at (1, 1, 1);
// then, in the setup's scaling_order,
// - measurements: per applied <Measurement>, the mean over its marker pairs of
//       d_trial / d_model
//   with d_trial the pair's distance averaged over the trial's frames in the scaler's time range
//   (the distance of each frame, then the mean: not the distance of the mean positions) and
//   d_model the distance between the same model markers in the generic model's default pose; the
//   factor is set on the listed axes of the listed bodies (a later measurement overwrites an
//   earlier one on the same axis);
// - manualScale: each applied <Scale> sets the three factors of its body.
// What the factors do to the model (masses, frames, markers, paths, muscles) is
// io::scaleOpenSimModelXml (io/model/opensim_model_edit.hpp); docs/scaling.md.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_scale_setup.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::subject {

/// One marker pair of a measurement.
struct MarkerPairDistance {
  std::string first, second;
  double model_distance = 0.0;  ///< m, generic model, default pose
  double trial_distance = 0.0;  ///< m, mean over the frames in range
  int frames = 0;               ///< frames where both markers are present
};

/// One measurement's factor (NaN when it was not applied: apply false or no measurements step).
struct MeasurementFactor {
  std::string name;
  double factor = 0.0;
  std::vector<MarkerPairDistance> pairs;
};

struct BodyScaleFactors {
  std::string body;
  Vector3d factors = Vector3d::Ones();  ///< along the body frame's X, Y, Z
};

struct OpenSimScaleFactors {
  std::vector<BodyScaleFactors> bodies;  ///< every body of the model, in its file order
  std::vector<MeasurementFactor> measurements;
  int frames = 0;  ///< trial frames in the scaler's time range (0 without measurements)
  /// Bodies of the setup the model lacks, ignored as OpenSim ignores them (gait2354's setup
  /// scales patella_r/l, which the Simbody model does not have): "subject01_Setup_Scale.xml:118:
  /// Measurement 'thigh': body 'patella_r' is not a body of the model: ignored".
  std::vector<std::string> warnings;
  /// The factors of `body`, or nullptr.
  [[nodiscard]] const Vector3d* find(std::string_view body) const;
};

/// The frames [first, last] of `times` in [start, end] (a tolerance of 1e-9 s); when none lies in
/// it, the single frame nearest to the range. Throws InvalidArgument for an empty trial.
std::pair<int, int> frameRange(const std::vector<double>& times, double start, double end);

struct ScaleFactorOptions {
  /// A body of the setup that the model lacks is a ParseError (else a warning, as OpenSim).
  bool unknown_body_is_error = false;
};

/// The ScaleTool's factors for `generic` (its markers being the ones the setup's marker set gave
/// it: io::OpenSimReadOptions::markers) from `trial` (positions in m; any orientation). `trial`
/// may be null when the scaling order has no measurements step. Throws ParseError naming the
/// setup file and line for a marker pair naming a marker absent from the model or from the trial
/// ("Measurement 'torso': marker 'XYZ' is not in the static trial static.trc"), a pair never
/// present in the same frame, a model pair at distance 0, or (with unknown_body_is_error) a body
/// of a measurement or a manual scale that is not a body of the model (listing the bodies);
/// InvalidArgument when a measurements step has no trial.
OpenSimScaleFactors computeOpenSimScaleFactors(const io::OpenSimModel& generic, const io::ScaleSetup& setup,
                                               const io::MarkerTrajectories* trial,
                                               const ScaleFactorOptions& options = {});

}  // namespace kinetrack::subject
