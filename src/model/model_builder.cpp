#include "kinetrack/model/model_builder.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include <Eigen/LU>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

namespace {

bool finite(const Transform& t) { return t.R.allFinite() && t.p.allFinite(); }

void checkTransform(const Transform& t, const std::string& what) {
  if (!finite(t)) throw InvalidArgument(what + ": placement has a non-finite entry");
  if ((t.R.transpose() * t.R - Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-9 || t.R.determinant() < 0.0)
    throw InvalidArgument(what + ": placement rotation is not a rotation matrix");
}

void checkInertial(const Inertial& in, const std::string& what) {
  if (!std::isfinite(in.mass) || in.mass < 0.0 || !in.com.allFinite() || !in.inertia.allFinite())
    throw InvalidArgument(what + ": inertial has a negative or non-finite value");
}

AxisKind classifyAxis(const Vector3d& a) {
  constexpr double tol = 1e-12;
  for (int k = 0; k < 3; ++k) {
    if ((a - Vector3d::Unit(k)).cwiseAbs().maxCoeff() <= tol) return static_cast<AxisKind>(k);
    if ((a + Vector3d::Unit(k)).cwiseAbs().maxCoeff() <= tol) return static_cast<AxisKind>(k + 3);
  }
  return AxisKind::General;
}

}  // namespace

Inertial combineInertials(const Inertial& a, const Inertial& b, const Transform& b_in_a) {
  // Nothing to add: a unchanged to the bit (a link merged with massless fixed frames, e.g. the
  // hand's COM frame, keeps its inertial exactly through export → reload).
  if (b.mass == 0.0 && b.inertia.isZero(0.0)) return a;
  Inertial out;
  out.mass = a.mass + b.mass;
  const Vector3d cb = b_in_a.p + b_in_a.R * b.com;
  if (out.mass <= 0.0) return out;
  out.com = (a.mass * a.com + b.mass * cb) / out.mass;
  auto shifted = [&](double m, const Vector3d& c, const Matrix3d& I) {
    const Vector3d d = c - out.com;
    return Matrix3d(I + m * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose()));
  };
  const Matrix3d sum =
      shifted(a.mass, a.com, a.inertia) + shifted(b.mass, cb, b_in_a.R * b.inertia * b_in_a.R.transpose());
  out.inertia = 0.5 * (sum + sum.transpose());  // symmetric to the bit (round-off breaks it otherwise)
  return out;
}

ModelBuilder::ModelBuilder(std::string model_name, std::string root_link, BaseType base, Inertial root_inertial)
    : model_name_(std::move(model_name)), base_(base) {
  if (root_link.empty()) throw InvalidArgument("model '" + model_name_ + "': root link name is empty");
  checkInertial(root_inertial, "link '" + root_link + "'");
  link_parent_.push_back(-1);
  inertials_.push_back(root_inertial);
  frames_.push_back({std::move(root_link), 0, Transform{}, FrameKind::Link, {}, -1});
}

ModelBuilder::ModelBuilder(const Model& model)
    : ModelBuilder(model.name(), model.linkName(LinkId(0)), model.baseType(), model.inertial(LinkId(0))) {
  up_ = model.up();
  // Walk the frames in model order so frame ids and joint ids come out the same: a link frame
  // stands for the joint that created its link.
  for (int f = 1; f < model.numFrames(); ++f) {
    const FrameId id(f);
    if (model.frameKind(id) == FrameKind::Link) {
      addJoint(jointSpecOf(model, model.jointOfLink(model.frameLink(id))));
      continue;
    }
    // Non-link frames keep their link-relative placement and original parent exactly; their
    // mass is already part of the link's inertial.
    const FrameId parent = model.frameParent(id);
    frames_.push_back({model.frameName(id), model.frameLink(id).value, model.framePlacement(id), model.frameKind(id),
                       model.frameJointName(id), parent.valid() ? frameIndex(model.frameName(parent), "frame") : -1});
  }
  for (const LinearConstraint& c : model.linearConstraints()) {
    if (c.name.rfind("mimic:", 0) == 0) continue;  // re-created by the mimics below
    addLinearConstraint(c.name, rowTermsOf(model, c), c.lower, c.upper, c.velocity_bound);
  }
  for (const Mimic& m : model.mimics())
    addMimic(model.jointName(m.joint), model.jointName(m.master), m.multiplier, m.offset);
  geoms_ = model.geoms();  // link ids and link-relative placements carry over: same links, same order
}

