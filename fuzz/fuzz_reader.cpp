// libFuzzer harness of one file reader (issue 20). The input bytes are written to a temporary
// file with the reader's extension and go through what the CLI does with such a file, not only
// the parser: a BVH, MVNX or pose-target CSV is loaded as a capture (track::loadCapture: clip,
// calibration poses), planned on human66 with the automatic segment map and tracked for its
// first frames (a BVH also on its own skeleton, with its joint values as ground truth); a segment map
// is resolved against its own names and the automatic map runs on them; a marker set is bound
// to human66; a joint CSV becomes human66 configurations, a wrench CSV is bound to human66's
// links and resampled; an .osim model is read as a model and for its muscles; an MJCF model
// goes through forward kinematics and the URDF export; the setup harness
// tries every OpenSim setup reader (IK, ID, external loads, static optimisation) on the input.
//
// A reader may reject the input only with kinetrack::ParseError or kinetrack::InvalidArgument;
// any other exception, a crash, a sanitizer report, a leak or a hang is a finding, and so is a
// tracked frame whose state is not finite or leaves the model's joint limits by more than 1e-6
// (the adversarial-frame campaign's contract). KINETRACK_FUZZ_READER selects the reader at
// compile time (fuzz/CMakeLists.txt builds one binary per reader and defines
// KINETRACK_FUZZ_IS_<reader>), so each binary links, instruments and scans the coverage of its
// own reader only.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model.hpp"

#if defined(KINETRACK_FUZZ_IS_bvh) || defined(KINETRACK_FUZZ_IS_mvnx) || defined(KINETRACK_FUZZ_IS_target_csv)
#define KINETRACK_FUZZ_CAPTURE 1
#include "kinetrack/track/pipeline.hpp"
#endif
#if defined(KINETRACK_FUZZ_IS_trc)
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#elif defined(KINETRACK_FUZZ_IS_mot)
#include "kinetrack/io/table/opensim_table.hpp"
#elif defined(KINETRACK_FUZZ_IS_c3d)
#include "kinetrack/io/capture/c3d.hpp"
#elif defined(KINETRACK_FUZZ_IS_osim)
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#elif defined(KINETRACK_FUZZ_IS_urdf)
#include "kinetrack/io/model/urdf.hpp"
#elif defined(KINETRACK_FUZZ_IS_mjcf)
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#elif defined(KINETRACK_FUZZ_IS_setup)
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"
#elif defined(KINETRACK_FUZZ_IS_segment_map)
#include "kinetrack/io/model/segment_map.hpp"
#elif defined(KINETRACK_FUZZ_IS_marker_set)
#include "kinetrack/io/model/marker_set.hpp"
#elif defined(KINETRACK_FUZZ_IS_qtm)
#include "kinetrack/io/capture/qtm_tsv.hpp"
#elif defined(KINETRACK_FUZZ_IS_joint_csv)
#include "kinetrack/io/table/joint_csv.hpp"
#elif defined(KINETRACK_FUZZ_IS_wrench_csv)
#include "kinetrack/io/table/wrench_csv.hpp"
#elif defined(KINETRACK_FUZZ_IS_point_csv)
#include "kinetrack/io/capture/point_cloud.hpp"
#elif defined(KINETRACK_FUZZ_IS_vsk)
#include "kinetrack/io/model/vsk.hpp"
#elif defined(KINETRACK_FUZZ_IS_mesh)
#include "kinetrack/io/model/mesh.hpp"
#include "kinetrack/model/collision_proxy.hpp"
#elif !defined(KINETRACK_FUZZ_CAPTURE)
#error "KINETRACK_FUZZ_IS_<reader> names no reader this harness knows"
#endif

