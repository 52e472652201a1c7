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

/// Tracks the clips on both models, fits both directions, writes the CSVs and notes the tables.
void runMappingExperiment(const MappingExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
