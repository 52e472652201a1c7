// The GPM study (Fig. 4, Table II / Fig. 5) on the subjects of ../shared/data.
#include "kinetrack/prior/gpm_study.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::prior {

std::vector<StudySubject> sharedDataSubjects(const std::string& data_dir) {
  const std::string b = data_dir + "/bvh/";
  auto paths = [&](std::initializer_list<const char*> files) {
    std::vector<std::string> out;
    for (const char* f : files) out.push_back(b + f);
    return out;
  };
  return {
      {"CMU-1", paths({"cmu_cgspeed/cmu_01_01.bvh"})},
      {"CMU-131", paths({"cmu_cgspeed/cmu_131_01.bvh", "cmu_cgspeed/cmu_131_02.bvh", "cmu_cgspeed/cmu_131_03.bvh"})},
      {"CMU-3", paths({"cmu_iclone/cmu_ic_003_01.bvh"})},
      {"CMU-5", paths({"cmu_iclone/cmu_ic_005_01.bvh"})},
      {"CMU-6", paths({"cmu_iclone/cmu_ic_006_01.bvh"})},
      {"CMU-7", paths({"cmu_iclone/cmu_ic_007_01.bvh", "cmu_iclone/cmu_ic_007_12.bvh"})},
      {"Bandai-ds2",
       paths({"bandai/dataset-2_raise-up-both-hands_normal_001.bvh",
              "bandai/dataset-2_raise-up-right-hand_normal_001.bvh", "bandai/dataset-2_wave-right-hand_normal_001.bvh",
              "bandai/dataset-2_walk_normal_001.bvh", "bandai/dataset-2_walk_exhausted_001.bvh",
              "bandai/dataset-2_walk-turn-left_normal_001.bvh", "bandai/dataset-2_run_normal_001.bvh"})},
      {"PyMO-Meredith", paths({"pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh"})},
      {"ReActIdle-2", paths({"reactidle/002_genuine.bvh"})},
      {"ReActIdle-3", paths({"reactidle/003_genuine.bvh"})},
      {"Xsens-MPIEA", paths({"xsens/xsens_test_mocap.bvh"})},
  };
}

DensityPrior upperBodyPrior(const std::vector<const SubjectFit*>& fits, const DensityOptions& options) {
  PriorSamples s;
  s.num_joints = kUpperBodyDof;
  for (const SubjectFit* f : fits)
    for (std::size_t i = 0; i < f->theta.size(); ++i) {
      s.joints.insert(s.joints.end(), f->theta[i].data(), f->theta[i].data() + kUpperBodyDof);
      for (const Vector3d& k : upperBodyKeyPoints(f->hands[i])) s.key_points.push_back(k);
    }
  if (s.size() == 0) throw InvalidArgument("upperBodyPrior: no recorded frames");
  return {s, upperBodyGroups(), options};
}

SubjectRun runSubject(const SubjectFit& fit, const DensityPrior* prior, IkMethod method, const GpmOptions& options) {
  GradientProjectionIk ik(fit.model, prior, options);
  SubjectRun run;
  run.joint_rms_deg.assign(kUpperBodyDof, 0.0);
  Vector25d sq = Vector25d::Zero();
  double pos2 = 0.0;
  long lookups = 0, fallbacks = 0;
  for (const FittedClip& c : fit.clips) {
    if (c.frames == 0) continue;
    Vector25d theta = fit.theta[static_cast<std::size_t>(c.first)];
    for (int f = c.first; f < c.first + c.frames; ++f) {
      const GpmFrameResult r = ik.solve(fit.hands[static_cast<std::size_t>(f)], theta, method);
      sq += (theta - fit.theta[static_cast<std::size_t>(f)]).cwiseAbs2();
      pos2 += r.position_error * r.position_error;
      lookups += 3;
      fallbacks += r.fallbacks;
    }
  }
  const auto n = static_cast<double>(fit.theta.size());
  constexpr double kDeg = M_PI / 180.0;
  run.rms_deg = std::sqrt(sq.sum() / (n * kUpperBodyDof)) / kDeg;
  for (int i = 0; i < kUpperBodyDof; ++i) run.joint_rms_deg[static_cast<std::size_t>(i)] = std::sqrt(sq[i] / n) / kDeg;
  run.hand_position_rms = std::sqrt(pos2 / n);
  run.fallback_fraction = lookups > 0 ? static_cast<double>(fallbacks) / static_cast<double>(lookups) : 0.0;
  return run;
}

