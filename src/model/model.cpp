#include "kinetrack/model/model.hpp"

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

const char* toString(BaseType t) { return t == BaseType::Floating ? "floating" : "fixed"; }

const char* toString(JointType t) {
  switch (t) {
    case JointType::Revolute: return "revolute";
    case JointType::Continuous: return "continuous";
    case JointType::Prismatic: return "prismatic";
    case JointType::Custom: return "custom";
  }
  return "?";
}

const char* toString(FrameKind k) {
  switch (k) {
    case FrameKind::Link: return "link";
    case FrameKind::Fixed: return "fixed";
    case FrameKind::User: return "user";
  }
  return "?";
}

const char* toString(GeomShape s) {
  switch (s) {
    case GeomShape::Sphere: return "sphere";
    case GeomShape::Capsule: return "capsule";
    case GeomShape::Cylinder: return "cylinder";
    case GeomShape::Box: return "box";
    case GeomShape::Ellipsoid: return "ellipsoid";
    case GeomShape::Mesh: return "mesh";
  }
  return "?";
}

namespace {

template <class Map>
std::optional<std::int32_t> lookup(const Map& map, std::string_view name) {
  auto it = map.find(std::string(name));
  if (it == map.end()) return std::nullopt;
  return it->second;
}

[[noreturn]] void unknownName(const char* what, std::string_view name, const std::vector<std::string>& valid) {
  std::string msg = std::string("unknown ") + what + " '" + std::string(name) + "'; valid " + what + "s (" +
                    std::to_string(valid.size()) + "): ";
  for (std::size_t i = 0; i < valid.size(); ++i) {
    if (i) msg += ", ";
    msg += valid[i];
  }
  throw InvalidArgument(msg);
}

}  // namespace

std::optional<LinkId> Model::findLink(std::string_view name) const {
  if (auto i = lookup(link_index_, name)) return LinkId(*i);
  return std::nullopt;
}
std::optional<JointId> Model::findJoint(std::string_view name) const {
  if (auto i = lookup(joint_index_, name)) return JointId(*i);
  return std::nullopt;
}
std::optional<FrameId> Model::findFrame(std::string_view name) const {
  if (auto i = lookup(frame_index_, name)) return FrameId(*i);
  return std::nullopt;
}
double Model::totalMass() const {
  double m = 0.0;
  for (const Inertial& in : inertials_) m += in.mass;
  return m;
}

Model Model::withInertial(LinkId l, const Inertial& inertial) const {
  if (!l.valid() || l.value >= numLinks())
    throw InvalidArgument("Model::withInertial: link id " + std::to_string(l.value) + " out of range (model '" + name_ +
                          "' has " + std::to_string(numLinks()) + " links)");
  if (!std::isfinite(inertial.mass) || inertial.mass < 0.0 || !inertial.com.allFinite() ||
      !inertial.inertia.allFinite())
    throw InvalidArgument("Model::withInertial: link '" + link_names_[static_cast<std::size_t>(l.value)] +
                          "': mass must be finite and >= 0, centre of mass and inertia finite");
  Model m = *this;
  m.inertials_[static_cast<std::size_t>(l.value)] = inertial;
  return m;
}

LinkId Model::linkId(std::string_view name) const {
  if (auto id = findLink(name)) return *id;
  unknownName("link", name, link_names_);
}
JointId Model::jointId(std::string_view name) const {
  if (auto id = findJoint(name)) return *id;
  unknownName("joint", name, joint_names_);
}
FrameId Model::frameId(std::string_view name) const {
  if (auto id = findFrame(name)) return *id;
  unknownName("frame", name, frame_names_);
}

}  // namespace kinetrack
