// BVH writer: a model's links (zero-offset chains collapsed) as a BVH hierarchy, and per frame
// the local rotation of each BVH joint as Z-X-Y Euler angles in BVH's Y-up axes.
#include "kinetrack/io/capture/bvh_writer.hpp"
#include "../table/text_util.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io {

using detail::appendNumber;

namespace {

constexpr double kCentimetres = 100.0;  // per metre
constexpr double kDegrees = 180.0 / M_PI;

// BVH axes → kinetrack axes, as readBvh/bvhToClip with y_up: v_kinetrack = C v_BVH.
Matrix3d bvhToKinetrack() {
  Matrix3d C;
  C << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  return C;
}

// (a, b, c) in degrees with R = Rz(a)·Rx(b)·Ry(c), b ∈ [−90°, 90°]. The last row of Rz·Rx·Ry is
// (−cos b sin c, sin b, cos b cos c) and its second column (−sin a cos b, cos a cos b, sin b).
Vector3d eulerZxy(const Matrix3d& R) {
  const double cb = std::hypot(R(2, 0), R(2, 2));
  const double b = std::atan2(R(2, 1), cb);
  double a, c;
  if (cb > 1e-12) {
    a = std::atan2(-R(0, 1), R(1, 1));
    c = std::atan2(-R(2, 0), R(2, 2));
  } else {  // gimbal lock (b = ±90°): only a ± c is defined; take c = 0, then R = Rz(a)·Rx(b)
    a = std::atan2(R(1, 0), R(0, 0));
    c = 0.0;
  }
  return kDegrees * Vector3d(a, b, c);
}

// Placement of the joint frame times the joint's motion at coordinate s.
Transform jointTransform(const Model& model, JointId j, double s) {
  const Transform& X = model.jointPlacement(j);
  if (model.jointType(j) == JointType::Prismatic) return {X.R, X.p + X.R * (s * model.jointAxis(j))};
  return {X.R * so3::axisAngle(model.jointAxis(j), s), X.p};
}

void appendVector(std::string& out, const Vector3d& v) {
  for (int k = 0; k < 3; ++k) {
    out += ' ';
    appendNumber(out, v[k] == 0.0 ? 0.0 : v[k]);  // no "-0" in the hierarchy
  }
}

struct SkeletonBuilder {
  const Model& model;
  std::vector<std::vector<int>> children;  // per link
  std::vector<BvhExportJoint> joints;

  bool collapsed(int link) const {
    const auto& c = children[static_cast<std::size_t>(link)];
    return link != 0 && c.size() == 1 && model.placementTranslationIsZero(model.jointOfLink(LinkId(c[0])));
  }

  void visit(int link, int bvh_parent) {
    int index = bvh_parent;
    if (!collapsed(link)) {
      BvhExportJoint j;
      j.link = LinkId(link);
      j.parent = bvh_parent;
      const std::string& name = model.linkName(j.link);
      for (const char ch : name)
        if (std::isspace(static_cast<unsigned char>(ch)))
          throw InvalidArgument("writeBvh: link name '" + name +
                                "' contains whitespace and cannot be a BVH joint name");
      if (name.empty()) throw InvalidArgument("writeBvh: a link has an empty name");
      if (bvh_parent >= 0) {
        const int stop = joints[static_cast<std::size_t>(bvh_parent)].link.value;
        for (int l = link; l != stop; l = model.parent(LinkId(l)).value)
          j.chain.insert(j.chain.begin(), model.jointOfLink(LinkId(l)));
        Transform rest;  // the chain at s = 0
        for (const JointId q : j.chain) {
          rest = compose(rest, jointTransform(model, q, 0.0));
          if (model.jointType(q) == JointType::Prismatic) j.position_channels = true;
        }
        if (!j.position_channels) j.offset = kCentimetres * (bvhToKinetrack().transpose() * rest.p);
      } else {
        j.position_channels = true;
      }
      index = static_cast<int>(joints.size());
      joints.push_back(std::move(j));
    }
    for (const int c : children[static_cast<std::size_t>(link)]) visit(c, index);
  }
};

}  // namespace