StudyResult runGpmStudy(const std::vector<SubjectFit>& fits, const StudyOptions& options) {
  const int S = static_cast<int>(fits.size());
  if (S < 1) throw InvalidArgument("runGpmStudy: no subjects");
  const bool loo = options.leave_one_out && S >= 2;
  const int per_inc = 1 + (loo ? S : 0);
  const int total = S + static_cast<int>(options.incs.size()) * per_inc + (options.robustness_inc > 0 ? S : 0);
  int done = 0;
  auto progress = [&](const std::string& label) {
    if (options.progress) options.progress(done, total, label);
    ++done;
  };
  StudyResult out;
  std::vector<double> ln(static_cast<std::size_t>(S));
  for (int s = 0; s < S; ++s) {
    progress("LN " + fits[static_cast<std::size_t>(s)].subject);
    ln[static_cast<std::size_t>(s)] =
        runSubject(fits[static_cast<std::size_t>(s)], nullptr, IkMethod::LeastNorm, options.gpm).rms_deg;
  }
  std::vector<const SubjectFit*> all;
  for (const auto& f : fits) all.push_back(&f);
  for (int inc : options.incs) {
    DensityOptions d = options.density;
    d.inc = inc;
    progress(fmt::format("GP inc {} (all subjects in the prior)", inc));
    const DensityPrior prior = upperBodyPrior(all, d);
    for (int s = 0; s < S; ++s) {
      const SubjectFit& f = fits[static_cast<std::size_t>(s)];
      out.rows.push_back({f.subject, inc, IkMethod::LeastNorm, true, ln[static_cast<std::size_t>(s)]});
      out.rows.push_back({f.subject, inc, IkMethod::GradientProjection, true,
                          runSubject(f, &prior, IkMethod::GradientProjection, options.gpm).rms_deg});
    }
    if (!loo) continue;
    for (int s = 0; s < S; ++s) {
      const SubjectFit& f = fits[static_cast<std::size_t>(s)];
      progress(fmt::format("GP inc {} without {}", inc, f.subject));
      std::vector<const SubjectFit*> others;
      for (int o = 0; o < S; ++o)
        if (o != s) others.push_back(&fits[static_cast<std::size_t>(o)]);
      const DensityPrior p = upperBodyPrior(others, d);
      out.rows.push_back({f.subject, inc, IkMethod::GradientProjection, false,
                          runSubject(f, &p, IkMethod::GradientProjection, options.gpm).rms_deg});
    }
  }
  if (options.robustness_inc > 0) {
    DensityOptions d = options.density;
    d.inc = options.robustness_inc;
    for (int t = 1; t <= S; ++t) {
      progress(fmt::format("robustness test {} (inc {})", t, d.inc));
      const std::vector<const SubjectFit*> included(all.begin(), all.begin() + t);
      const DensityPrior p = upperBodyPrior(included, d);
      for (int s = 0; s < S; ++s)
        out.robustness.push_back(
            {t, fits[static_cast<std::size_t>(s)].subject, s < t,
             runSubject(fits[static_cast<std::size_t>(s)], &p, IkMethod::GradientProjection, options.gpm).rms_deg});
    }
  }
  if (options.progress) options.progress(total, total, "");
  return out;
}

std::string studyCsv(const std::vector<StudyRow>& rows) {
  std::string s = "subject,inc,method,included,rms_deg\n";
  for (const StudyRow& r : rows)
    s += fmt::format("{},{},{},{},{:.6f}\n", r.subject, r.inc, toString(r.method), r.included ? 1 : 0, r.rms_deg);
  return s;
}

std::string robustnessCsv(const std::vector<RobustnessRow>& rows) {
  std::string s = "test,subject,included,rms_deg\n";
  for (const RobustnessRow& r : rows)
    s += fmt::format("{},{},{},{:.6f}\n", r.test, r.subject, r.included ? 1 : 0, r.rms_deg);
  return s;
}

}  // namespace kinetrack::prior