bool ModelBuilder::hasName(const std::string& name) const {
  for (const auto& f : frames_)
    if (f.name == name) return true;
  return false;
}

int ModelBuilder::frameIndex(const std::string& name, const std::string& context) const {
  for (std::size_t i = 0; i < frames_.size(); ++i)
    if (frames_[i].name == name) return static_cast<int>(i);
  std::string msg = context + ": parent '" + name + "' is not a link or frame of the model; known: ";
  for (std::size_t i = 0; i < frames_.size(); ++i) msg += (i ? ", " : "") + frames_[i].name;
  throw InvalidArgument(msg);
}

ModelBuilder& ModelBuilder::addJoint(const JointSpec& spec) {
  const std::string what = "joint '" + spec.name + "'";
  if (spec.name.empty()) throw InvalidArgument("joint with child '" + spec.child + "' has an empty name");
  for (const auto& j : joints_)
    if (j.name == spec.name) throw InvalidArgument(what + ": duplicate joint name");
  if (spec.child.empty()) throw InvalidArgument(what + ": child link name is empty");
  if (hasName(spec.child)) throw InvalidArgument(what + ": child '" + spec.child + "' already exists");
  const int pf = frameIndex(spec.parent, what);
  checkTransform(spec.placement, what);
  checkInertial(spec.child_inertial, "link '" + spec.child + "'");
  if (!spec.axis.allFinite() || spec.axis.norm() < 1e-9)
    throw InvalidArgument(what + ": axis must be finite and non-zero");
  if (std::isnan(spec.lower) || std::isnan(spec.upper) || std::isnan(spec.velocity) || std::isnan(spec.effort))
    throw InvalidArgument(what + ": a limit is NaN");
  if (spec.type != JointType::Continuous && spec.lower > spec.upper)
    throw InvalidArgument(what + ": lower limit " + std::to_string(spec.lower) + " exceeds upper limit " +
                          std::to_string(spec.upper));
  if (spec.velocity < 0.0 || spec.effort < 0.0)
    throw InvalidArgument(what + ": velocity and effort limits must be ≥ 0");

  JointSpec s = spec;
  if (spec.type == JointType::Custom) {
    if (spec.motion.translations.size() > 3 || spec.motion.rotations.size() > 3)
      throw InvalidArgument(what + ": a custom motion has at most 3 translations and 3 rotations");
    for (auto* list : {&s.motion.translations, &s.motion.rotations})
      for (MotionAxis& a : *list) {
        if (!a.axis.allFinite() || a.axis.norm() < 1e-9)
          throw InvalidArgument(what + ": a motion axis must be finite and non-zero");
        a.axis.normalize();
      }
    if (!s.motion.rotations.empty())
      s.axis = s.motion.rotations.front().axis;
    else if (!s.motion.translations.empty())
      s.axis = s.motion.translations.front().axis;
  } else if (!spec.motion.translations.empty() || !spec.motion.rotations.empty()) {
    throw InvalidArgument(what + ": only a custom joint has a motion");
  }
  // Normalise, but leave an axis that is unit to round-off bit-for-bit (export → reload exact).
  if (std::abs(s.axis.squaredNorm() - 1.0) > 4.0 * std::numeric_limits<double>::epsilon()) s.axis.normalize();
  // Re-express the placement in the parent *link* frame (the parent may be a merged frame).
  s.placement = compose(frames_[pf].placement, spec.placement);
  s.parent = frames_[static_cast<std::size_t>(frames_[pf].link)].name;
  const int link = static_cast<int>(link_parent_.size());
  link_parent_.push_back(frames_[pf].link);
  inertials_.push_back(spec.child_inertial);
  joints_.push_back(std::move(s));
  frames_.push_back({spec.child, link, Transform{}, FrameKind::Link, {}, -1});
  return *this;
}

