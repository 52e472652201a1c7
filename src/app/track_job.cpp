#include "kinetrack/app/track_job.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/bvh_writer.hpp"
#include "kinetrack/io/model/collision_geometry.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "kinetrack/track/sole_contacts.hpp"

namespace kinetrack::app {
namespace {

using Clock = std::chrono::steady_clock;

double meanFrameTime(const std::vector<double>& t) {
  return t.size() > 1 ? (t.back() - t.front()) / static_cast<double>(t.size() - 1) : 1.0 / 60.0;
}

io::BvhUnits parseUnits(const std::string& u) {
  try {
    return io::parseBvhUnits(u);
  } catch (const InvalidArgument&) {
    throw InvalidArgument("--units: expected auto, m, cm, in or cmu, got '" + u + "'");
  }
}

void checkTransient(double transient) {
  if (!(transient >= 0.0)) throw InvalidArgument("--transient must be ≥ 0");
}

/// Tracks every frame of `capture` on `model`, writes the files, fills `r`.
void trackAndWrite(const Model& model, const track::Capture& capture, const track::Retargeting& plan,
                   const track::TrackerOptions& options, const TrackFiles& files, double transient,
                   const std::vector<Configuration>* truth, const Reporter& reporter, TrackResult& r) {
  std::optional<io::JointCsvWriter> writer;
  if (!files.joints.empty()) writer.emplace(model, files.joints);
  const int n = capture.clip.numFrames();
  r.q.reserve(static_cast<std::size_t>(n));
  r.record = track::runTracking(
      model, capture, plan, options,
      [&](int f, const Configuration& q, const track::FrameOutcome& o) {
        if (writer) writer->write(capture.clip.times[static_cast<std::size_t>(f)], q, o.gap);
        r.q.push_back(q);
        reporter.report(f + 1, n);
      },
      truth);
  r.summary = track::summarize(r.record, transient, truth != nullptr);
  r.targets = plan.bindings.size();

  // Secondary outputs first, the main CSV last: a failure leaves no complete-looking output.
  if (!files.bvh.empty()) io::writeBvh(model, r.q, meanFrameTime(capture.clip.times), files.bvh);
  if (!files.mot.empty()) io::writeMot(motTable(model, capture.clip.times, r.q), files.mot);
  if (!files.summary_json.empty()) writeTextFile(files.summary_json, summaryJson(r, files.timing));
  if (writer) {
    writer->commit();
    r.rows_written = writer->rows();
  }
}

track::TrackerOptions solverOptions(const std::string& solver, int threads) {
  track::TrackerOptions to;
  setSolver(to, solver, threads);
  return to;
}

nlohmann::json finiteOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

/// The canonical role of every clip segment through the capture's resolved segment map ("" when none).
std::vector<std::string> clipRoles(const track::Capture& capture, const io::SegmentMap& map) {
  std::vector<std::string> roles(capture.clip.segment_names.size());
  for (const io::SegmentMapEntry& e : map.entries) {
    const int s = capture.clip.findSegment(e.clip_segment);
    if (s >= 0) roles[static_cast<std::size_t>(s)] = e.model_frame;
  }
  return roles;
}

std::string joined(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& u : items) list += (list.empty() ? "" : ", ") + u;
  return list;
}

}  // namespace

track::Method parseSolver(const std::string& solver, const std::string& flag) {
  try {
    return track::parseMethod(solver);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(flag + ": expected dynamical, wholebody, wholebody-ipopt or pairwise, got '" + solver + "'");
  }
}

track::Capture loadTrackCapture(const TrackOptions& o) {
  track::CaptureOptions co;
  co.units = parseUnits(o.units);
  co.rate = o.rate;
  return track::loadCapture(o.input, co);
}

track::TrackSetup setupTrack(const TrackOptions& o, const track::Capture& capture, const Reporter& reporter,
                             const Model* loaded) {
  if (o.model.model == "from-clip") {
    if (!capture.bvh) throw InvalidArgument("--model from-clip needs a BVH input");
    return track::setupFromClip(capture, parseUnits(o.units), o.rate <= 0.0);  // re-timed: no truth
  }
  track::PlanOptions po;
  po.calibration = o.calibration;
  return track::setupOnModel(loaded != nullptr ? *loaded : loadModel(o.model, reporter).model, capture, o.map, po);
}