std::vector<BvhExportJoint> bvhSkeleton(const Model& model) {
  for (int j = 0; j < model.numJoints(); ++j)
    if (model.jointType(JointId(j)) == JointType::Custom)
      throw InvalidArgument("BVH export: joint '" + model.jointName(JointId(j)) +
                            "' is function-driven (custom), which BVH cannot describe");
  SkeletonBuilder b{model, std::vector<std::vector<int>>(static_cast<std::size_t>(model.numLinks())), {}};
  for (int l = 1; l < model.numLinks(); ++l)
    b.children[static_cast<std::size_t>(model.parent(LinkId(l)).value)].push_back(l);
  b.visit(0, -1);
  std::vector<int> num_children(b.joints.size(), 0);
  for (const BvhExportJoint& j : b.joints)
    if (j.parent >= 0) ++num_children[static_cast<std::size_t>(j.parent)];
  const Matrix3d Ct = bvhToKinetrack().transpose();
  for (std::size_t i = 0; i < b.joints.size(); ++i) {
    BvhExportJoint& j = b.joints[i];
    if (num_children[i] > 0) continue;
    j.end_site = true;
    // The farthest frame on the leaf's link marks its end; else continue along the OFFSET.
    Vector3d tip = Vector3d::Zero();
    for (int f = 0; f < model.numFrames(); ++f) {
      const FrameId id(f);
      if (model.frameLink(id) == j.link && model.framePlacement(id).p.norm() > tip.norm())
        tip = model.framePlacement(id).p;
    }
    j.end_offset = tip.norm() > 1e-9 ? Vector3d(kCentimetres * (Ct * tip)) : Vector3d(0.5 * j.offset);
  }
  return b.joints;
}

std::string toBvh(const Model& model, const std::vector<Configuration>& frames, double frame_time) {
  if (frames.empty()) throw InvalidArgument("writeBvh: no frames to write");
  if (!(frame_time > 0.0) || !std::isfinite(frame_time))
    throw InvalidArgument("writeBvh: frame time must be finite and > 0, got " + std::to_string(frame_time));
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const Configuration& q = frames[f];
    if (q.joints.size() != model.numJoints())
      throw InvalidArgument("writeBvh: frame " + std::to_string(f) + ": expected " + std::to_string(model.numJoints()) +
                            " joint coordinates, got " + std::to_string(q.joints.size()));
    if (!q.base_position.allFinite() || !q.base_rotation.allFinite() || !q.joints.allFinite())
      throw InvalidArgument("writeBvh: frame " + std::to_string(f) + " has a NaN or infinite coordinate");
  }
  const std::vector<BvhExportJoint> joints = bvhSkeleton(model);
  const Matrix3d C = bvhToKinetrack();

  // Hierarchy: nested blocks in file order; a joint's block closes before the next joint that
  // is not its descendant.
  std::string out = "HIERARCHY\n";
  std::vector<int> open;  // indices of joints whose block is open
  const auto indent = [&](std::size_t depth) { out.append(depth, '\t'); };
  const auto closeUntil = [&](int parent) {
    while (!open.empty() && open.back() != parent) {
      const BvhExportJoint& j = joints[static_cast<std::size_t>(open.back())];
      if (j.end_site) {
        indent(open.size());
        out += "End Site\n";
        indent(open.size());
        out += "{\n";
        indent(open.size() + 1);
        out += "OFFSET";
        appendVector(out, j.end_offset);
        out += '\n';
        indent(open.size());
        out += "}\n";
      }
      open.pop_back();
      indent(open.size());
      out += "}\n";
    }
  };
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const BvhExportJoint& j = joints[i];
    closeUntil(j.parent);
    indent(open.size());
    out += (j.parent < 0 ? "ROOT " : "JOINT ") + model.linkName(j.link) + "\n";
    indent(open.size());
    out += "{\n";
    indent(open.size() + 1);
    out += "OFFSET";
    appendVector(out, j.offset);
    out += '\n';
    indent(open.size() + 1);
    out += j.position_channels ? "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                               : "CHANNELS 3 Zrotation Xrotation Yrotation\n";
    open.push_back(static_cast<int>(i));
  }
  closeUntil(-1);
  out += "MOTION\nFrames: " + std::to_string(frames.size()) + "\nFrame Time: ";
  appendNumber(out, frame_time);
  out += '\n';

  // Motion: per joint its local transform in BVH axes, T_bvh = (Cᵀ R C, Cᵀ p).
  for (const Configuration& q : frames) {
    bool first = true;
    const auto field = [&](double v) {
      if (!first) out += ' ';
      first = false;
      appendNumber(out, v);
    };
    for (const BvhExportJoint& j : joints) {
      Transform local{q.base_rotation, q.base_position};
      if (j.parent >= 0) {
        local = Transform{};
        for (const JointId k : j.chain) local = compose(local, jointTransform(model, k, q.joints[k.value]));
      }
      if (j.position_channels) {
        const Vector3d p = kCentimetres * (C.transpose() * local.p);
        for (int k = 0; k < 3; ++k) field(p[k]);
      }
      const Vector3d e = eulerZxy(C.transpose() * local.R * C);
      for (int k = 0; k < 3; ++k) field(e[k]);
    }
    out += '\n';
  }
  return out;
}

void writeBvh(const Model& model, const std::vector<Configuration>& frames, double frame_time,
              const std::string& path) {
  writeFileAtomically(path, toBvh(model, frames, frame_time));
}

}  // namespace kinetrack::io
