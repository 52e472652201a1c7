#pragma once
// OpenSim's IK tool on kinetrack: an .osim model, an optional Setup_IK.xml and a marker trial
// become a track::MarkerIkSpec exactly as OpenSim states the problem: the model's
// subject::markerModel (clamped coordinates bounded, locked ones held; coupler constraints; the
// default pose) with the setup's marker tasks (weights and apply flags), coordinate tasks (from the
// default value, a manual value or a file), accuracy and constraint weight;
// and the result becomes OpenSim's outputs (coordinates .mot in degrees, marker-error .sto).
#include <string>
#include <vector>

#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/track/marker_trial.hpp"

namespace kinetrack::track {

struct OpenSimIkBinding {
  MarkerIkSpec spec;
  /// Non-fatal findings ("marker 'X' of the setup is not in the trial: it never counts").
  std::vector<std::string> warnings;
};

/// Without a setup every model marker present in the trial is fitted with weight 1 and no
/// coordinate task is set. Throws ParseError (naming the setup file and line) for a marker task
/// naming a marker the model does not have, or a coordinate task naming an unknown coordinate;
/// InvalidArgument when no weighted marker of the model is in the trial.
OpenSimIkBinding bindOpenSimIk(const io::OpenSimModel& model, const io::IkSetup* setup,
                               const io::MarkerTrajectories& trial);

/// The solved coordinates as OpenSim's IK writes them: "Coordinates", columns in the model's
/// coordinate order, rotations in degrees, translations in metres.
io::MotTable openSimCoordinates(const io::OpenSimModel& model, const MarkerTrialResult& result);
/// The same for any solved poses, one per time (IMU IK among them). Throws InvalidArgument when
/// the sizes differ.
io::MotTable openSimCoordinates(const io::OpenSimModel& model, const std::vector<double>& times,
                                const std::vector<Configuration>& configurations);

/// OpenSim's marker-error table: time, total_squared_error (m²), marker_error_RMS and
/// marker_error_max (m); NaN in the three for a held frame (no marker present: an explicit gap).
io::MotTable markerErrorTable(const MarkerTrialResult& result);

}  // namespace kinetrack::track
