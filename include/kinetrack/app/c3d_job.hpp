#pragma once
// `kinetrack c3d export|info` as a job: a C3D file turned into what OpenSim reads — markers as
// TRC, the force plates' ground reactions as a GRF .mot in OpenSim's column names with the
// ExternalLoads XML that applies them to the feet, the analog channels (EMG, raw plate signals)
// as an .sto — and a summary of what the file holds (markers, analog channels, plates: type,
// place, peak load, the foot that stood on each). Lab axes are kept unless a rotation is asked.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/capture/force_plates.hpp"
#include "kinetrack/io/model/external_loads.hpp"

namespace kinetrack::app {

struct C3dExportOptions {
  std::string input;           ///< .c3d
  std::string trc;             ///< markers (mm), "" not written
  std::string grf;             ///< ground reactions .mot (N, m, N·m), "" not written
  std::string analog;          ///< analog channels .sto (the file's units), "" not written
  std::string external_loads;  ///< ExternalLoads XML for `grf` ("" not written; needs grf)
  io::ForceLocation location = io::ForceLocation::Origin;
  double threshold = 0.0;  ///< N: below it a plate's force, moment are zero (0: none, as OpenSim)
  bool zero = true;        ///< FORCE_PLATFORM:ZERO baseline when the file gives one
  /// Lab → output axes: "" (none), "y-up" (Z-up lab to OpenSim's Y up: (x, y, z) → (y, z, x), the
  /// permutation kinetrack reads Y-up marker files with), or rotations "x:-90,z:180" (degrees,
  /// applied left to right about the fixed axes).
  std::string rotate;
  /// "P=BODY" (1-based plate): the body each plate's force is applied to in the ExternalLoads.
  /// Plates not named are assigned from the foot markers (heel, toe, ankle markers of the side
  /// that stood on the plate) to `right_body` / `left_body`.
  std::vector<std::string> apply_to;
  std::string right_body = "calcn_r", left_body = "calcn_l";
  std::vector<std::string> channels;  ///< analog channels to write (labels); empty: all
};

/// Which foot stood on a plate, from the markers.
struct PlateFoot {
  char side = '?';                      ///< 'R', 'L' or '?' (no foot markers, or never loaded)
  int loaded_frames = 0;                ///< marker frames with ≥ 50 N (or the threshold)
  int right_votes = 0, left_votes = 0;  ///< loaded frames nearer each side's foot markers
  double distance = 0.0;                ///< median distance (m) from the centre of pressure to that foot's markers
};

struct C3dExportResult {
  io::C3dFile file;
  io::GroundReactions reactions;    ///< at the asked location, in the output axes
  std::vector<PlateFoot> feet;      ///< per plate
  std::vector<std::string> bodies;  ///< per plate: the body it is applied to ("" not applied)
  Matrix3d rotation = Matrix3d::Identity();
  std::vector<std::string> written;  ///< "path (what)" per file written
  std::string text;                  ///< the summary as printed
};

/// Reads options.input and writes the asked files (each atomically; nothing is written when an
/// input error is found: all files are prepared before the first is written). Throws ParseError
/// for a bad C3D or plate (naming the file and the plate or channel), InvalidArgument for a bad
/// option (an unknown analog channel, a bad rotation, "P=BODY" naming no plate, external loads
/// without a GRF file or a plate whose foot cannot be told).
C3dExportResult runC3dExport(const C3dExportOptions& options, const Reporter& reporter = {});

/// How a C3D's plates become external loads (`dynamics id --loads walk.c3d`).
struct C3dLoadOptions {
  io::ForceLocation location = io::ForceLocation::CentreOfPressure;
  double threshold = 20.0;  ///< N: smaller vertical forces are no load (no centre of pressure at noise)
  Matrix3d rotation = Matrix3d::Identity();  ///< lab → the model's axes
  std::vector<std::string> apply_to;         ///< "P=BODY" as C3dExportOptions::apply_to
  std::string right_body = "calcn_r", left_body = "calcn_l";
};

/// The force plates of a C3D file as ExternalLoads (one ExternalForce per loaded plate, applied
/// to the foot that stood on it, force and point in ground), ready for OpenSim's ID. Throws as
/// runC3dExport for a plate whose foot cannot be told, ParseError for a bad file or plate.
io::ExternalLoads c3dExternalLoads(const std::string& path, const C3dLoadOptions& options,
                                   const Reporter& reporter = {});

/// The external loads of `path` for a model whose up axis is `up`: a C3D's plates
/// (c3dExternalLoads, turned to a Y-up model's axes as its markers are), else an ExternalLoads
/// XML (io::readExternalLoads). What `dynamics id`, `dynamics filter` and `muscles` take as loads.
io::ExternalLoads readLoads(const std::string& path, const Vector3d& up, const Reporter& reporter = {});

/// True when `path` ends in .c3d (any case).
bool isC3dPath(const std::string& path);

/// The rotation `spec` describes (see C3dExportOptions::rotate). Throws InvalidArgument.
Matrix3d parseRotation(const std::string& spec);

/// Which foot stood on each plate: per marker frame with a loaded plate, the side (R/L) whose foot
/// markers (names with HEE, CAL, TOE, MT, MH, ANK, MAL, FOOT after an R/L prefix or before an _r/_l
/// suffix) are nearest the centre of pressure.
std::vector<PlateFoot> plateFeet(const io::C3dFile& file, const io::GroundReactions& centre_of_pressure,
                                 double threshold = 50.0);

}  // namespace kinetrack::app
