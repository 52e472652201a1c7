#pragma once
// `kinetrack experiment mapping`: Nakamura Eq. 14–15 / Fig. 14, the polynomial human figure <->
// musculoskeletal model mapping fitted on real clips by a truncated SVD pseudo-inverse; error vs the
// number of singular values, in and out of sample; OUT/mapping_error.csv and the per-clip CSVs.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct MappingExperimentOptions {
  std::string human = "human48";
  std::string model = "../shared/data/opensim/gait2354_walk/subject01_simbody.osim";
  std::string map = "gait2354";
  std::vector<std::string> train = {"../shared/data/bvh/cmu_iclone/cmu_ic_003_01.bvh",
                                    "../shared/data/bvh/cmu_iclone/cmu_ic_005_01.bvh",
                                    "../shared/data/bvh/cmu_iclone/cmu_ic_006_01.bvh",
                                    "../shared/data/bvh/bandai/dataset-2_walk_normal_001.bvh",
                                    "../shared/data/bvh/bandai/dataset-2_walk_exhausted_001.bvh",
                                    "../shared/data/bvh/cmu_cgspeed/cmu_131_01.bvh",
                                    "../shared/data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh"};
  std::vector<std::string> test = {"../shared/data/bvh/cmu_iclone/cmu_ic_007_01.bvh",
                                   "../shared/data/bvh/cmu_iclone/cmu_ic_007_12.bvh",
                                   "../shared/data/bvh/bandai/dataset-2_walk-turn-left_normal_001.bvh",
                                   "../shared/data/bvh/bandai/dataset-2_run_normal_001.bvh",
                                   "../shared/data/bvh/cmu_cgspeed/cmu_131_02.bvh",
                                   "../shared/data/bvh/cmu_cgspeed/cmu_131_03.bvh"};
  std::string roundtrip = "../shared/data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot";
  std::string solver = "dynamical";
  int degree = 2;
  double rate = 30.0;      // pairs kept per second of clip (at most)
  double transient = 0.5;  // s
  double max_mnte = 0.05;
  double limit_margin_deg = 1.0;
  std::string out;
};

/// One clip of the experiment (a row of mapping_clips.csv and of the first table).
struct MappingClip {
  std::string path;
  bool train = true;
  int frames = 0, pairs = 0, gaps = 0, dropped = 0;  ///< dropped: pairs over the MNTE limit
  double human_mnte = 0.0, model_mnte = 0.0;         ///< medians
};

/// The error of one direction with k singular values (a row of mapping_error.csv).
struct MappingErrorRow {
  std::string direction;  ///< human->model or model->human
  int k = 1;
  double singular_value = 0.0;
  double train_rms_deg = 0.0, test_rms_deg = 0.0;  ///< over every output coordinate
};

/// One output coordinate at the best k and at full rank (a row of mapping_coordinates.csv).
struct MappingCoordinateRow {
  std::string direction, coordinate;
  double train_best = 0.0, test_best = 0.0, train_full = 0.0, test_full = 0.0;  ///< RMS (deg)
};

/// One direction's fit.
struct MappingDirection {
  std::string name;
  int features = 0, samples = 0, rank = 0;
  int best = 1;  ///< k with the smallest test RMS
};

struct MappingExperimentResult {
  std::string out, human_name, model_name, solver, roundtrip;
  int human_joints = 0, model_coordinates = 0, degree = 2;
  std::vector<MappingClip> clips;
  std::vector<MappingDirection> directions;  ///< human->model, model->human
  std::vector<MappingErrorRow> error;
  std::vector<MappingCoordinateRow> coordinates;
  /// The OpenSim IK walk through both maps (when options.roundtrip is set).
  int roundtrip_frames = 0;
  double roundtrip_rms_deg = 0.0, roundtrip_worst_deg = 0.0;
  std::string roundtrip_worst;
  /// mapping_series.csv, mapping_pairs.csv and mapping_roundtrip.csv (empty without a round trip):
  /// per-pair matrices, kept as the CSV text built while fitting.
  std::string series_csv, pairs_csv, roundtrip_csv;
};

/// Tracks the clips on both models, fits both directions and writes OUT/mapping_error.csv,
/// mapping_coordinates.csv, mapping_series.csv, mapping_pairs.csv, mapping_clips.csv (and
/// mapping_roundtrip.csv). Throws InvalidArgument naming the flag, ParseError for bad files.
MappingExperimentResult runMappingExperiment(const MappingExperimentOptions& options,
                                             const app::Reporter& reporter = {});
std::string mappingErrorCsv(const MappingExperimentResult& result);        ///< mapping_error.csv
std::string mappingCoordinatesCsv(const MappingExperimentResult& result);  ///< mapping_coordinates.csv
std::string mappingClipsCsv(const MappingExperimentResult& result);        ///< mapping_clips.csv
/// The tables `kinetrack experiment mapping` prints and the "wrote" line.
std::string summaryText(const MappingExperimentResult& result);

}  // namespace kinetrack::experiments
