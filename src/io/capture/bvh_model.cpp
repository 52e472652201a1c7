// A kinetrack Model built from a BVH skeleton, and BVH frames as its configurations.
#include <Eigen/Geometry>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io {

namespace {

Matrix3d axesMap(const BvhOptions& o) {
  Matrix3d C = Matrix3d::Identity();
  if (o.y_up) C << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  return C;
}

bool isPosition(BvhChannel c) { return static_cast<int>(c) <= 2; }

// The local translation of a joint without its channel values: the OFFSET, with the components
// that its position channels replace set to zero.
Vector3d placement(const BvhJoint& j, bool replace) {
  Vector3d t = j.offset;
  if (replace)
    for (BvhChannel c : j.channels)
      if (isPosition(c)) t[static_cast<int>(c)] = 0.0;
  return t;
}

// Model joints of a BVH joint, in model order: position channels first, then rotations in
// channel order. Returns the channel indices (into j.channels).
std::vector<int> modelChannelOrder(const BvhJoint& j) {
  std::vector<int> order;
  for (int k = 0; k < static_cast<int>(j.channels.size()); ++k)
    if (isPosition(j.channels[static_cast<std::size_t>(k)])) order.push_back(k);
  for (int k = 0; k < static_cast<int>(j.channels.size()); ++k)
    if (!isPosition(j.channels[static_cast<std::size_t>(k)])) order.push_back(k);
  return order;
}

}  // namespace

Model modelFromBvh(const BvhFile& f, const BvhOptions& options) {
  const double scale = bvhScale(f, options.units);
  const Matrix3d C = axesMap(options);
  const std::vector<std::uint8_t> replace = bvhChannelsReplaceOffset(f, options.position_channels);
  std::string name = f.source;
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
  // Generated names can collide with the file's (a joint 'A_End' beside A's End Site, 'A_f1'):
  // the builder's InvalidArgument is a ParseError of this file.
  try {
    ModelBuilder b(name, f.joints[0].name, BaseType::Floating);
    for (std::size_t i = 1; i < f.joints.size(); ++i) {
      const BvhJoint& j = f.joints[i];
      const std::string& parent = f.joints[static_cast<std::size_t>(j.parent)].name;
      Transform X;
      X.p = C * (scale * placement(j, replace[i] != 0));
      if (j.end_site) {
        b.addFixedLink(j.name, parent, X, {}, j.name + "_joint");
        continue;
      }
      const std::vector<int> order = modelChannelOrder(j);
      if (order.empty()) {
        b.addFixedLink(j.name, parent, X, {}, j.name + "_joint");
        continue;
      }
      std::string link_parent = parent;
      for (std::size_t m = 0; m < order.size(); ++m) {
        const BvhChannel c = j.channels[static_cast<std::size_t>(order[m])];
        JointSpec s;
        s.name = j.name + "_" + toString(c);
        s.type = isPosition(c) ? JointType::Prismatic : JointType::Continuous;
        s.parent = link_parent;
        s.child = m + 1 == order.size() ? j.name : j.name + "_f" + std::to_string(m + 1);
        if (m == 0) s.placement = X;
        s.axis = C * Vector3d::Unit(static_cast<int>(c) % 3);
        b.addJoint(s);
        link_parent = s.child;
      }
    }
    return b.build();
  } catch (const InvalidArgument& e) {
    throw ParseError(f.source, 0, e.what());
  }
}

std::vector<Configuration> bvhConfigurations(const Model& model, const BvhFile& f, const BvhOptions& options) {
  const double scale = bvhScale(f, options.units);
  const Matrix3d C = axesMap(options);
  const std::vector<std::uint8_t> replace = bvhChannelsReplaceOffset(f, options.position_channels);
  // Model joint of every (BVH joint, channel), resolved once.
  struct Slot {
    int column;
    int joint;
    bool position;
  };
  std::vector<Slot> slots;
  for (std::size_t i = 1; i < f.joints.size(); ++i) {
    const BvhJoint& j = f.joints[i];
    if (j.end_site) continue;
    for (const int k : modelChannelOrder(j)) {
      const BvhChannel c = j.channels[static_cast<std::size_t>(k)];
      slots.push_back({j.first_channel + k, model.jointId(j.name + "_" + toString(c)).value, isPosition(c)});
    }
  }
  const BvhJoint& root = f.joints[0];
  std::vector<Configuration> out;
  out.reserve(static_cast<std::size_t>(f.motion.rows()));
  for (int frame = 0; frame < f.motion.rows(); ++frame) {
    Configuration q(model);
    // Base: the root's translation and rotation channels.
    Vector3d t = placement(root, replace[0] != 0);
    Matrix3d R = Matrix3d::Identity();
    for (std::size_t k = 0; k < root.channels.size(); ++k) {
      const double v = f.motion(frame, root.first_channel + static_cast<int>(k));
      const BvhChannel c = root.channels[k];
      if (isPosition(c))
        t[static_cast<int>(c)] += v;
      else
        R = R * Eigen::AngleAxisd(v * (M_PI / 180.0), Vector3d::Unit(static_cast<int>(c) % 3)).toRotationMatrix();
    }
    q.base_position = C * (scale * t);
    q.base_rotation = C * R * C.transpose();
    for (const Slot& s : slots) {
      const double v = f.motion(frame, s.column);
      q.joints[s.joint] = s.position ? scale * v : v * (M_PI / 180.0);
    }
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace kinetrack::io
