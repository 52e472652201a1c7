#pragma once
// The GPM seed's study on real captures (SPEC §6, GPM §IV–V): LN and GP RMS joint-angle error
// (Eq. 6) per subject against the workspace division inc (Fig. 4), for subjects included in the
// densities and left out of them, and the robustness test of Table II / Fig. 5.
#include <functional>
#include <string>
#include <vector>

#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/gradient_projection.hpp"
#include "kinetrack/prior/subject_fit.hpp"

namespace kinetrack::prior {

/// A performer and the clips that make it (paths).
struct StudySubject {
  std::string name;
  std::vector<std::string> clips;
};

/// Every distinct performer with upper-body motion in ../shared/data (docs/gpm.md lists them),
/// with paths under `data_dir` (the folder holding bvh/ and mvnx/).
std::vector<StudySubject> sharedDataSubjects(const std::string& data_dir);

/// The 25-DoF prior from every frame of `fits` (recorded angles; key points from the recorded
/// hand positions: right hand, left hand, their midpoint). Throws InvalidArgument when empty.
DensityPrior upperBodyPrior(const std::vector<const SubjectFit*>& fits, const DensityOptions& options);

/// One method on one subject: every clip starts at its first recorded pose and follows the
/// recorded hand poses frame by frame.
struct SubjectRun {
  double rms_deg = 0.0;               ///< Eq. 6 over all frames and the 25 joints (deg)
  double hand_position_rms = 0.0;     ///< m, how well the hands followed
  double fallback_fraction = 0.0;     ///< share of (frame, group) lookups that fell in an empty cell
  std::vector<double> joint_rms_deg;  ///< per joint (deg)
};
SubjectRun runSubject(const SubjectFit& fit, const DensityPrior* prior, IkMethod method, const GpmOptions& options);

struct StudyRow {
  std::string subject;
  int inc = 1;
  IkMethod method = IkMethod::LeastNorm;
  bool included = true;  ///< in the prior's training set (LN: always 1, it uses no data)
  double rms_deg = 0.0;
};

struct RobustnessRow {
  int test = 1;  ///< robustness test number = subjects included (Table II)
  std::string subject;
  bool included = true;
  double rms_deg = 0.0;
};

struct StudyOptions {
  std::vector<int> incs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  int robustness_inc = 5;     ///< inc of the Table II / Fig. 5 test (0: skip it)
  bool leave_one_out = true;  ///< also GP on each subject with a prior of the others (included = 0)
  GpmOptions gpm;
  DensityOptions density;  ///< inc is set per run
  /// Called before each unit of work with (done, total, label); may be empty.
  std::function<void(int, int, const std::string&)> progress;
};

struct StudyResult {
  std::vector<StudyRow> rows;
  std::vector<RobustnessRow> robustness;
};

/// Runs the study over `fits` (≥ 2 subjects for leave-one-out and robustness).
StudyResult runGpmStudy(const std::vector<SubjectFit>& fits, const StudyOptions& options);

/// CSV text: "subject,inc,method,included,rms_deg".
std::string studyCsv(const std::vector<StudyRow>& rows);
/// CSV text: "test,subject,included,rms_deg".
std::string robustnessCsv(const std::vector<RobustnessRow>& rows);

}  // namespace kinetrack::prior