void setSolver(track::TrackerOptions& options, const std::string& solver, int threads) {
  if (threads < 0) throw InvalidArgument("--threads: expected ≥ 0, got " + std::to_string(threads));
  options.method = parseSolver(solver);
  options.pairwise.threads = threads;
}

TrackResult runTrack(const TrackOptions& o, const Reporter& reporter, const Model* loaded,
                     const track::Capture* given) {
  const auto start = Clock::now();
  std::optional<track::Capture> read;
  if (given == nullptr) read = loadTrackCapture(o);
  const track::Capture& capture = given != nullptr ? *given : *read;
  track::TrackSetup setup = setupTrack(o, capture, reporter, loaded);
  track::TrackerOptions to = solverOptions(o.solver, o.threads);
  to.kappa = o.kappa;
  to.max_step_rotation = o.max_step_deg * M_PI / 180.0;
  to.max_substeps = o.max_substeps;
  checkTransient(o.transient);

  TrackResult r;
  r.input = given != nullptr && o.input.empty() ? capture.clip.source : o.input;
  r.skipped = std::move(setup.skipped);
  r.unmapped = std::move(setup.unmapped);
  auto model = std::make_shared<const Model>(std::move(setup.model));
  r.model = model;
  trackAndWrite(*model, capture, setup.plan, to, o.files, o.transient, setup.truth.empty() ? nullptr : &setup.truth,
                reporter, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

RetargetJob prepareRetarget(const RetargetOptions& o, const Reporter& reporter, const Model* given_robot,
                            const track::Capture* given) {
  Model robot = given_robot != nullptr
                    ? *given_robot
                    : loadModel(io::ModelSpec{o.robot, std::nullopt, false, std::nullopt}, reporter).model;
  if (isIcub(robot)) robot = icubForRetargeting(robot, o.shoulder_velocity, o.torso_velocity);
  if (!(std::isfinite(o.contact_weight) && o.contact_weight > 0.0))
    throw InvalidArgument("--contact-weight must be finite and > 0");
  track::checkFootContactOptions(o.contact);
  if (!(std::isfinite(o.motion_rate) && o.motion_rate >= 0.0))
    throw InvalidArgument("--motion-rate must be finite and ≥ 0 (0 = the capture's frames)");
  if (!(std::isfinite(o.root_weight) && o.root_weight > 0.0))
    throw InvalidArgument("--root-weight must be finite and > 0");
  if (!(std::isfinite(o.collision_margin) && o.collision_margin >= 0.0))
    throw InvalidArgument("--collision-margin must be finite and ≥ 0");
  checkTransient(o.transient);
  RetargetJob job;
  job.capture = given != nullptr ? std::shared_ptr<const track::Capture>(given, [](const track::Capture*) {})
                                 : std::make_shared<const track::Capture>(track::loadCapture(o.input));
  const track::Capture& capture = *job.capture;
  job.pairs = track::resolveRobotPairs(robot, capture, o.segment_map, o.map);
  const track::SegmentPairs& pairs = job.pairs;
  // Robot maps (docs/segment_maps.md): a map kinetrack chose is shown for review (the iCub's, the
  // default all along, as before: not shown); --save-map writes the map used.
  if (!o.save_map.empty()) io::writeSegmentMap(pairs.robot_map, o.save_map);
  if (!o.save_map.empty() || o.map == "auto" || (o.map.empty() && pairs.robot_map.name != "icub"))
    reporter.say(track::robotMapText(pairs.robot_map));
  track::PlanOptions po;
  po.calibration = o.calibration;
  po.stand_on_ground = true;
  po.surface = track::surfacePoints(robot);
  po.root_position_weight = o.root_weight;
  // OpenSim models live in a Y-up world (Model::up: against their gravity); URDF and MJCF ones Z up.
  po.model_up = robot.up();
  // The robot's soles: frames at the bottom of its feet, held while the person's feet are down.
  track::Soles soles = track::addSoleFrames(robot, pairs.pairs, po.surface);
  robot = std::move(soles.model);
  job.plan = track::planTracking(robot, capture, pairs.pairs, po);
  std::vector<track::FootPoints> feet = track::canonicalFeet(clipRoles(capture, pairs.clip_map), soles.feet);
  job.contacts = track::detectFootContacts(capture.clip, feet, o.contact);
  if (o.contacts && !job.contacts.feet.empty()) {
    track::SoleContactPlan sp;
    for (const std::string& foot : job.contacts.feet) {
      const auto k =
          static_cast<std::size_t>(std::find(soles.feet.begin(), soles.feet.end(), foot) - soles.feet.begin());
      sp.frames.push_back(soles.frames[k]);
      const auto pair = std::find_if(pairs.pairs.begin(), pairs.pairs.end(),
                                     [&](const track::SegmentPair& p) { return p.role == foot; });
      sp.foot_frames.push_back(pair->model_frame);
      sp.segments.push_back(capture.clip.findSegment(pair->clip_segment));
    }
    sp.contacts = job.contacts;
    sp.feet = std::move(feet);
    sp.detector = o.contact;
    sp.up = po.model_up;
    sp.weight = o.contact_weight;
    job.plan.soles = std::move(sp);
    track::levelFootOffsets(robot, capture.clip, job.plan);
  }
  track::TrackerOptions& to = job.tracker;
  to = solverOptions(o.solver, o.threads);
  to.max_step_rotation = o.max_step_deg * M_PI / 180.0;
  to.dynamical.use_model_velocity_limits = true;  // the robot's (real) velocity limits are hard bounds
  std::vector<std::string> geometry_warnings;
  job.proxies = io::collisionProxies(robot, &geometry_warnings);
  if (o.collisions)
    for (const std::string& w : geometry_warnings) reporter.warn(w);
  if (o.collisions && !job.proxies.empty()) {
    to.dynamical.collision.ground.enabled = true;
    to.dynamical.collision.ground.height = 0.0;
    to.dynamical.collision.ground.up = po.model_up;
    to.dynamical.collision.self.enabled = true;
    to.dynamical.collision.self.margin = o.collision_margin;
    // Pairs that overlap in the zero pose (one bounding capsule per mesh: the G1's upper arms in
    // its torso's) are held at that overlap rather than skipped.
    to.dynamical.collision.self.hold_reference_overlaps = true;
    to.collision_proxies = job.proxies;
  }
  job.surface = std::move(po.surface);
  job.model = std::make_shared<const Model>(std::move(robot));
  for (std::size_t k = 0; k < soles.feet.size(); ++k)
    job.soles.push_back({soles.feet[k], job.model->frameId(soles.frames[k])});
  return job;
}

TrackResult runRetarget(const RetargetOptions& o, const Reporter& reporter, const Model* given_robot,
                        const track::Capture* given) {
  const auto start = Clock::now();
  const track::QuaternionOrder order = track::parseQuaternionOrder(o.quaternion_order);
  RetargetJob job = prepareRetarget(o, reporter, given_robot, given);
  const track::Capture& capture = *job.capture;
  TrackResult r;
  r.input = given != nullptr && o.input.empty() ? capture.clip.source : o.input;
  r.skipped = job.pairs.skipped;
  r.unmapped = job.pairs.unmapped;
  r.model = job.model;
  const Model& model = *job.model;
  trackAndWrite(model, capture, job.plan, job.tracker, o.files, o.transient, nullptr, reporter, r);
  track::RetargetQualityOptions qo;
  qo.surface = job.surface;
  qo.proxies = job.proxies;
  if (job.tracker.dynamical.collision.self.enabled) qo.self_collision = job.tracker.dynamical.collision.self;
  qo.soles = job.soles;
  r.quality = track::assessRetargeting(model, capture.clip, job.pairs.pairs, r.q, job.contacts, r.record.mnte, qo);
  r.contacts = std::move(job.contacts);
  r.motion = track::robotMotion(model, capture.clip.times, r.q, r.record.gap, o.motion_rate, order);
  if (!o.motion_out.empty()) track::writeRobotMotion(*r.motion, o.motion_out);
  if (!o.quality_csv.empty())
    writeTextFile(o.quality_csv, track::qualityCsv(*r.quality, capture.clip.times, *r.contacts));
  if (!o.quality_json.empty()) writeTextFile(o.quality_json, track::qualityJson(*r.quality));
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

DemoResult runDemo(const DemoOptions& o, const Reporter& reporter) {
  const auto start = Clock::now();
  auto model = std::make_shared<const Model>(makeBuiltinModel(o.model, o.height, o.mass));
  checkTransient(o.transient);
  reporter.say(
      fmt::format("kinetrack demo: a synthetic {:.0f} s walk at {:.0f} Hz (23 segment poses, no files) tracked on {} "
                  "({} DoF, body height {:.2f} m) from its zero pose\n\n",
                  o.duration, o.rate, model->name(), model->numJoints(), o.height));
  // Named members rather than a structured binding: clang 14 cannot capture bindings in a lambda.
  const auto job = track::syntheticWalkJob(*model, o.duration, o.rate);
  const track::Capture& capture = job.first;
  const track::TrackSetup& setup = job.second;
  DemoResult d;
  TrackResult& r = d.track;
  r.model = model;
  r.input = capture.clip.source;
  TrackFiles files;
  files.joints = o.out;
  trackAndWrite(*model, capture, setup.plan, track::TrackerOptions{}, files, o.transient, &setup.truth, reporter, r);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const track::TrackSummary& s = r.summary;
  d.check_ok = s.gaps == 0 && s.non_finite == 0 && s.joint_rms_deg < 0.1 && s.mnte_p95 < 1e-4;
  return d;
}

std::string DemoResult::checkLine() const {
  return fmt::format("check: joint RMS < 0.1 deg, MNTE p95 < 1e-4, no gaps: {}\n", check_ok ? "OK" : "FAILED");
}

std::string summaryJson(const TrackResult& r, bool timing) {
  const track::TrackSummary& s = r.summary;
  nlohmann::json j;
  j["input"] = r.input;
  j["model"] = r.model->name();
  j["dof"] = r.model->numJoints();
  j["targets"] = r.targets;
  j["frames"] = s.frames;
  j["gaps"] = s.gaps;
  j["transient_s"] = s.transient_s;
  j["frames_after_transient"] = s.frames_after_transient;
  j["mnte_median"] = finiteOrNull(s.mnte_median);
  j["mnte_p95"] = finiteOrNull(s.mnte_p95);
  j["mnte_max"] = finiteOrNull(s.mnte_max);
  j["rmse_median"] = finiteOrNull(s.rmse_median);
  j["joint_rms_deg"] = s.has_truth ? finiteOrNull(s.joint_rms_deg) : nlohmann::json(nullptr);
  j["limit_violation_max_rad"] = s.limit_violation_max_rad;
  j["row_violation_max"] = s.row_violation_max;
  if (timing) {
    j["step_us_p50"] = s.step_us_p50;
    j["step_us_p99"] = s.step_us_p99;
    j["step_us_max"] = s.step_us_max;
  }
  j["substeps_mean"] = s.substeps_mean;
  j["non_finite_steps"] = s.non_finite;
  if (s.solvedFrames() > 0)
    j["solve_status"] = {{"converged", s.converged},
                         {"stationary", s.stationary},
                         {"iteration_limit", s.iteration_limit},
                         {"infeasible", s.infeasible},
                         {"failed", s.failed}};
  j["map_entries_skipped"] = r.skipped;
  j["clip_segments_unmapped"] = r.unmapped;
  return j.dump(2) + '\n';
}

std::string summaryText(const TrackResult& r) {
  const track::TrackSummary& s = r.summary;
  const Model& model = *r.model;
  std::string t =
      fmt::format("tracked {} on {} ({} DoF, {} targets)\n", r.input, model.name(), model.numJoints(), r.targets);
  if (!r.unmapped.empty())
    t += fmt::format("  clip segments not mapped ({}): {}\n", r.unmapped.size(), joined(r.unmapped));
  if (!r.skipped.empty())
    t += fmt::format("  map entries without a model frame ({}): {}\n", r.skipped.size(), joined(r.skipped));
  t += fmt::format("  {:<28} {}\n", "frames", s.frames);
  t += fmt::format("  {:<28} {}\n", "gaps (state held)", s.gaps);
  t += fmt::format("  {:<28} {:.1f} s ({} frames after it)\n", "transient excluded", s.transient_s,
                   s.frames_after_transient);
  t += fmt::format("  {:<28} {:.2e} / {:.2e} / {:.2e}\n", "MNTE median / p95 / max", s.mnte_median, s.mnte_p95,
                   s.mnte_max);
  t += fmt::format("  {:<28} {:.3e} rad/s\n", "ang. velocity RMSE median", s.rmse_median);
  if (s.has_truth) t += fmt::format("  {:<28} {:.4f} deg\n", "joint RMS vs clip angles", s.joint_rms_deg);
  t += fmt::format("  {:<28} {:.2e} rad\n", "max joint-limit violation", s.limit_violation_max_rad);
  if (!model.linearConstraints().empty())
    t += fmt::format("  {:<28} {:.2e}\n", "max coupled-row violation", s.row_violation_max);
  t += fmt::format("  {:<28} {:.1f} / {:.1f} / {:.1f} us ({:.2f} solver steps per frame)\n",
                   "time per frame p50/p99/max", s.step_us_p50, s.step_us_p99, s.step_us_max, s.substeps_mean);
  if (s.solvedFrames() > 0)
    t += fmt::format(
        "  {:<28} {} converged, {} stationary (out of reach), {} iteration limit, {} infeasible, {} failed\n",
        "per-frame solves", s.converged, s.stationary, s.iteration_limit, s.infeasible, s.failed);
  if (s.non_finite > 0)
    t += fmt::format("  WARNING: {} frames produced a non-finite step (state held)\n", s.non_finite);
  if (r.quality) t += track::qualityText(*r.quality);
  t += fmt::format("  {:<28} {:.2f} s ({:.0f} frames/s including I/O)\n", "wall time", r.seconds,
                   r.seconds > 0 ? s.frames / r.seconds : 0.0);
  return t;
}

void writeJointLimitsCsv(const Model& m, const std::string& path) {
  std::ostringstream out;
  out << "joint,lower,upper,velocity\n";
  for (int j = 0; j < m.numJoints(); ++j)
    out << m.jointName(JointId(j)) << ',' << m.lowerPositionLimits()[j] << ',' << m.upperPositionLimits()[j] << ','
        << m.upperVelocityLimits()[j] << '\n';
  writeTextFile(path, out.str());
}

std::string wroteLine(const TrackResult& r, const TrackFiles& files) {
  std::string t = fmt::format("wrote {} ({} rows)", files.joints, r.rows_written);
  for (const std::string* f : {&files.summary_json, &files.bvh, &files.mot})
    if (!f->empty()) t += fmt::format(", {}", *f);
  return t + "\n";
}

io::MotTable motTable(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q) {
  io::MotTable t;
  t.in_degrees = true;
  const bool floating = model.nvBase() > 0;
  if (floating) t.columns = {"base_tx", "base_ty", "base_tz", "base_roll", "base_pitch", "base_yaw"};
  for (int j = 0; j < model.numJoints(); ++j) t.columns.push_back(model.jointName(JointId(j)));
  t.times = times;
  t.values.resize(static_cast<Eigen::Index>(q.size()), static_cast<Eigen::Index>(t.columns.size()));
  const double deg = 180.0 / M_PI;
  for (std::size_t f = 0; f < q.size(); ++f) {
    Eigen::Index c = 0;
    const auto row = static_cast<Eigen::Index>(f);
    if (floating) {
      const Vector3d rpy = so3::toRpy(q[f].base_rotation);
      for (int k = 0; k < 3; ++k) t.values(row, c++) = q[f].base_position[k];
      for (int k = 0; k < 3; ++k) t.values(row, c++) = rpy[k] * deg;
    }
    for (int j = 0; j < model.numJoints(); ++j)
      t.values(row, c++) = q[f].joints[j] * (model.jointType(JointId(j)) == JointType::Prismatic ? 1.0 : deg);
  }
  return t;
}

}  // namespace kinetrack::app
