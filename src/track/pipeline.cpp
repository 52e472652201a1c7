#include "kinetrack/track/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "kinetrack/io/capture/target_csv.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "kinetrack/track/synthetic.hpp"

namespace kinetrack::track {
namespace {

std::string extensionOf(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string e = path.substr(dot + 1);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

void retime(io::MotionClip& clip, double rate) {
  for (std::size_t f = 0; f < clip.times.size(); ++f) clip.times[f] = static_cast<double>(f) / rate;
  if (!clip.linear_velocity.empty()) io::computeVelocities(clip);
}

}  // namespace

Capture loadCapture(const std::string& path, const CaptureOptions& options) {
  if (options.rate < 0.0 || !std::isfinite(options.rate))
    throw InvalidArgument("--rate must be a positive frame rate (Hz)");
  Capture c;
  const std::string ext = extensionOf(path);
  if (ext == "bvh") {
    c.kind = CaptureKind::Bvh;
    c.bvh = io::readBvh(path);
    io::BvhOptions o;
    o.units = options.units;
    o.velocities = false;  // ClipTracker interpolates between frames; velocities are not read
    c.clip = io::bvhToClip(*c.bvh, o);
    c.calibrations.emplace_back("rest", io::bvhRestPose(*c.bvh, o));
  } else if (ext == "mvnx") {
    c.kind = CaptureKind::Mvnx;
    const io::MvnxFile f = io::readMvnx(path);
    c.clip = io::mvnxToClip(f);
    for (const auto& [type, frame] : f.calibration) c.calibrations.emplace_back(type, io::mvnxCalibrationPose(f, type));
  } else if (ext == "csv") {
    c.kind = CaptureKind::TargetCsv;
    io::PoseTargets t = io::readTargetCsv(path);
    c.clip = std::move(t.clip);
    c.has_position = std::move(t.has_position);
    c.has_orientation = std::move(t.has_orientation);
  } else {
    throw InvalidArgument("input '" + path + "': unknown capture format '." + ext +
                          "' (expected .bvh, .mvnx or .csv pose targets)");
  }
  if (c.has_position.empty()) c.has_position.assign(c.clip.segment_names.size(), 1);
  if (c.has_orientation.empty()) c.has_orientation.assign(c.clip.segment_names.size(), 1);
  if (c.clip.numFrames() == 0) throw ParseError(path, 0, "no motion frames");
  if (options.rate > 0.0) retime(c.clip, options.rate);
  return c;
}

Capture captureFromClip(io::MotionClip clip) {
  const int ns = clip.numSegments(), n = clip.numFrames();
  const std::string who = clip.source.empty() ? std::string("capture") : clip.source;
  if (ns == 0 || n == 0) throw InvalidArgument(who + ": no segment or no frame");
  if (clip.segment_parent.empty()) clip.segment_parent.assign(static_cast<std::size_t>(ns), -1);
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(ns);
  if (clip.segment_parent.size() != static_cast<std::size_t>(ns) || clip.poses.size() != cells)
    throw InvalidArgument(who + ": " + std::to_string(ns) + " segments and " + std::to_string(n) +
                          " frames need as many parents and " + std::to_string(cells) + " poses");
  for (int s = 0; s < ns; ++s) {
    const int p = clip.segment_parent[static_cast<std::size_t>(s)];
    if (p < -1 || p >= s)
      throw InvalidArgument(who + ": segment '" + clip.segment_names[static_cast<std::size_t>(s)] + "': parent " +
                            std::to_string(p) + " is not an earlier segment (parents come before children)");
    for (int k = 0; k < s; ++k)
      if (clip.segment_names[static_cast<std::size_t>(k)] == clip.segment_names[static_cast<std::size_t>(s)])
        throw InvalidArgument(who + ": segment name '" + clip.segment_names[static_cast<std::size_t>(s)] +
                              "' appears twice");
  }
  for (int f = 0; f < n; ++f) {
    const double t = clip.times[static_cast<std::size_t>(f)];
    if (!std::isfinite(t) || (f > 0 && !(t > clip.times[static_cast<std::size_t>(f) - 1])))
      throw InvalidArgument(who + ": frame " + std::to_string(f) + ": time " + std::to_string(t) +
                            " is not finite or not after the previous frame's");
  }
  clip.valid.assign(cells, 1);
  for (int f = 0; f < n; ++f)
    for (int s = 0; s < ns; ++s) {
      const std::size_t i = static_cast<std::size_t>(f) * static_cast<std::size_t>(ns) + static_cast<std::size_t>(s);
      const Transform& X = clip.poses[i];
      if (X.p.hasNaN() || X.R.hasNaN()) {
        clip.valid[i] = 0;
        continue;
      }
      const std::string at =
          who + ": frame " + std::to_string(f) + ", segment '" + clip.segment_names[static_cast<std::size_t>(s)] + "'";
      if (!X.p.allFinite()) throw InvalidArgument(at + ": the position is not finite");
      if (!X.R.allFinite() || (X.R.transpose() * X.R - Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-6 ||
          X.R.determinant() < 0.0)
        throw InvalidArgument(at + ": the orientation is not a rotation");
    }
  clip.linear_velocity.clear();
  clip.angular_velocity.clear();
  Capture c;
  c.kind = CaptureKind::Bvh;
  c.clip = std::move(clip);
  c.has_position.assign(static_cast<std::size_t>(ns), 1);
  c.has_orientation.assign(static_cast<std::size_t>(ns), 1);
  return c;
}

Retargeting planTracking(const Model& model, const Capture& capture, const std::vector<SegmentPair>& map,
                         const PlanOptions& options) {
  std::string cal = options.calibration;
  if (cal.empty()) {
    // BVH: the first frame (the actor standing, or the exporter's T-pose for CMU and Xsens);
    // rest poses are arbitrary for some exporters (Bandai's puts the feet in line with the
    // shanks, a hinge-jointed model then tracks 10-30 times worse, see docs/tracking.md).
    cal = capture.kind == CaptureKind::Bvh ? "first" : "none";
    const char* preferred[] = {"npose", "identity", "tpose"};
    for (const char* p : preferred)
      for (const auto& [name, pose] : capture.calibrations)
        if (name == p && cal == "none") cal = p;
  }
  RetargetOptions ro;
  ro.root_position = options.root_position;
  ro.model_up = options.model_up;
  ro.stand_on_ground = options.stand_on_ground;
  ro.ground_height = options.ground_height;
  ro.surface = options.surface;
  ro.root_position_weight = options.root_position_weight;
  const io::MotionClip* pose = nullptr;
  int frame = 0;
  if (cal == "none") {
    ro.calibration = Calibration::None;
  } else if (cal == "first" || cal.rfind("frame:", 0) == 0) {
    ro.calibration = Calibration::Pose;
    pose = &capture.clip;
    if (cal != "first") {
      try {
        std::size_t used = 0;
        frame = std::stoi(cal.substr(6), &used);
        if (used != cal.size() - 6) throw std::invalid_argument("");
      } catch (const std::exception&) {
        throw InvalidArgument("calibration '" + cal + "': expected frame:N with N a frame index");
      }
      if (frame < 0 || frame >= capture.clip.numFrames())
        throw InvalidArgument("calibration '" + cal + "': the clip has frames 0.." +
                              std::to_string(capture.clip.numFrames() - 1));
    }
  } else {
    ro.calibration = Calibration::Pose;
    std::string names;
    for (const auto& [name, p] : capture.calibrations) {
      names += (names.empty() ? "" : ", ") + name;
      if (name == cal) pose = &p;
    }
    if (pose == nullptr)
      throw InvalidArgument("calibration '" + cal + "': not in the capture (available: none, first, frame:N" +
                            (names.empty() ? std::string() : ", " + names) + ")");
  }
  Retargeting rt = retarget(model, capture.clip, map, pose, frame, ro);
  // Pose-target CSV: each segment drives what it carries.
  for (TargetBinding& b : rt.bindings) {
    const auto s = static_cast<std::size_t>(b.segment);
    b.orientation = capture.has_orientation[s] != 0;
    b.position = capture.has_position[s] != 0 && (b.position || capture.kind == CaptureKind::TargetCsv);
  }
  rt.bindings.erase(std::remove_if(rt.bindings.begin(), rt.bindings.end(),
                                   [](const TargetBinding& b) { return !b.orientation && !b.position; }),
                    rt.bindings.end());
  return rt;
}

TrackSetup setupFromClip(const Capture& capture, io::BvhUnits units, bool with_truth) {
  if (!capture.bvh) throw InvalidArgument("--model from-clip needs a BVH input");
  io::BvhOptions bo;
  bo.units = units;
  TrackSetup s;
  s.model = io::modelFromBvh(*capture.bvh, bo);
  if (with_truth) s.truth = io::bvhConfigurations(s.model, *capture.bvh, bo);
  s.plan = retargetFromClip(s.model, capture.clip);
  return s;
}

TrackSetup setupOnModel(Model model, const Capture& capture, const std::string& map_spec, const PlanOptions& options) {
  TrackSetup s;
  s.model = std::move(model);
  SegmentPairs pairs = resolveSegmentPairs(s.model, capture, map_spec);
  s.skipped = std::move(pairs.skipped);
  s.unmapped = std::move(pairs.unmapped);
  s.plan = planTracking(s.model, capture, pairs.pairs, options);
  return s;
}

std::pair<Capture, TrackSetup> syntheticWalkJob(Model model, double duration, double rate) {
  Capture capture;
  capture.kind = CaptureKind::TargetCsv;
  SyntheticWalk walk = syntheticWalk(model, duration, rate);
  capture.clip = std::move(walk.clip);
  capture.has_position.assign(capture.clip.segment_names.size(), 0);
  capture.has_position[0] = 1;  // the pelvis carries a position target
  capture.has_orientation.assign(capture.clip.segment_names.size(), 1);
  std::vector<SegmentPair> pairs;
  for (const std::string& seg : capture.clip.segment_names) pairs.push_back({seg, seg, Matrix3d::Identity(), 1.0});
  PlanOptions po;
  po.calibration = "none";
  TrackSetup s;
  s.model = std::move(model);
  s.plan = planTracking(s.model, capture, pairs, po);
  s.truth = std::move(walk.truth);
  return {std::move(capture), std::move(s)};
}

TrackRecord runTracking(const Model& model, const Capture& capture, const Retargeting& plan,
                        const TrackerOptions& options, const FrameSink& sink, const std::vector<Configuration>* truth) {
  const io::MotionClip& clip = capture.clip;
  if (truth != nullptr && static_cast<int>(truth->size()) != clip.numFrames())
    throw InvalidArgument("runTracking: ground truth has " + std::to_string(truth->size()) + " frames, the clip " +
                          std::to_string(clip.numFrames()));
  checkBindings(clip, plan.bindings);
  TrackerOptions o = options;
  o.first_frame_interval = meanFrameInterval(clip);
  std::vector<StreamTarget> targets = streamTargets(plan.bindings);
  std::optional<SoleContacts> soles;
  if (plan.soles) {
    soles.emplace(model, *plan.soles);
    for (StreamTarget& t : soles->targets()) targets.push_back(std::move(t));
  }
  StreamTracker tracker(std::make_shared<const Model>(model), std::move(targets), o);
  tracker.setState(plan.initial);
  std::optional<SphericalJointError> meter;
  if (truth != nullptr) meter.emplace(model, clip);
  const std::size_t nb = plan.bindings.size();
  std::vector<Matrix3d> R(static_cast<std::size_t>(tracker.numTargets()), Matrix3d::Identity());
  std::vector<Vector3d> p(static_cast<std::size_t>(tracker.numTargets()), Vector3d::Zero());
  std::vector<std::uint8_t> active(soles ? R.size() : 0, 1);
  TrackRecord record;
  record.reserve(static_cast<std::size_t>(clip.numFrames()));
  for (int f = 0; f < clip.numFrames(); ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool valid =
        clipFrameTargets(clip, plan.bindings, plan.alignment, f, std::span(R).first(nb), std::span(p).first(nb));
    if (soles)
      soles->frame(soles->plannedContacts(f), clip, f, plan.alignment, tracker.solver().data(),
                   std::span(R).subspan(nb), std::span(p).subspan(nb), std::span(active).subspan(nb));
    const FrameOutcome o = tracker.track(clip.times[static_cast<std::size_t>(f)], R, p, valid, active);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    double err2 = 0.0;
    int count = 0;
    if (meter && !o.gap) {
      const Configuration& ft = (*truth)[static_cast<std::size_t>(f)];
      if (ft.joints.allFinite()) err2 = meter->sumSquared(tracker.state(), ft, count);
    }
    record.add(clip.times[static_cast<std::size_t>(f)], o, us, err2, count);
    if (sink) sink(f, tracker.state(), o);
  }
  return record;
}

}  // namespace kinetrack::track
