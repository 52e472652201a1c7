// OpenSim reader, building the kinetrack Model: joints in tree order, each OpenSim joint split into
// one kinetrack joint per coordinate, body frames, markers and couplers.
//
// An OpenSim joint moves its child offset frame M relative to its parent offset frame F by
//   X_FM(q) = Trans(c + Σ_k t_k g_k(q)) · R_1 · R_2 · R_3      (R_i = rotation about r_i by f_i(q)),
// c the constant translations. Translations commute, so they group by coordinate; a coordinate
// becomes one kinetrack joint made of its translations followed by the consecutive rotations it
// drives. The chain, from F:
//   1. one joint per coordinate that drives translations only (in TransformAxis order), the first
//      placed at F · Trans(c);
//   2. the coordinate of the first rotation run (with its translations, if it has some);
//   3. the coordinates of the later rotation runs;
//   4. coordinates that drive nothing (a Custom joint with an empty motion).
// A constant rotation between runs becomes the next joint's placement; one before the first run
// goes into that joint's placement, or into its rotation list when the joint also translates;
// trailing ones go into the last joint's rotation list, so the last link's frame is M. A
// coordinate that would have to appear twice (R_1(q1) R_2(q2) R_3(q1), or a translation by a
// coordinate whose rotations follow another coordinate's) is not supported.
#include <algorithm>
#include <cmath>
#include <map>
#include <queue>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "mesh_path.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io::detail::osim {

namespace {

// One kinetrack joint of an OpenSim joint's chain.
struct ChainJoint {
  int coordinate = -1;
  Transform placement;  // in the previous link of the chain (F for the first)
  std::vector<MotionAxis> translations, rotations;
};

bool isIdentity(const Transform& X) {
  return (X.R - Matrix3d::Identity()).cwiseAbs().maxCoeff() <= 1e-12 && X.p.cwiseAbs().maxCoeff() <= 1e-12;
}

MotionAxis motionAxis(const AxisDef& a) { return {a.axis, a.function}; }

Inertial transformInertial(const Inertial& in, const Transform& X) {
  Inertial out;
  out.mass = in.mass;
  out.com = X.p + X.R * in.com;
  const Matrix3d I = X.R * in.inertia * X.R.transpose();
  out.inertia = 0.5 * (I + I.transpose());
  return out;
}

// True when every link and frame pose and every joint function value and derivative is finite at
// joint coordinates s: numbers that are finite but huge in the file (a spline knot of 1e308, a
// default value of 1e200 under a polynomial) can overflow there. A minimal forward pass (io does
// not depend on kinematics).
bool finiteKinematics(const Model& model, const VectorXd& s) {
  std::vector<Transform> link(static_cast<std::size_t>(model.numLinks()));
  for (int jj = 0; jj < model.numJoints(); ++jj) {
    const JointId j(jj);
    Transform T = compose(link[static_cast<std::size_t>(model.parentLink(j).value)], model.jointPlacement(j));
    const Vector3d& axis = model.jointAxis(j);
    switch (model.jointType(j)) {
      case JointType::Revolute:
      case JointType::Continuous: T.R = T.R * Eigen::AngleAxisd(s[jj], axis).toRotationMatrix(); break;
      case JointType::Prismatic: T.p += s[jj] * (T.R * axis); break;
      case JointType::Custom: {
        double f = 0.0, df = 0.0, ddf = 0.0;
        Vector3d t = Vector3d::Zero();
        for (const MotionAxis& a : model.jointMotion(j).translations) {
          a.function.evaluate(s[jj], f, df, ddf);
          if (!std::isfinite(f) || !std::isfinite(df)) return false;
          t += f * a.axis;
        }
        T.p += T.R * t;
        for (const MotionAxis& a : model.jointMotion(j).rotations) {
          a.function.evaluate(s[jj], f, df, ddf);
          if (!std::isfinite(f) || !std::isfinite(df)) return false;
          T.R = T.R * Eigen::AngleAxisd(f, a.axis).toRotationMatrix();
        }
        break;
      }
    }
    if (!T.p.allFinite() || !T.R.allFinite()) return false;
    link[static_cast<std::size_t>(jj + 1)] = T;
  }
  for (int f = 0; f < model.numFrames(); ++f) {
    const Transform X =
        compose(link[static_cast<std::size_t>(model.frameLink(FrameId(f)).value)], model.framePlacement(FrameId(f)));
    if (!X.p.allFinite() || !X.R.allFinite()) return false;
  }
  return true;
}

class Builder {
 public:
  Builder(const Document& doc, ModelBuilder& builder) : doc_(doc), builder_(builder) {}

