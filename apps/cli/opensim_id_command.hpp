#pragma once
// `kinetrack dynamics id` on an OpenSim model (.osim): see opensim_id_command.cpp.
#include <limits>
#include <string>

namespace kinetrack::cli {

struct OpenSimIdConfig {
  std::string model, motion, out;
  std::string loads;      ///< ExternalLoads XML (else the setup's external_loads_file, else none)
  std::string setup;      ///< InverseDynamicsTool setup (time range, cut-off, loads)
  std::string reference;  ///< an ID .sto to compare with (OpenSim's)
  std::string plot;       ///< PNG overlay of ours vs the reference
  std::string plot_script;
  std::string com_offset;        ///< BODY:X,Y,Z — move the body's mass centre (m, its frame) first
  std::string degrees = "auto";  ///< motion angles: auto (header) | yes | no
  double cutoff = -1.0;
  bool cutoff_given = false;
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  bool quiet = false;
};

int runOpenSimInverseDynamics(const OpenSimIdConfig& cfg);

}  // namespace kinetrack::cli
