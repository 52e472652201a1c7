#include "kinetrack/track/retarget_quality.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <optional>
#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/collision.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::track {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kDeg = 180.0 / M_PI;

constexpr std::array<const char*, 6> kRoles = {"UpperArm", "ForeArm", "Hand", "UpperLeg", "LowerLeg", "Foot"};
constexpr std::array<const char*, 2> kSides = {"Left", "Right"};

int key(int side, int point) { return static_cast<int>(keypointIndex(side, static_cast<KeypointJoint>(point))); }

double angleBetween(const Vector3d& a, const Vector3d& b) {
  const double na = a.norm(), nb = b.norm();
  if (!(na > 1e-9 && nb > 1e-9)) return kNaN;
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

/// Order statistics of the finite values (metrics::summarize); count 0 when none.
metrics::Summary finiteSummary(const std::vector<double>& values) {
  std::vector<double> v;
  v.reserve(values.size());
  for (const double x : values)
    if (std::isfinite(x)) v.push_back(x);
  return metrics::summarize(std::move(v));
}

const std::string& roleOf(const SegmentPair& p) { return p.role.empty() ? p.model_frame : p.role; }

nlohmann::json finiteOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

const char* toString(PoseAngle a) {
  switch (a) {
    case PoseAngle::LeftElbow: return "left_elbow";
    case PoseAngle::RightElbow: return "right_elbow";
    case PoseAngle::LeftKnee: return "left_knee";
    case PoseAngle::RightKnee: return "right_knee";
    case PoseAngle::LeftShoulderTrunk: return "left_shoulder_trunk";
    case PoseAngle::RightShoulderTrunk: return "right_shoulder_trunk";
    case PoseAngle::LeftHipTrunk: return "left_hip_trunk";
    case PoseAngle::RightHipTrunk: return "right_hip_trunk";
  }
  return "?";
}

PoseAngles poseAngles(const Keypoints& k) {
  PoseAngles out;
  out.fill(kNaN);
  auto has = [&](int i) { return k.valid[static_cast<std::size_t>(i)]; };
  auto at = [&](int i) -> const Vector3d& { return k.p[static_cast<std::size_t>(i)]; };
  const bool trunk = has(key(0, kShoulder)) && has(key(1, kShoulder)) && has(key(0, kHip)) && has(key(1, kHip));
  Vector3d down = Vector3d::Zero();
  if (trunk) down = 0.5 * (at(key(0, kHip)) + at(key(1, kHip))) - 0.5 * (at(key(0, kShoulder)) + at(key(1, kShoulder)));
  for (int side = 0; side < 2; ++side) {
    const int sh = key(side, kShoulder), el = key(side, kElbow), wr = key(side, kWrist);
    const int hp = key(side, kHip), kn = key(side, kKnee), an = key(side, kAnkle);
    if (has(sh) && has(el) && has(wr))
      out[static_cast<std::size_t>(0 + side)] = angleBetween(at(el) - at(sh), at(wr) - at(el));
    if (has(hp) && has(kn) && has(an))
      out[static_cast<std::size_t>(2 + side)] = angleBetween(at(kn) - at(hp), at(an) - at(kn));
    if (trunk && has(el)) out[static_cast<std::size_t>(4 + side)] = angleBetween(at(el) - at(sh), down);
    if (trunk && has(kn)) out[static_cast<std::size_t>(6 + side)] = angleBetween(at(kn) - at(hp), down);
  }
  return out;
}

PoseAgreement::PoseAgreement(const Model& robot, const io::MotionClip& clip, const std::vector<SegmentPair>& pairs) {
  segment_.fill(-1);
  frame_.fill(-1);
  const SegmentPair* trunk = nullptr;
  for (const SegmentPair& p : pairs)
    if (roleOf(p) == "T8") trunk = &p;
  // The links from the root to the trunk link: a limb chain starts below one of them.
  std::vector<char> on_trunk(static_cast<std::size_t>(robot.numLinks()), 0);
  {
    LinkId l = trunk != nullptr ? robot.frameLink(robot.frameId(trunk->model_frame)) : LinkId(0);
    for (; l.valid(); l = robot.parent(l)) on_trunk[static_cast<std::size_t>(l.value)] = 1;
  }
  for (int side = 0; side < 2; ++side)
    for (int point = 0; point < 6; ++point) {
      const std::string role =
          std::string(kSides[static_cast<std::size_t>(side)]) + kRoles[static_cast<std::size_t>(point)];
      const SegmentPair* pair = nullptr;
      for (const SegmentPair& p : pairs)
        if (roleOf(p) == role) pair = &p;
      if (pair == nullptr) {
        missing_.push_back(role);
        continue;
      }
      const auto k = static_cast<std::size_t>(key(side, point));
      segment_[k] = clip.findSegment(pair->clip_segment);
      const FrameId f = robot.frameId(pair->model_frame);
      if (point == kShoulder || point == kHip) {
        // The first link of the limb: walk up while the parent is not on the trunk.
        LinkId l = robot.frameLink(f);
        while (robot.parent(l).valid() && on_trunk[static_cast<std::size_t>(robot.parent(l).value)] == 0)
          l = robot.parent(l);
        frame_[k] = robot.linkFrame(l).value;
      } else {
        frame_[k] = f.value;
      }
    }
}

Keypoints PoseAgreement::person(const io::MotionClip& clip, int f) const {
  Keypoints k;
  for (std::size_t i = 0; i < segment_.size(); ++i) {
    const int s = segment_[i];
    k.valid[i] = s >= 0 && clip.isValid(f, s);
    if (k.valid[i]) k.p[i] = clip.pose(f, s).p;
  }
  return k;
}

Keypoints PoseAgreement::robot(const Data& data) const {
  Keypoints k;
  for (std::size_t i = 0; i < frame_.size(); ++i) {
    k.valid[i] = frame_[i] >= 0;
    if (k.valid[i]) k.p[i] = data.frame[static_cast<std::size_t>(frame_[i])].p;
  }
  return k;
}

RetargetQuality assessRetargeting(const Model& robot, const io::MotionClip& clip, const std::vector<SegmentPair>& pairs,
                                  const std::vector<Configuration>& q, const FootContacts& contacts,
                                  const std::vector<double>& mnte, const RetargetQualityOptions& o) {
  const int n = clip.numFrames();
  if (static_cast<int>(q.size()) != n)
    throw InvalidArgument(fmt::format("retarget quality: {} configurations for a clip of {} frames", q.size(), n));
  if (contacts.frames != n)
    throw InvalidArgument(
        fmt::format("retarget quality: contacts of {} frames for a clip of {} frames", contacts.frames, n));
  RetargetQuality r;
  r.frames = n;
  r.feet = contacts.feet;
  for (int k = 0; k < static_cast<int>(contacts.feet.size()); ++k) r.contact_frames.push_back(contacts.count(k));

  // Soles: given, else the origin of each foot role's frame.
  std::vector<Sole> soles = o.soles;
  if (soles.empty())
    for (const std::string& foot : contacts.feet)
      for (const SegmentPair& p : pairs)
        if (roleOf(p) == foot) soles.push_back({foot, robot.frameId(p.model_frame)});
  std::vector<int> sole_foot(soles.size(), -1);
  for (std::size_t s = 0; s < soles.size(); ++s)
    for (std::size_t k = 0; k < contacts.feet.size(); ++k)
      if (contacts.feet[k] == soles[s].foot) sole_foot[s] = static_cast<int>(k);
  for (const std::string& foot : contacts.feet)
    if (std::none_of(soles.begin(), soles.end(), [&](const Sole& s) { return s.foot == foot; }))
      r.notes.push_back("foot slide: no robot sole for " + foot);
  if (contacts.feet.empty()) r.notes.push_back("foot slide: the capture has no feet mapped to the robot");

  if (o.surface.empty()) r.notes.push_back("lowest point: link origins (the model has no collision geometry)");
  const Vector3d& up = robot.up();

  const PoseAgreement agreement(robot, clip, pairs);
  for (const std::string& m : agreement.missing()) r.notes.push_back("pose agreement: no " + m + " in the maps");

  Data data(robot);
  std::vector<Vector3d> sole_prev(soles.size());
  r.slide_mm.assign(static_cast<std::size_t>(n), kNaN);
  r.lowest_mm.assign(static_cast<std::size_t>(n), kNaN);
  r.angle_error_deg.resize(static_cast<std::size_t>(n));
  const ik::JointLimits limits(robot);
  std::optional<ik::CollisionLimits> collisions;
  if (!o.proxies.empty()) {
    ik::CollisionOptions co;
    co.self = o.self_collision;
    co.self.enabled = true;
    collisions.emplace(robot, o.proxies, co);
    r.penetration_mm = 0.0;
    const auto& skipped = collisions->overlappingAtReference();
    if (!skipped.empty()) {
      std::string names;
      for (std::size_t k = 0; k < skipped.size() && k < 4; ++k)
        names += fmt::format("{}{} – {} ({:.1f} mm)", k > 0 ? ", " : "",
                             o.proxies[static_cast<std::size_t>(skipped[k].first.a)].name,
                             o.proxies[static_cast<std::size_t>(skipped[k].first.b)].name, 1e3 * skipped[k].second);
      if (skipped.size() > 4) names += ", …";
      if (co.self.hold_reference_overlaps)
        r.notes.push_back(fmt::format(
            "self-penetration: {} pairs closer than {:.1f} mm at the reference pose (touching by design there) "
            "count from their distance there less {:.1f} mm: {}",
            skipped.size(), 1e3 * (co.self.margin + co.self.reference_clearance), 1e3 * co.self.reference_slack,
            names));
      else
        r.notes.push_back(fmt::format(
            "self-penetration: {} pairs closer than {:.1f} mm at the reference pose are not checked (touching by "
            "design there): {}",
            skipped.size(), 1e3 * (co.self.margin + co.self.reference_clearance), names));
    }
  }
  for (int f = 0; f < n; ++f) {
    const auto uf = static_cast<std::size_t>(f);
    framesForwardKinematics(robot, data, q[uf]);
    r.lowest_mm[uf] = 1e3 * (lowestSurfaceHeight(robot, data, o.surface, up) - o.ground_height);
    for (std::size_t s = 0; s < soles.size(); ++s) {
      const Transform& X = data.frame[static_cast<std::size_t>(soles[s].frame.value)];
      const Vector3d& p = X.p;
      const int k = sole_foot[s];
      if (f > 0 && k >= 0 && contacts.inContact(f, k) && contacts.inContact(f - 1, k)) {
        const Vector3d d = p - sole_prev[s];
        const double slide = 1e3 * (d - up.dot(d) * up).norm();
        r.slide_mm[uf] = std::isfinite(r.slide_mm[uf]) ? std::max(r.slide_mm[uf], slide) : slide;
      }
      sole_prev[s] = p;
    }
    const PoseAngles a = poseAngles(agreement.robot(data));
    const PoseAngles b = poseAngles(agreement.person(clip, f));
    for (int i = 0; i < kPoseAngles; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      r.angle_error_deg[uf][ui] = kDeg * std::abs(a[ui] - b[ui]);
    }
    r.limit_excess = std::max(r.limit_excess, limits.violation(q[uf].joints));
    if (collisions) {
      collisions->update(data);
      r.penetration_mm = std::max(r.penetration_mm, 1e3 * collisions->violation().penetration);
    }
  }

  // Joint velocity excess and jerk from differences of the joint values.
  const int nj = robot.numJoints();
  double jerk2 = 0.0;
  long jerk_count = 0;
  for (int f = 1; f < n; ++f) {
    const double dt = clip.times[static_cast<std::size_t>(f)] - clip.times[static_cast<std::size_t>(f - 1)];
    const VectorXd v = (q[static_cast<std::size_t>(f)].joints - q[static_cast<std::size_t>(f - 1)].joints) / dt;
    for (int j = 0; j < nj; ++j)
      r.velocity_limit_excess = std::max(r.velocity_limit_excess, std::abs(v[j]) - limits.velocity()[j]);
    if (f >= 3) {
      const VectorXd d3 = q[static_cast<std::size_t>(f)].joints - 3.0 * q[static_cast<std::size_t>(f - 1)].joints +
                          3.0 * q[static_cast<std::size_t>(f - 2)].joints - q[static_cast<std::size_t>(f - 3)].joints;
      jerk2 += (d3 / (dt * dt * dt)).squaredNorm();
      jerk_count += nj;
    }
  }
  r.velocity_limit_excess = std::max(0.0, r.velocity_limit_excess);
  r.jerk_rms = jerk_count > 0 ? std::sqrt(jerk2 / static_cast<double>(jerk_count)) : 0.0;

  const metrics::Summary slides = finiteSummary(r.slide_mm);
  r.slide_samples = static_cast<int>(slides.count);
  if (slides.count > 0) r.slide_mean_mm = slides.mean, r.slide_p95_mm = slides.p95, r.slide_max_mm = slides.max;
  for (const double l : r.lowest_mm) r.below_ground_mm = std::max(r.below_ground_mm, -l);
  if (!mnte.empty()) {
    const metrics::Summary m = finiteSummary(mnte);
    r.mnte_median = m.median, r.mnte_p95 = m.p95;
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(kPoseAngles); ++i) {
    std::vector<double> e;
    e.reserve(static_cast<std::size_t>(n));
    for (const PoseAngles& a : r.angle_error_deg) e.push_back(a[i]);
    const metrics::Summary s = finiteSummary(e);
    r.pose_median_deg[i] = s.count > 0 ? s.median : kNaN;
    r.pose_p95_deg[i] = s.count > 0 ? s.p95 : kNaN;
  }
  return r;
}

std::string qualityJson(const RetargetQuality& r) {
  nlohmann::ordered_json j;
  j["frames"] = r.frames;
  nlohmann::ordered_json contacts = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < r.feet.size(); ++k) contacts[r.feet[k]] = r.contact_frames[k];
  j["contact_frames"] = contacts;
  j["foot_slide_mm"] = {{"samples", r.slide_samples},
                        {"mean", r.slide_mean_mm},
                        {"p95", finiteOrNull(r.slide_p95_mm)},
                        {"max", r.slide_max_mm}};
  j["below_ground_mm"] = r.below_ground_mm;
  j["self_penetration_mm"] = finiteOrNull(r.penetration_mm);
  j["limit_excess"] = r.limit_excess;
  j["velocity_limit_excess"] = r.velocity_limit_excess;
  j["jerk_rms"] = r.jerk_rms;
  j["mnte"] = {{"median", r.mnte_median}, {"p95", r.mnte_p95}};
  nlohmann::ordered_json pose = nlohmann::ordered_json::object();
  for (int i = 0; i < kPoseAngles; ++i)
    pose[toString(static_cast<PoseAngle>(i))] = {
        {"median", finiteOrNull(r.pose_median_deg[static_cast<std::size_t>(i)])},
        {"p95", finiteOrNull(r.pose_p95_deg[static_cast<std::size_t>(i)])}};
  j["pose_agreement_deg"] = pose;
  j["notes"] = r.notes;
  return j.dump(2) + "\n";
}