  [[noreturn]] void fail(int line, const std::string& message) const { throw ParseError(doc_.source, line, message); }

  // Runs a ModelBuilder call; its InvalidArgument becomes a ParseError at `line`.
  template <class F>
  void call(int line, const std::string& what, F&& f) const {
    try {
      f();
    } catch (const InvalidArgument& e) {
      fail(line, what + ": " + e.what());
    }
  }

  const std::string& coordinateName(int c) const { return doc_.coordinates[static_cast<std::size_t>(c)].name; }

  // The chain of one OpenSim joint (see the top of the file).
  std::vector<ChainJoint> chain(const JointDef& j, Transform& constant_only, std::vector<std::string>& notices) const {
    const std::string owner = j.type + " '" + j.name + "'";
    Vector3d c = Vector3d::Zero();
    std::vector<int> translation_coords;
    for (const AxisDef& a : j.translations) {
      if (a.coordinate < 0) {
        c += a.function.value(0.0) * a.axis;
      } else if (std::find(translation_coords.begin(), translation_coords.end(), a.coordinate) ==
                 translation_coords.end()) {
        translation_coords.push_back(a.coordinate);
      }
    }
    struct Run {
      int coordinate;
      std::vector<MotionAxis> before;  // constant rotations before the run
      std::vector<MotionAxis> rotations;
      const AxisDef* first;
    };
    std::vector<Run> runs;
    std::vector<MotionAxis> pending;
    for (const AxisDef& a : j.rotations) {
      if (a.coordinate < 0) {
        const double angle = a.function.value(0.0);
        if (angle != 0.0) pending.push_back({a.axis, ScalarFunction::constant(angle)});
        continue;
      }
      if (!runs.empty() && runs.back().coordinate == a.coordinate) {
        runs.back().rotations.insert(runs.back().rotations.end(), pending.begin(), pending.end());
        pending.clear();
        runs.back().rotations.push_back(motionAxis(a));
        continue;
      }
      for (const Run& r : runs)
        if (r.coordinate == a.coordinate)
          fail(a.line, owner + ": coordinate '" + coordinateName(a.coordinate) + "' drives " + r.first->name + " and " +
                           a.name + " with another coordinate's rotation between them: not supported");
      runs.push_back({a.coordinate, std::move(pending), {motionAxis(a)}, &a});
      pending.clear();
    }
    for (std::size_t k = 1; k < runs.size(); ++k)
      if (std::find(translation_coords.begin(), translation_coords.end(), runs[k].coordinate) !=
          translation_coords.end())
        fail(runs[k].first->line, owner + ": coordinate '" + coordinateName(runs[k].coordinate) +
                                      "' drives a translation and " + runs[k].first->name + ", which follows " +
                                      runs[0].first->name + " by coordinate '" + coordinateName(runs[0].coordinate) +
                                      "': not supported");

    std::vector<ChainJoint> out;
    auto translationsOf = [&](int coordinate) {
      std::vector<MotionAxis> t;
      for (const AxisDef& a : j.translations)
        if (a.coordinate == coordinate) t.push_back(motionAxis(a));
      return t;
    };
    auto rotationOf = [](const std::vector<MotionAxis>& constants) {
      Matrix3d R = Matrix3d::Identity();
      for (const MotionAxis& m : constants) R = R * Eigen::AngleAxisd(m.function.value(0.0), m.axis).toRotationMatrix();
      return R;
    };
    const int first_run = runs.empty() ? -1 : runs[0].coordinate;
    for (int tc : translation_coords)
      if (tc != first_run) out.push_back({tc, {}, translationsOf(tc), {}});
    for (std::size_t k = 0; k < runs.size(); ++k) {
      ChainJoint cj{runs[k].coordinate, {}, translationsOf(runs[k].coordinate), {}};
      if (cj.translations.empty())
        cj.placement.R = rotationOf(runs[k].before);
      else
        cj.rotations = runs[k].before;
      cj.rotations.insert(cj.rotations.end(), runs[k].rotations.begin(), runs[k].rotations.end());
      out.push_back(std::move(cj));
    }
    for (int coordinate : j.coordinates) {
      if (std::any_of(out.begin(), out.end(), [&](const ChainJoint& cj) { return cj.coordinate == coordinate; }))
        continue;
      notices.push_back("coordinate '" + coordinateName(coordinate) + "' of " + owner +
                        " drives no axis: its joint has no motion (a zero Jacobian column)");
      out.push_back({coordinate, {}, {}, {}});
    }
    // Constant translation before everything (translations commute); trailing constant rotations
    // at the end of the last joint, so the last link's frame is M.
    if (out.empty()) {
      constant_only = {rotationOf(pending), c};
      return out;
    }
    out.front().placement = compose({Matrix3d::Identity(), c}, out.front().placement);
    out.back().rotations.insert(out.back().rotations.end(), pending.begin(), pending.end());
    return out;
  }

