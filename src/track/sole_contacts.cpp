#include "kinetrack/track/sole_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/retarget.hpp"

namespace kinetrack::track {

Soles addSoleFrames(const Model& robot, const std::vector<SegmentPair>& pairs,
                    const std::vector<SurfacePoint>& surface) {
  Data data(robot);
  framesForwardKinematics(robot, data, Configuration(robot));
  const Vector3d& up = robot.up();
  ModelBuilder builder(robot);
  Soles out;
  for (const char* foot : {"LeftFoot", "RightFoot"}) {
    const auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const SegmentPair& p) {
      return (p.role.empty() ? p.model_frame : p.role) == foot;
    });
    if (pair == pairs.end()) continue;
    const FrameId f = robot.frameId(pair->model_frame);
    const LinkId link = robot.frameLink(f);
    const Transform& X = data.link[static_cast<std::size_t>(link.value)];
    // The lowest points of the link's surface at the zero configuration.
    double low = std::numeric_limits<double>::infinity();
    for (const SurfacePoint& s : surface)
      if (s.link == link) low = std::min(low, up.dot(X.R * s.point + X.p) - s.radius);
    Vector3d centre = Vector3d::Zero();
    int count = 0;
    for (const SurfacePoint& s : surface) {
      if (s.link != link) continue;
      const Vector3d w = X.R * s.point + X.p - s.radius * up;
      if (up.dot(w) <= low + 0.005) centre += w, ++count;
    }
    Transform placement;  // in the link frame; level (the world's axes) at the zero configuration
    placement.p = count > 0 ? Vector3d(X.R.transpose() * (centre / count - X.p)) : robot.framePlacement(f).p;
    placement.R = X.R.transpose();
    std::string name = pair->model_frame + "_sole";
    while (builder.hasName(name)) name += "_";
    builder.addFrame(name, robot.linkName(link), placement);
    out.feet.emplace_back(foot);
    out.frames.push_back(name);
  }
  out.model = builder.build();
  return out;
}

void levelFootOffsets(const Model& model, const io::MotionClip& clip, Retargeting& plan) {
  if (!plan.soles) return;
  const SoleContactPlan& sp = *plan.soles;
  Data data(model);
  framesForwardKinematics(model, data, Configuration(model));
  const Matrix3d& W = plan.alignment.rotation;
  for (std::size_t k = 0; k < sp.foot_frames.size(); ++k) {
    const FrameId frame = model.frameId(sp.foot_frames[k]);
    const auto binding = std::find_if(plan.bindings.begin(), plan.bindings.end(),
                                      [&](const TargetBinding& b) { return b.frame == sp.foot_frames[k]; });
    if (binding == plan.bindings.end() || !binding->orientation) continue;
    // The sole's z axis in the foot frame: soles are level (the world's axes) at the zero pose.
    const Vector3d z_local = data.frame[static_cast<std::size_t>(frame.value)].R.transpose() * sp.up;
    std::vector<std::pair<double, int>> tilt;
    for (int f = 0; f < clip.numFrames() && f < sp.contacts.frames; ++f) {
      if (!sp.contacts.inContact(f, static_cast<int>(k)) || !clip.isValid(f, binding->segment)) continue;
      const Matrix3d T = W * clip.pose(f, binding->segment).R * binding->offset;
      tilt.emplace_back(std::acos(std::clamp((T * z_local).dot(sp.up), -1.0, 1.0)), f);
    }
    if (tilt.empty()) continue;
    const auto mid = tilt.begin() + static_cast<std::ptrdiff_t>(tilt.size() / 2);
    std::nth_element(tilt.begin(), mid, tilt.end());
    const Matrix3d person = W * clip.pose(mid->second, binding->segment).R;
    const Matrix3d T = person * binding->offset;
    binding->offset = person.transpose() * rotationBetween(T * z_local, sp.up) * T;
  }
}

SoleContacts::SoleContacts(const Model& model, const SoleContactPlan& plan) : plan_(plan) {
  if (plan.frames.size() != plan.contacts.feet.size())
    throw InvalidArgument("sole contacts: " + std::to_string(plan.frames.size()) + " sole frames for " +
                          std::to_string(plan.contacts.feet.size()) + " feet");
  if (!(std::isfinite(plan.weight) && plan.weight > 0.0))
    throw InvalidArgument("sole contacts: the weight must be finite and > 0");
  if (plan.foot_frames.size() != plan.frames.size() || plan.segments.size() != plan.frames.size())
    throw InvalidArgument("sole contacts: one foot frame and one clip segment per sole");
  // Placements are read from the links (a solver refreshes only the frames of enabled targets).
  for (std::size_t k = 0; k < plan.frames.size(); ++k) {
    const FrameId sole = model.frameId(plan.frames[k]), foot = model.frameId(plan.foot_frames[k]);
    if (model.frameLink(sole) != model.frameLink(foot))
      throw InvalidArgument("sole contacts: sole frame '" + plan.frames[k] + "' is not on the link of '" +
                            plan.foot_frames[k] + "'");
    links_.push_back(model.frameLink(sole));
    // The sole's offset from the foot frame's origin, in the link frame.
    offset_.push_back(model.framePlacement(sole).p - model.framePlacement(foot).p);
    rotation_.push_back(model.framePlacement(sole).R);
  }
  anchor_.assign(links_.size(), Vector3d::Zero());
  held_.assign(links_.size(), 0);
  none_.assign(links_.size(), 0);
}

std::span<const std::uint8_t> SoleContacts::plannedContacts(int f) const {
  if (f < 0 || f >= plan_.contacts.frames) return none_;
  return std::span(plan_.contacts.contact).subspan(static_cast<std::size_t>(f) * links_.size(), links_.size());
}

std::vector<StreamTarget> SoleContacts::targets() const {
  std::vector<StreamTarget> t;
  for (const std::string& f : plan_.frames) t.push_back({f, true, true, plan_.weight});
  return t;
}

void SoleContacts::frame(std::span<const std::uint8_t> contacts, const io::MotionClip& clip, int f,
                         const ClipAlignment& alignment, const Data& data, std::span<Matrix3d> R, std::span<Vector3d> p,
                         std::span<std::uint8_t> active) {
  const Vector3d& up = plan_.up;
  for (std::size_t k = 0; k < links_.size(); ++k) {
    const int seg = plan_.segments[k];
    bool down = k < contacts.size() && contacts[k] != 0;
    if (down && held_[k] == 0) {
      if (seg >= 0 && seg < clip.numSegments() && clip.isValid(f, seg)) {
        const Vector3d person = alignment.scale * (alignment.rotation * clip.pose(f, seg).p) + alignment.translation;
        const Vector3d offset = data.link[static_cast<std::size_t>(links_[k].value)].R * offset_[k];
        const Vector3d s = person + offset;
        anchor_[k] = s - (up.dot(s) - plan_.ground_height) * up;
      } else {
        down = false;  // no sample of the person's foot at touchdown: wait for one
      }
    }
    held_[k] = down ? 1 : 0;
    active[k] = held_[k];
    p[k] = anchor_[k];
    // Flat on the ground: the sole as it is, turned about the horizontal axis that levels it.
    const Matrix3d sole = data.link[static_cast<std::size_t>(links_[k].value)].R * rotation_[k];
    R[k] = rotationBetween(sole.col(2), up) * sole;
  }
}

}  // namespace kinetrack::track