ModelBuilder& ModelBuilder::addFixedLink(const std::string& name, const std::string& parent, const Transform& placement,
                                         const Inertial& inertial, const std::string& joint_name) {
  const std::string what = "fixed link '" + name + "'";
  if (name.empty()) throw InvalidArgument("fixed link with an empty name under '" + parent + "'");
  if (hasName(name)) throw InvalidArgument(what + ": name already exists");
  const int pf = frameIndex(parent, what);
  checkTransform(placement, what);
  checkInertial(inertial, what);
  const FrameEntry& p = frames_[pf];
  const Transform X = compose(p.placement, placement);
  inertials_[p.link] = combineInertials(inertials_[p.link], inertial, X);
  frames_.push_back({name, p.link, X, FrameKind::Fixed, joint_name, pf});
  return *this;
}

ModelBuilder& ModelBuilder::setVelocityLimit(const std::string& joint, double limit) {
  if (!(limit > 0.0)) throw InvalidArgument("ModelBuilder::setVelocityLimit: joint '" + joint + "': limit must be > 0");
  std::string known;
  for (JointSpec& j : joints_) {
    if (j.name == joint) {
      j.velocity = limit;
      return *this;
    }
    known += (known.empty() ? "" : ", ") + j.name;
  }
  throw InvalidArgument("ModelBuilder::setVelocityLimit: unknown joint '" + joint + "'; known: " + known);
}

ModelBuilder& ModelBuilder::addFrame(const std::string& name, const std::string& parent, const Transform& placement) {
  const std::string what = "frame '" + name + "'";
  if (name.empty()) throw InvalidArgument("frame with an empty name under '" + parent + "'");
  if (hasName(name)) throw InvalidArgument(what + ": name already exists");
  const int pf = frameIndex(parent, what);
  checkTransform(placement, what);
  const FrameEntry& p = frames_[pf];
  frames_.push_back({name, p.link, compose(p.placement, placement), FrameKind::User, {}, pf});
  return *this;
}

ModelBuilder& ModelBuilder::addGeom(const std::string& parent, const Geom& geom) {
  const int pf = frameIndex(parent, "geom '" + geom.name + "'");
  const FrameEntry& p = frames_[static_cast<std::size_t>(pf)];
  Geom g = geom;
  g.link = LinkId(p.link);
  if (g.name.empty()) {
    int k = 0;
    for (const Geom& other : geoms_) k += other.link.value == p.link;
    g.name = frames_[static_cast<std::size_t>(linkFrameIndex(p.link))].name + "/geom" + std::to_string(k);
  }
  const std::string what = "geom '" + g.name + "' on '" + parent + "'";
  checkTransform(geom.placement, what);
  const Vector3d& s = geom.size;
  const int used = geom.shape == GeomShape::Sphere                                         ? 1
                   : geom.shape == GeomShape::Capsule || geom.shape == GeomShape::Cylinder ? 2
                                                                                           : 3;
  if (geom.shape == GeomShape::Mesh) {
    if (!s.allFinite() || (s.array() == 0.0).any())
      throw InvalidArgument(what + ": mesh scale must be finite and non-zero, got (" + std::to_string(s.x()) + ", " +
                            std::to_string(s.y()) + ", " + std::to_string(s.z()) + ")");
    if (geom.mesh.empty()) throw InvalidArgument(what + ": a mesh geom needs the mesh file's path");
  } else {
    for (int k = 0; k < used; ++k)
      if (!std::isfinite(s[k]) || !(s[k] > 0.0))
        throw InvalidArgument(what + ": " + toString(geom.shape) + " size " + "xyz"[k] +
                              " must be finite and > 0, got " + std::to_string(s[k]));
  }
  if (!geom.rgba.allFinite()) throw InvalidArgument(what + ": rgba has a non-finite entry");
  g.placement = compose(p.placement, geom.placement);
  if (!finite(g.placement)) throw InvalidArgument(what + ": placement in the link frame is not finite");
  geoms_.push_back(std::move(g));
  return *this;
}