  // Adds one OpenSim joint below its (placed) parent body, whose frame is named after it.
  void addJoint(const JointDef& j, const BodyDef& child, std::vector<std::string>& notices) {
    const std::string owner = j.type + " '" + j.name + "'";
    const std::string& parent_frame = j.parent_body;  // every body is a frame named after it
    Transform constant;
    const std::vector<ChainJoint> links = chain(j, constant, notices);
    if (links.empty()) {  // no coordinate: a weld
      call(j.line, owner, [&] {
        builder_.addFixedLink(child.name, parent_frame, compose(compose(j.X_PF, constant), inverse(j.X_BM)),
                              child.inertial, j.name);
      });
      return;
    }
    const bool body_is_link = isIdentity(j.X_BM);
    std::string previous = parent_frame;
    for (std::size_t k = 0; k < links.size(); ++k) {
      const ChainJoint& cj = links[k];
      const CoordinateDef& coordinate = doc_.coordinates[static_cast<std::size_t>(cj.coordinate)];
      const bool last = k + 1 == links.size();
      JointSpec s;
      s.name = coordinate.name;
      s.parent = previous;
      s.child = last && body_is_link ? child.name : child.name + "/" + coordinate.name;
      s.placement = k == 0 ? compose(j.X_PF, cj.placement) : cj.placement;
      s.lower = coordinate.range_min;
      s.upper = coordinate.range_max;
      if (last) s.child_inertial = transformInertial(child.inertial, inverse(j.X_BM));
      auto unit = [](const ScalarFunction& f) {
        return f.isAffine() && f.intercept() == 0.0 && std::abs(f.slope()) == 1.0 ? f.slope() : 0.0;
      };
      if (cj.translations.empty() && cj.rotations.size() == 1 && unit(cj.rotations[0].function) != 0.0) {
        s.type = JointType::Revolute;
        s.axis = unit(cj.rotations[0].function) * cj.rotations[0].axis;
      } else if (cj.rotations.empty() && cj.translations.size() == 1 && unit(cj.translations[0].function) != 0.0) {
        s.type = JointType::Prismatic;
        s.axis = unit(cj.translations[0].function) * cj.translations[0].axis;
      } else {
        s.type = JointType::Custom;
        s.motion = {cj.translations, cj.rotations};
      }
      call(coordinate.line, owner + ": coordinate '" + coordinate.name + "'", [&] { builder_.addJoint(s); });
      previous = s.child;
    }
    if (!body_is_link)
      call(j.line, owner + ": body frame '" + child.name + "'",
           [&] { builder_.addFrame(child.name, previous, inverse(j.X_BM)); });
  }

 private:
  const Document& doc_;
  ModelBuilder& builder_;
};

}  // namespace