std::string qualityText(const RetargetQuality& r) {
  auto row = [](const char* label, const std::string& value) { return fmt::format("  {:<28} {}\n", label, value); };
  auto deg = [](double v) { return std::isfinite(v) ? fmt::format("{:.1f}", v) : std::string("-"); };
  std::string contacts;
  for (std::size_t k = 0; k < r.feet.size(); ++k)
    contacts += fmt::format("{}{} {}", k ? ", " : "", r.feet[k], r.contact_frames[k]);
  std::string t = row("person's feet down (frames)", contacts.empty() ? "no feet mapped" : contacts);
  t += row("sole slide mean / p95 / max", fmt::format("{:.2f} / {:.2f} / {:.2f} mm ({} frames)", r.slide_mean_mm,
                                                      r.slide_p95_mm, r.slide_max_mm, r.slide_samples));
  t += row("deepest point below ground", fmt::format("{:.1f} mm", r.below_ground_mm));
  t += row("self-penetration (capsules)",
           std::isfinite(r.penetration_mm) ? fmt::format("{:.1f} mm", r.penetration_mm) : "not measured");
  t +=
      row("limit / velocity excess", fmt::format("{:.2e} rad / {:.2e} rad/s", r.limit_excess, r.velocity_limit_excess));
  t += row("joint jerk RMS", fmt::format("{:.0f} rad/s^3", r.jerk_rms));
  static const char* pairs[4] = {"elbow", "knee", "shoulder-trunk", "hip-trunk"};
  for (int i = 0; i < 4; ++i) {
    const auto l = static_cast<std::size_t>(2 * i), rr = l + 1;
    t += row(fmt::format("pose {} L/R median, p95", pairs[i]).c_str(),
             fmt::format("{} / {} deg, {} / {} deg", deg(r.pose_median_deg[l]), deg(r.pose_median_deg[rr]),
                         deg(r.pose_p95_deg[l]), deg(r.pose_p95_deg[rr])));
  }
  for (const std::string& n : r.notes) t += "  note: " + n + "\n";
  return t;
}

std::string qualityCsv(const RetargetQuality& r, const std::vector<double>& times, const FootContacts& contacts) {
  std::ostringstream out;
  out << "time,slide_mm,lowest_mm";
  for (const std::string& f : contacts.feet) out << ",contact_" << f;
  for (int i = 0; i < kPoseAngles; ++i) out << ",err_" << toString(static_cast<PoseAngle>(i)) << "_deg";
  out << '\n';
  auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  for (int f = 0; f < r.frames; ++f) {
    const auto uf = static_cast<std::size_t>(f);
    out << fmt::format("{:.6g}", times[uf]) << ',' << num(r.slide_mm[uf]) << ',' << num(r.lowest_mm[uf]);
    for (std::size_t k = 0; k < contacts.feet.size(); ++k)
      out << ',' << (contacts.inContact(f, static_cast<int>(k)) ? 1 : 0);
    for (const double e : r.angle_error_deg[uf]) out << ',' << num(e);
    out << '\n';
  }
  return out.str();
}

}  // namespace kinetrack::track