int ModelBuilder::linkFrameIndex(int link) const {
  for (std::size_t f = 0; f < frames_.size(); ++f)
    if (frames_[f].kind == FrameKind::Link && frames_[f].link == link) return static_cast<int>(f);
  return 0;
}

ModelBuilder& ModelBuilder::addLinearConstraint(const std::string& name,
                                                const std::vector<std::pair<std::string, double>>& terms, double lower,
                                                double upper, double velocity_bound) {
  if (std::isnan(lower) || std::isnan(upper) || std::isnan(velocity_bound) || lower > upper || velocity_bound < 0.0)
    throw InvalidArgument("linear constraint '" + name + "': need lower ≤ upper and a velocity bound ≥ 0, none NaN");
  for (const auto& [joint, c] : terms)
    if (!std::isfinite(c))
      throw InvalidArgument("linear constraint '" + name + "': coefficient of '" + joint + "' is not finite");
  constraints_.push_back({name, terms, lower, upper, velocity_bound});
  return *this;
}

ModelBuilder& ModelBuilder::addMimic(const std::string& joint, const std::string& master, double multiplier,
                                     double offset) {
  if (!std::isfinite(multiplier) || !std::isfinite(offset))
    throw InvalidArgument("mimic of joint '" + joint + "': multiplier and offset must be finite");
  mimics_.push_back({joint, master, multiplier, offset});
  return *this;
}

ModelBuilder& ModelBuilder::setUp(const Vector3d& up) {
  if (!up.allFinite() || std::abs(up.norm() - 1.0) > 1e-9)
    throw InvalidArgument("model '" + model_name_ + "': the up direction must be a unit vector");
  up_ = up;
  return *this;
}