namespace {

namespace io = kinetrack::io;
using kinetrack::Model;

#define KINETRACK_FUZZ_STR2(x) #x
#define KINETRACK_FUZZ_STR(x) KINETRACK_FUZZ_STR2(x)

/// The temporary file of this process (in /dev/shm when present: no disk traffic).
const std::string& tempPath() {
  static const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  "/kinetrack_fuzz_" + std::to_string(getpid()) + "_" +
                                  KINETRACK_FUZZ_STR(KINETRACK_FUZZ_READER) + KINETRACK_FUZZ_EXTENSION;
  return path;
}

[[maybe_unused]] const Model& human66() {
  static const Model model = kinetrack::makeBuiltinModel("human66");
  return model;
}

/// Runs `read`; a refusal (ParseError, InvalidArgument) ends it, anything else escapes.
template <class Read>
void ignoringRefusals(const Read& read) {
  try {
    read();
  } catch (const kinetrack::ParseError&) {
  } catch (const kinetrack::InvalidArgument&) {
  }
}

/// A finding that is not a crash: reported on stderr and aborted, so libFuzzer keeps the input.
[[noreturn, maybe_unused]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_%s: %s\n", KINETRACK_FUZZ_STR(KINETRACK_FUZZ_READER), what.c_str());
  std::abort();
}

#if defined(KINETRACK_FUZZ_CAPTURE)
namespace track = kinetrack::track;

/// Frames tracked per execution: what the tracker does with file data is decided in the first
/// frames (calibration, the first solve from the initial state, the first velocity); longer
/// streams are the adversarial-frame campaign's (10,000 frames per attack).
constexpr int kTrackedFrames = 3;

/// The first kTrackedFrames frames of `clip` (and of `truth`).
void keepFirstFrames(kinetrack::io::MotionClip& clip, std::vector<kinetrack::Configuration>* truth) {
  if (clip.numFrames() <= kTrackedFrames) return;
  const std::size_t samples = static_cast<std::size_t>(kTrackedFrames) * clip.segment_names.size();
  clip.times.resize(kTrackedFrames);
  clip.poses.resize(samples);
  clip.valid.resize(samples);
  if (!clip.linear_velocity.empty()) clip.linear_velocity.resize(samples);
  if (!clip.angular_velocity.empty()) clip.angular_velocity.resize(samples);
  if (truth != nullptr && truth->size() > static_cast<std::size_t>(kTrackedFrames)) truth->resize(kTrackedFrames);
}

/// Every tracked frame: a finite state inside the joint limits (to 1e-6), finite figures.
void trackAndCheck(const Model& model, const track::Capture& capture, const track::TrackSetup& setup,
                   const std::vector<kinetrack::Configuration>* truth) {
  track::TrackerOptions options;
  options.max_substeps = 2;  // teleporting fuzzed targets would take 64 sub-steps a frame
  const auto& lower = model.lowerPositionLimits();
  const auto& upper = model.upperPositionLimits();
  int rows = 0;
  const auto sink = [&](int f, const kinetrack::Configuration& q, const track::FrameOutcome& o) {
    ++rows;
    if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
      finding("frame " + std::to_string(f) + ": the state is not finite");
    for (Eigen::Index j = 0; j < q.joints.size(); ++j)
      if (std::max(lower[j] - q.joints[j], q.joints[j] - upper[j]) > 1e-6)
        finding("frame " + std::to_string(f) + ": joint " + std::to_string(j) + " outside its limits");
    if (!o.gap && !o.non_finite && !std::isfinite(o.rmse)) finding("frame " + std::to_string(f) + ": rmse not finite");
  };
  (void)track::runTracking(model, capture, setup.plan, options, sink, truth);
  if (rows != capture.clip.numFrames()) finding("a frame without its row");
}

void readCapture(const std::string& path) {
  track::Capture capture = track::loadCapture(path);
  std::optional<track::TrackSetup> own;
  // --model from-clip, with the file's own joint values as ground truth
  if (capture.bvh) ignoringRefusals([&] { own = track::setupFromClip(capture, io::BvhUnits::Auto, true); });
  std::optional<track::TrackSetup> on_human;
  ignoringRefusals([&] { on_human = track::setupOnModel(human66(), capture, "auto"); });
  // Planned on the whole clip (calibration, ground truth), tracked on its first frames.
  keepFirstFrames(capture.clip, own ? &own->truth : nullptr);
  if (own) trackAndCheck(own->model, capture, *own, &own->truth);
  if (on_human) trackAndCheck(on_human->model, capture, *on_human, nullptr);
}
#endif

void readWith(const std::string& path, const std::string& text) {
#if defined(KINETRACK_FUZZ_CAPTURE)
  (void)text;
  readCapture(path);
#elif defined(KINETRACK_FUZZ_IS_trc)
  (void)path;
  const io::MarkerTrajectories t = io::parseTrc(text, "fuzz.trc");
  (void)io::stripLabels(t);
  (void)io::parseTrc(text, "fuzz.trc", {.y_up = false});
#elif defined(KINETRACK_FUZZ_IS_mot)
  (void)text;
  (void)io::readMot(path);
#elif defined(KINETRACK_FUZZ_IS_c3d)
  // The options from the input's last byte: every option path, one read per execution.
  const unsigned char last = text.empty() ? 0 : static_cast<unsigned char>(text.back());
  (void)io::readC3d(
      path, {.z_up = (last & 1) == 0, .keep_virtual_points = (last & 2) != 0, .keep_unlabeled = (last & 4) != 0});
#elif defined(KINETRACK_FUZZ_IS_osim)
  ignoringRefusals([&] { (void)io::readOpenSimModel(path); });
  (void)io::parseOpenSimMuscles(text, "fuzz.osim");
#elif defined(KINETRACK_FUZZ_IS_urdf)
  (void)path;
  (void)io::parseUrdf(text, "fuzz.urdf");
#elif defined(KINETRACK_FUZZ_IS_mjcf)
  // Read from the file (its folder resolves <include> and meshes), then what a command does with
  // the model: forward kinematics at zero and the URDF export.
  (void)text;
  const Model m = io::loadMjcf(path);
  kinetrack::Data data(m);
  kinetrack::framesForwardKinematics(m, data, kinetrack::Configuration(m));
  for (const kinetrack::Transform& t : data.frame)
    if (!t.R.allFinite() || !t.p.allFinite()) finding("a frame placement is not finite");
  ignoringRefusals([&] { (void)io::toUrdf(m); });
#elif defined(KINETRACK_FUZZ_IS_setup)
  // Each reader refuses the others' root elements quickly; the seeds hold every kind.
  ignoringRefusals([&] { (void)io::parseIkSetup(text, "fuzz_Setup_IK.xml"); });
  ignoringRefusals([&] { (void)io::parseIdSetup(text, "fuzz_Setup_ID.xml"); });
  ignoringRefusals([&] { (void)io::parseExternalLoadsSpec(text, "fuzz_ExternalLoads.xml"); });
  (void)io::readStaticOptimizationSetup(path);
#elif defined(KINETRACK_FUZZ_IS_segment_map)
  (void)text;
  const io::SegmentMap map = io::readSegmentMap(path);
  std::vector<std::string> names = map.detect;  // a clip with the map's own names
  for (const io::SegmentMapEntry& e : map.entries) names.push_back(e.clip_segment);
  names.insert(names.end(), map.unmapped.begin(), map.unmapped.end());
  (void)io::detectSegmentMap(names);
  (void)io::autoSegmentMap(names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  (void)io::resolveSegmentMap(names, path);
#elif defined(KINETRACK_FUZZ_IS_marker_set)
  (void)text;
  const io::MarkerSet set = io::readMarkerSet(path);
  (void)io::scaledMarkerSet(set, 1.62);
  (void)io::withMarkers(human66(), set);
#elif defined(KINETRACK_FUZZ_IS_qtm)
  (void)text;
  (void)io::readQtmTsv(path);
#elif defined(KINETRACK_FUZZ_IS_joint_csv)
  (void)path;
  const io::JointTrajectory t = io::parseJointCsv(text, "fuzz.csv");
  (void)io::toConfigurations(t, human66());
#elif defined(KINETRACK_FUZZ_IS_wrench_csv)
  (void)path;
  const io::WrenchTrajectory w = io::parseWrenchCsv(text, "fuzz.csv");
  (void)io::bindWrenchBodies(w, human66());
  std::vector<double> times;  // the file's range: its ends, two points inside, one time past each end
  if (!w.times.empty()) {
    const double a = w.times.front(), b = w.times.back(), d = b - a;
    times = {a - 1.0 - 0.5 * d, a, a + 0.3 * d, a + 0.7 * d, b, b + 1.0 + 0.5 * d};
  }
  (void)io::resampleWrenches(w, times, io::WrenchOutside::Zero);
#elif defined(KINETRACK_FUZZ_IS_point_csv)
  (void)path;
  (void)io::parsePointCsv(text, "fuzz.csv", 0.001);
#elif defined(KINETRACK_FUZZ_IS_vsk)
  (void)path;
  const io::VskSubject subject = io::parseVsk(text, "fuzz.vsk");
  ignoringRefusals([&] { (void)subject.height(); });
  (void)subject.mass();
#elif defined(KINETRACK_FUZZ_IS_mesh)
  // The same bytes as STL (binary or ASCII) and as OBJ; a mesh read is fitted as the proxies are.
  (void)path;
  for (const bool stl : {true, false})
    ignoringRefusals([&] {
      const io::TriangleMesh m = stl ? io::parseStl(text, "fuzz.stl") : io::parseObj(text, "fuzz.obj");
      for (const auto& t : m.triangles)
        for (const int v : t)
          if (v < 0 || static_cast<std::size_t>(v) >= m.vertices.size()) finding("triangle index out of range");
      const kinetrack::Capsule c = kinetrack::boundingCapsule(m.vertices);
      if (!std::isfinite(c.radius) || !c.a.allFinite() || !c.b.allFinite()) finding("capsule not finite");
    });
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string& path = tempPath();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  ignoringRefusals([&] { readWith(path, text); });
  return 0;
}