OpenSimModel buildModel(Document doc, const OpenSimReadOptions& options) {
  const std::string& source = doc.source;
  std::map<std::string, int> body_index;
  for (std::size_t b = 0; b < doc.bodies.size(); ++b) body_index[doc.bodies[b].name] = static_cast<int>(b);
  auto knownBodies = [&] {
    std::string list = "ground";
    for (const BodyDef& b : doc.bodies) list += ", " + b.name;
    return list;
  };

  // ---- tree order: the earliest joint (file order) whose parent is placed -----------------------
  std::vector<int> parent_joint(doc.bodies.size(), -1);
  std::map<std::string, std::vector<int>> joints_of_parent;
  for (std::size_t k = 0; k < doc.joints.size(); ++k) {
    const JointDef& j = doc.joints[k];
    const std::string owner = j.type + " '" + j.name + "'";
    if (j.child_body == "ground")
      throw ParseError(source, j.line, owner + ": the ground is its child frame: not supported (a reversed joint)");
    const auto child = body_index.find(j.child_body);
    if (child == body_index.end())
      throw ParseError(source, j.line,
                       owner + ": child body '" + j.child_body + "' is not a body; known: " + knownBodies());
    if (j.parent_body != "ground" && !body_index.count(j.parent_body))
      throw ParseError(source, j.line,
                       owner + ": parent body '" + j.parent_body + "' is not a body; known: " + knownBodies());
    if (j.parent_body == j.child_body)
      throw ParseError(source, j.line, owner + ": parent and child are the same body '" + j.child_body + "'");
    int& pj = parent_joint[static_cast<std::size_t>(child->second)];
    if (pj >= 0)
      throw ParseError(source, j.line,
                       owner + ": body '" + j.child_body + "' is already the child of joint '" +
                           doc.joints[static_cast<std::size_t>(pj)].name +
                           "': closed kinematic loops are not supported");
    pj = static_cast<int>(k);
    joints_of_parent[j.parent_body].push_back(static_cast<int>(k));
  }
  for (std::size_t b = 0; b < doc.bodies.size(); ++b)
    if (parent_joint[b] < 0)
      throw ParseError(source, doc.bodies[b].line,
                       "Body '" + doc.bodies[b].name +
                           "' has no joint to a parent: not supported (every body must "
                           "be connected to the ground)");

  OpenSimModel out;
  out.source = source;
  out.version = doc.version;
  out.gravity = doc.gravity;
  for (const BodyDef& b : doc.bodies) out.bodies.push_back(b.name);
  std::vector<std::string> notices = doc.notices;

  ModelBuilder builder(doc.name, "ground", BaseType::Fixed);
  // OpenSim's world is Y up; a model with another gravity says so.
  // (Scaled first: a gravity of 1e200 would overflow the norm.)
  const double g_max = doc.gravity.cwiseAbs().maxCoeff();
  const Vector3d up =
      g_max > 0.0 && std::isfinite(g_max) ? Vector3d(-(doc.gravity / g_max).normalized()) : Vector3d::UnitY();
  builder.setUp(up.allFinite() ? up : Vector3d::UnitY());
  Builder b(doc, builder);
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int k : joints_of_parent["ground"]) ready.push(k);
  std::size_t placed = 0;
  while (!ready.empty()) {
    const JointDef& j = doc.joints[static_cast<std::size_t>(ready.top())];
    ready.pop();
    ++placed;
    b.addJoint(j, doc.bodies[static_cast<std::size_t>(body_index[j.child_body])], notices);
    for (int k : joints_of_parent[j.child_body]) ready.push(k);
  }
  if (placed != doc.joints.size()) {
    for (const JointDef& j : doc.joints)
      if (!builder.hasName(j.child_body))
        throw ParseError(source, j.line,
                         j.type + " '" + j.name + "': body '" + j.child_body +
                             "' is not connected to the ground (the joints form a loop)");
  }

  // ---- markers -----------------------------------------------------------------------------------
  const bool replaced = options.markers.has_value();
  const std::string& marker_source = replaced && !options.markers_source.empty() ? options.markers_source : source;
  out.markers = replaced ? *options.markers : doc.markers;
  for (const OpenSimMarker& m : out.markers) {
    const std::string owner = "Marker '" + m.name + "'";
    if (m.body != "ground" && !body_index.count(m.body))
      throw ParseError(marker_source, m.line,
                       owner + ": body '" + m.body + "' is not a body of the model; known: " + knownBodies());
    if (!m.location.allFinite()) throw ParseError(marker_source, m.line, owner + ": location is not finite");
    try {
      builder.addFrame(m.name, m.body, {Matrix3d::Identity(), m.location});
    } catch (const InvalidArgument& e) {
      throw ParseError(marker_source, m.line, owner + ": " + e.what());
    }
  }

  // ---- offset frames of the bodies' components (IMU frames) --------------------------------------
  for (const OpenSimOffsetFrame& f : doc.offset_frames) {
    if (builder.hasName(f.name)) {
      notices.push_back("PhysicalOffsetFrame '" + f.name + "' on body '" + f.body +
                        "': the name is taken by a body, joint or marker; it is not a frame of the model");
      continue;
    }
    try {
      builder.addFrame(f.name, f.body, f.X_BF);
    } catch (const InvalidArgument& e) {
      throw ParseError(source, f.line, "PhysicalOffsetFrame '" + f.name + "': " + e.what());
    }
    out.offset_frames.push_back(f);
  }

  // ---- display geometry (bones): visual geoms, never collision ---------------------------------
  const std::string folder = folderOf(source);
  for (const VisualDef& v : doc.visuals) {
    Geom g;
    g.name = v.name;
    g.placement = v.X_BG;
    g.shape = v.shape;
    g.size = v.size;
    g.rgba = v.rgba;
    g.visual = true;
    g.collision = false;
    g.contype = g.conaffinity = 0;
    if (v.shape == GeomShape::Mesh) g.mesh = resolveOpenSimMesh(v.mesh_file, folder).path;
    try {
      builder.addGeom(v.body, g);
    } catch (const InvalidArgument& e) {
      throw ParseError(source, v.line, "geometry '" + v.name + "' of '" + v.body + "': " + e.what());
    }
  }

  // ---- couplers: an enforced affine coupling is also a mimic (an equality row of the model) ----
  for (const CouplerDef& c : doc.couplers) {
    out.couplers.push_back(c.coupler);
    const OpenSimCoupler& k = c.coupler;
    if (!k.enforced) {
      notices.push_back("CoordinateCouplerConstraint '" + k.name + "' is not enforced: recorded only");
      continue;
    }
    if (!k.function.isAffine()) {
      notices.push_back("CoordinateCouplerConstraint '" + k.name + "': " + k.dependent + " = " + k.function.describe() +
                        " of " + k.independent +
                        " is recorded in couplers only (the model's linear rows hold affine "
                        "couplings)");
      continue;
    }
    std::string slope, intercept;
    appendNumber(slope, k.function.slope());
    appendNumber(intercept, k.function.intercept());
    notices.push_back("CoordinateCouplerConstraint '" + k.name + "': " + k.dependent + " = " + slope + "·" +
                      k.independent + " + " + intercept + " is also the model's mimic 'mimic:" + k.dependent + "'");
    try {
      builder.addMimic(k.dependent, k.independent, k.function.slope(), k.function.intercept());
    } catch (const InvalidArgument& e) {
      throw ParseError(source, c.line, "CoordinateCouplerConstraint '" + k.name + "': " + e.what());
    }
  }

  Model model;
  try {
    model = builder.build();
  } catch (const InvalidArgument& e) {
    throw ParseError(source, 0, e.what());
  }
  // Composed placements and shifted inertias can overflow for huge (finite) numbers in the file.
  for (int l = 0; l < model.numLinks(); ++l) {
    const Inertial& in = model.inertial(LinkId(l));
    if (!std::isfinite(in.mass) || !in.com.allFinite() || !in.inertia.allFinite())
      throw ParseError(source, 0,
                       "link '" + model.linkName(LinkId(l)) + "': its inertial is not finite (huge numbers?)");
  }
  for (int f = 0; f < model.numFrames(); ++f) {
    const Transform& X = model.framePlacement(FrameId(f));
    if (!X.p.allFinite() || !X.R.allFinite())
      throw ParseError(source, 0,
                       "frame '" + model.frameName(FrameId(f)) + "': its placement is not finite (huge numbers?)");
  }
  for (int j = 0; j < model.numJoints(); ++j) {
    const Transform& X = model.jointPlacement(JointId(j));
    if (!X.p.allFinite() || !X.R.allFinite())
      throw ParseError(source, 0,
                       "joint '" + model.jointName(JointId(j)) + "': its placement is not finite (huge numbers?)");
  }

  VectorXd defaults = VectorXd::Zero(model.numJoints());
  for (const CoordinateDef& c : doc.coordinates) defaults[model.jointId(c.name).value] = c.default_value;
  if (!finiteKinematics(model, VectorXd::Zero(model.numJoints())) || !finiteKinematics(model, defaults))
    throw ParseError(source, 0,
                     "the model's kinematics overflow at the zero or the default coordinates (huge numbers in the "
                     "file?)");

  for (const CoordinateDef& c : doc.coordinates)
    out.coordinates.push_back({c.name, model.jointId(c.name), c.rotational.value_or(true), c.default_value, c.range_min,
                               c.range_max, c.clamped, c.locked});
  for (OpenSimMarker& m : out.markers) m.frame = model.frameId(m.name);
  for (OpenSimOffsetFrame& f : out.offset_frames) f.frame = model.frameId(f.name);
  out.notices = std::move(notices);
  out.model = std::make_shared<const Model>(std::move(model));
  return out;
}

}  // namespace kinetrack::io::detail::osim