Model ModelBuilder::build() const {
  Model m;
  m.name_ = model_name_;
  m.base_type_ = base_;
  m.up_ = up_;
  const int nl = static_cast<int>(link_parent_.size());
  const int n = static_cast<int>(joints_.size());

  m.link_parent_ = link_parent_;
  m.inertials_ = inertials_;
  m.link_names_.resize(nl);
  m.link_frame_.assign(nl, -1);
  for (std::size_t f = 0; f < frames_.size(); ++f) {
    const auto& fe = frames_[f];
    if (fe.kind == FrameKind::Link) {
      m.link_names_[fe.link] = fe.name;
      m.link_frame_[fe.link] = static_cast<int>(f);
    }
  }
  m.support_.resize(nl);
  for (int l = 1; l < nl; ++l) {
    m.support_[l] = m.support_[link_parent_[l]];
    m.support_[l].push_back(l - 1);
  }

  m.joint_names_.reserve(n);
  m.lower_.resize(n);
  m.upper_.resize(n);
  m.vel_lower_.resize(n);
  m.vel_upper_.resize(n);
  m.effort_.resize(n);
  for (int j = 0; j < n; ++j) {
    const JointSpec& s = joints_[j];
    m.joint_names_.push_back(s.name);
    m.joint_type_.push_back(s.type);
    m.joint_axis_.push_back(s.axis);
    m.axis_kind_.push_back(s.type == JointType::Custom ? AxisKind::General : classifyAxis(s.axis));
    m.motions_.push_back(s.motion);
    if (s.type == JointType::Custom) m.has_custom_ = true;
    m.placement_.push_back(s.placement);
    m.placement_rot_identity_.push_back(s.placement.R == Matrix3d::Identity() ? 1 : 0);
    m.placement_trans_zero_.push_back(s.placement.p.isZero(0.0) ? 1 : 0);
    const double inf = std::numeric_limits<double>::infinity();
    m.lower_[j] = s.type == JointType::Continuous ? -inf : s.lower;
    m.upper_[j] = s.type == JointType::Continuous ? inf : s.upper;
    m.vel_lower_[j] = -s.velocity;
    m.vel_upper_[j] = s.velocity;
    m.effort_[j] = s.effort;
    m.joint_index_.emplace(s.name, j);
  }
  for (int l = 0; l < nl; ++l) m.link_index_.emplace(m.link_names_[l], l);

  for (std::size_t f = 0; f < frames_.size(); ++f) {
    const auto& fe = frames_[f];
    m.frame_names_.push_back(fe.name);
    m.frame_link_.push_back(fe.link);
    m.frame_placement_.push_back(fe.placement);
    m.frame_kind_.push_back(fe.kind);
    m.frame_joint_name_.push_back(fe.joint_name);
    m.frame_parent_.push_back(fe.parent_frame);
    m.frame_is_link_.push_back(fe.kind == FrameKind::Link ? 1 : 0);
    m.frame_index_.emplace(fe.name, static_cast<int>(f));
  }

  auto joint = [&](const std::string& name, const std::string& context) {
    auto it = m.joint_index_.find(name);
    if (it == m.joint_index_.end()) {
      std::string msg = context + ": unknown joint '" + name + "'; valid joints: ";
      for (int j = 0; j < n; ++j) msg += (j ? ", " : "") + m.joint_names_[j];
      throw InvalidArgument(msg);
    }
    return it->second;
  };
  for (const auto& c : constraints_) {
    LinearConstraint lc;
    lc.name = c.name;
    lc.coefficients = VectorXd::Zero(n);
    for (const auto& [name, coef] : c.terms) lc.coefficients[joint(name, "linear constraint '" + c.name + "'")] += coef;
    lc.lower = c.lower;
    lc.upper = c.upper;
    lc.velocity_bound = c.velocity_bound;
    m.constraints_.push_back(std::move(lc));
  }
  for (const auto& mi : mimics_) {
    const std::string ctx = "mimic of joint '" + mi.joint + "'";
    const int j = joint(mi.joint, ctx), k = joint(mi.master, ctx);
    if (j == k) throw InvalidArgument(ctx + ": a joint cannot mimic itself");
    m.mimics_.push_back({JointId(j), JointId(k), mi.multiplier, mi.offset});
    LinearConstraint lc;
    lc.name = "mimic:" + mi.joint;
    lc.coefficients = VectorXd::Zero(n);
    lc.coefficients[j] = 1.0;
    lc.coefficients[k] -= mi.multiplier;
    lc.lower = lc.upper = mi.offset;
    lc.velocity_bound = 0.0;
    m.constraints_.push_back(std::move(lc));
  }
  // Grouped by link (parents first), in the order added within a link: the order a URDF export
  // writes them in, so that export → reload keeps it.
  m.geoms_ = geoms_;
  std::stable_sort(m.geoms_.begin(), m.geoms_.end(), [](const Geom& a, const Geom& b) { return a.link < b.link; });
  return m;
}

JointSpec jointSpecOf(const Model& model, JointId j) {
  const int jj = j.value;
  JointSpec s;
  s.name = model.jointName(j);
  s.type = model.jointType(j);
  s.parent = model.linkName(model.parentLink(j));
  s.child = model.linkName(model.childLink(j));
  s.placement = model.jointPlacement(j);
  s.axis = model.jointAxis(j);
  s.motion = model.jointMotion(j);
  s.lower = model.lowerPositionLimits()[jj];
  s.upper = model.upperPositionLimits()[jj];
  s.velocity = model.upperVelocityLimits()[jj];
  s.effort = model.effortLimits()[jj];
  s.child_inertial = model.inertial(model.childLink(j));
  return s;
}

std::vector<std::pair<std::string, double>> rowTermsOf(const Model& model, const LinearConstraint& row) {
  std::vector<std::pair<std::string, double>> terms;
  for (int jj = 0; jj < model.numJoints(); ++jj)
    if (row.coefficients[jj] != 0.0) terms.emplace_back(model.jointName(JointId(jj)), row.coefficients[jj]);
  return terms;
}

}  // namespace kinetrack
