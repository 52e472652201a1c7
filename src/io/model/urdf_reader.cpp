// URDF reader: a tinyxml2 pass validates the document and reports errors with line numbers, then
// urdfdom builds the tree, which is walked root-first into a ModelBuilder.
#include <console_bridge/console.h>
#include <tinyxml2.h>
#include <urdf_parser/urdf_parser.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <queue>
#include <set>
#include <sstream>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "mesh_path.hpp"

namespace kinetrack::io {

namespace {

constexpr double kInfSentinel = std::numeric_limits<double>::max();

double fromSentinel(double v) {
  if (v >= kInfSentinel) return std::numeric_limits<double>::infinity();
  if (v <= -kInfSentinel) return -std::numeric_limits<double>::infinity();
  return v;
}

Transform originOf(const tinyxml2::XMLElement* parent);

// ---- validation pass (tinyxml2, line numbers) ----------------------------------------------

class Validator {
 public:
  Validator(std::string file, std::string dir) : file_(std::move(file)), dir_(std::move(dir)) {}

  [[noreturn]] void fail(const tinyxml2::XMLElement* e, const std::string& msg) const {
    throw ParseError(file_, e ? e->GetLineNum() : 0, msg);
  }

  // Parses "a b c" (exactly n finite numbers) from attribute `attr` of e, if present.
  void numbers(const tinyxml2::XMLElement* e, const char* attr, int n, const std::string& owner) const {
    const char* text = e->Attribute(attr);
    if (!text) return;
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    std::string token;
    int count = 0;
    while (in >> token) {
      ++count;
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(token.c_str(), &end);
      if (end == token.c_str() || *end != '\0')
        fail(e, owner + ": <" + e->Name() + "> " + attr + ": '" + token + "' is not a number");
      if (!std::isfinite(v))
        fail(e, owner + ": <" + e->Name() + "> " + attr + ": '" + token + "' is not a finite number");
    }
    if (count != n)
      fail(e, owner + ": <" + e->Name() + "> " + attr + ": expected " + std::to_string(n) + " numbers, got " +
                  std::to_string(count) + " ('" + text + "')");
  }

  // A name is a table's column and a CSV header: a line break or other control character in it
  // would split the row (and urdfdom's TinyXML reads a CR LF differently from tinyxml2).
  // The message quotes the name up to that character, so that it stays on one line itself.
  void plainName(const tinyxml2::XMLElement* e, const char* kind, const char* name) const {
    for (const char* c = name; *c; ++c)
      if (static_cast<unsigned char>(*c) < 0x20 || *c == 0x7f)
        fail(e, std::string(kind) + " name '" + std::string(name, c) + "…' holds a control character (byte " +
                    std::to_string(static_cast<unsigned char>(*c)) + "); names are printable text");
  }

  // The finite numbers of attribute `attr` (validated by numbers()), or empty when absent.
  std::vector<double> values(const tinyxml2::XMLElement* e, const char* attr, int n, const std::string& owner) const {
    numbers(e, attr, n, owner);
    std::vector<double> v;
    if (const char* text = e->Attribute(attr)) {
      std::istringstream in(text);
      in.imbue(std::locale::classic());
      for (double x = 0.0; in >> x;) v.push_back(x);
    }
    return v;
  }

  // A <visual> or <collision> of link `link` (the k-th of its kind) as a Geom of that link.
  void geometry(const tinyxml2::XMLElement* g, const std::string& link, bool visual, int k) {
    const std::string name = g->Attribute("name") && *g->Attribute("name")
                                 ? g->Attribute("name")
                                 : link + (visual ? "/visual" : "/collision") + std::to_string(k);
    const std::string owner = "link '" + link + "' <" + g->Name() + "> '" + name + "'";
    if (auto* o = g->FirstChildElement("origin")) {
      numbers(o, "xyz", 3, owner);
      numbers(o, "rpy", 3, owner);
    }
    const tinyxml2::XMLElement* geometry = g->FirstChildElement("geometry");
    if (!geometry) fail(g, owner + ": no <geometry>");
    const tinyxml2::XMLElement* s = geometry->FirstChildElement();
    if (!s) fail(geometry, owner + ": <geometry> holds no shape");
    Geom out;
    out.name = name;
    out.placement = originOf(g);
    out.visual = visual;
    out.collision = !visual;
    auto required = [&](const char* attr, int n) {
      if (!s->Attribute(attr)) fail(s, owner + ": <" + s->Name() + "> needs a '" + attr + "' attribute");
      return values(s, attr, n, owner);
    };
    const std::string shape = s->Name();
    if (shape == "box") {
      const std::vector<double> v = required("size", 3);
      out.shape = GeomShape::Box;
      out.size = 0.5 * Vector3d(v[0], v[1], v[2]);
    } else if (shape == "cylinder") {
      out.shape = GeomShape::Cylinder;
      out.size = Vector3d(required("radius", 1)[0], 0.5 * required("length", 1)[0], 0.0);
    } else if (shape == "sphere") {
      out.shape = GeomShape::Sphere;
      out.size = Vector3d(required("radius", 1)[0], 0.0, 0.0);
    } else if (shape == "mesh") {
      out.shape = GeomShape::Mesh;
      const char* file = s->Attribute("filename");
      if (!file || !*file) fail(s, owner + ": <mesh> needs a 'filename' attribute");
      const std::vector<double> scale = values(s, "scale", 3, owner);
      out.size = scale.empty() ? Vector3d::Ones() : Vector3d(scale[0], scale[1], scale[2]);
      out.mesh = detail::resolveUrdfMesh(file, dir_).path;
    } else {
      fail(s, owner + ": unknown geometry <" + shape + "> (URDF has box, cylinder, sphere and mesh)");
    }
    const bool degenerate =
        out.shape == GeomShape::Mesh
            ? (out.size.array() == 0.0).any()
            : (out.size.head(out.shape == GeomShape::Box        ? 3
                             : out.shape == GeomShape::Cylinder ? 2
                                                                : 1)
                   .array() <= 0.0)
                  .any();
    // A shape of zero size is a placeholder (the human-gazebo models' hand COM boxes): no geom,
    // and no warning, as no part of the model is lost.
    if (degenerate) return;
    if (visual)
      if (auto* m = g->FirstChildElement("material")) {
        const tinyxml2::XMLElement* c = m->FirstChildElement("color");
        if (c && c->Attribute("rgba")) {
          const std::vector<double> v = values(c, "rgba", 4, owner);
          out.rgba = Vector4d(v[0], v[1], v[2], v[3]);
        } else if (const char* mn = m->Attribute("name")) {
          if (auto it = materials_.find(mn); it != materials_.end()) out.rgba = it->second;
        }
      }
    geoms_[link].push_back(std::move(out));
  }

  void validate(const tinyxml2::XMLDocument& doc) {
    const tinyxml2::XMLElement* robot = doc.RootElement();
    if (!robot || std::strcmp(robot->Name(), "robot") != 0)
      fail(robot, std::string("root element must be <robot>, found <") + (robot ? robot->Name() : "nothing") + ">");
    if (const tinyxml2::XMLElement* extra = robot->NextSiblingElement())
      fail(extra, std::string("a second top-level element <") + extra->Name() +
                      "> after </robot>: a URDF document holds one <robot>");
    for (auto* m = robot->FirstChildElement("material"); m; m = m->NextSiblingElement("material")) {
      const tinyxml2::XMLElement* c = m->FirstChildElement("color");
      if (!m->Attribute("name") || !c || !c->Attribute("rgba")) continue;
      const std::vector<double> v = values(c, "rgba", 4, std::string("material '") + m->Attribute("name") + "'");
      materials_[m->Attribute("name")] = Vector4d(v[0], v[1], v[2], v[3]);
    }
    for (auto* l = robot->FirstChildElement("link"); l; l = l->NextSiblingElement("link")) {
      const char* name = l->Attribute("name");
      if (!name || !*name) fail(l, "<link> without a name");
      plainName(l, "link", name);
      if (!links_.insert(name).second) fail(l, std::string("duplicate link name '") + name + "'");
      const std::string owner = std::string("link '") + name + "'";
      if (auto* in = l->FirstChildElement("inertial")) {
        if (auto* o = in->FirstChildElement("origin")) {
          numbers(o, "xyz", 3, owner);
          numbers(o, "rpy", 3, owner);
        }
        if (auto* m = in->FirstChildElement("mass")) numbers(m, "value", 1, owner);
        if (auto* i = in->FirstChildElement("inertia"))
          for (const char* a : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}) numbers(i, a, 1, owner);
      }
      int visuals = 0, collisions = 0;
      for (auto* g = l->FirstChildElement(); g; g = g->NextSiblingElement()) {
        const bool visual = std::strcmp(g->Name(), "visual") == 0;
        if (visual || std::strcmp(g->Name(), "collision") == 0)
          geometry(g, name, visual, visual ? visuals++ : collisions++);
      }
    }
    if (links_.empty()) fail(robot, "the robot has no <link>");
    std::set<std::string> joints;
    struct ParentJoint {
      std::string joint, link;  // the joint's name and its parent link
      const tinyxml2::XMLElement* element = nullptr;
    };
    std::map<std::string, ParentJoint> parent_of;  // child link -> its parent joint
    for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
      const char* name = j->Attribute("name");
      if (!name || !*name) fail(j, "<joint> without a name");
      plainName(j, "joint", name);
      const std::string owner = std::string("joint '") + name + "'";
      if (!joints.insert(name).second) fail(j, "duplicate joint name '" + std::string(name) + "'");
      const char* type = j->Attribute("type");
      if (!type) fail(j, owner + ": missing type attribute");
      static const std::set<std::string> supported = {"revolute", "continuous", "prismatic", "fixed"};
      if (!supported.count(type)) {
        if (std::strcmp(type, "floating") == 0 || std::strcmp(type, "planar") == 0)
          fail(j, owner + ": joint type '" + type +
                      "' is not supported (supported: revolute, continuous, prismatic, fixed; the base is made "
                      "floating by the loader option)");
        fail(j, owner + ": unknown joint type '" + type + "' (expected revolute, continuous, prismatic or fixed)");
      }
      auto link_ref = [&](const char* tag) -> std::string {
        auto* e = j->FirstChildElement(tag);
        if (!e || !e->Attribute("link")) fail(e ? e : j, owner + ": missing <" + tag + " link=...>");
        const std::string l = e->Attribute("link");
        if (!links_.count(l)) fail(e, owner + ": " + tag + " link '" + l + "' is not defined in the file");
        return l;
      };
      const std::string parent = link_ref("parent");
      const std::string child = link_ref("child");
      if (parent == child) fail(j, owner + ": parent and child are the same link '" + parent + "'");
      if (parent_of.count(child))
        fail(j, owner + ": link '" + child + "' already has parent joint '" + parent_of[child].joint + "'");
      parent_of[child] = {name, parent, j};
      if (auto* o = j->FirstChildElement("origin")) {
        numbers(o, "xyz", 3, owner);
        numbers(o, "rpy", 3, owner);
      }
      if (auto* a = j->FirstChildElement("axis")) {
        numbers(a, "xyz", 3, owner);
        if (const char* t = a->Attribute("xyz")) {
          std::istringstream in(t);
          double x = 0, y = 0, z = 0;
          in >> x >> y >> z;
          if (std::strcmp(type, "fixed") != 0 && std::abs(x) + std::abs(y) + std::abs(z) < 1e-12)
            fail(a, owner + ": <axis> xyz is the zero vector");
        }
      }
      const bool needs_limit = std::strcmp(type, "revolute") == 0 || std::strcmp(type, "prismatic") == 0;
      auto* lim = j->FirstChildElement("limit");
      if (needs_limit && !lim) fail(j, owner + ": a " + type + " joint needs a <limit> element");
      if (lim) {
        for (const char* a : {"lower", "upper", "velocity", "effort"}) numbers(lim, a, 1, owner);
        if (needs_limit)
          for (const char* a : {"velocity", "effort"})
            if (!lim->Attribute(a)) fail(lim, owner + ": <limit> needs a '" + a + "' attribute");
        const double lo = lim->DoubleAttribute("lower", 0.0), hi = lim->DoubleAttribute("upper", 0.0);
        // Either attribute may be absent (URDF's default 0): never append a null text.
        auto text = [&](const char* a) { return std::string(lim->Attribute(a) ? lim->Attribute(a) : "0 (absent)"); };
        if (needs_limit && lo > hi)
          fail(lim, owner + ": <limit> lower " + text("lower") + " exceeds upper " + text("upper"));
      }
      if (auto* m = j->FirstChildElement("mimic")) {
        if (!m->Attribute("joint")) fail(m, owner + ": <mimic> without a joint attribute");
        numbers(m, "multiplier", 1, owner);
        numbers(m, "offset", 1, owner);
        mimic_lines_[name] = m->GetLineNum();
      }
      joint_lines_[name] = j->GetLineNum();
    }
    for (auto* j = robot->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint"))
      if (auto* m = j->FirstChildElement("mimic"))
        if (!joints.count(m->Attribute("joint")))
          fail(m, std::string("joint '") + j->Attribute("name") + "': <mimic> names unknown joint '" +
                      m->Attribute("joint") + "'");
    std::vector<std::string> roots;
    for (const auto& l : links_)
      if (!parent_of.count(l)) roots.push_back(l);
    if (roots.size() != 1) {
      std::string list;
      for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r;
      fail(robot, roots.empty() ? "the joints form a cycle: no root link"
                                : "the model has " + std::to_string(roots.size()) + " root links (" + list +
                                      "); a URDF must be a single tree");
    }
    // One root and one parent per link can still hide a cycle that never reaches the root
    // (a -> b -> a beside the tree). urdfdom would build it as a ring of shared pointers and
    // leak it (found by fuzzing); every link's chain of parents must end at the root.
    for (const auto& l : links_) {
      std::string at = l;
      for (std::size_t steps = 0; parent_of.count(at); ++steps) {
        if (steps > links_.size())
          fail(parent_of[l].element, "joint '" + parent_of[l].joint + "': link '" + l +
                                         "' is on a cycle of joints that never reaches the root link '" + roots[0] +
                                         "'");
        at = parent_of[at].link;
      }
    }
  }

  const std::map<std::string, int>& mimicLines() const { return mimic_lines_; }
  /// The geoms of each link (link name → its <visual>s and <collision>s in file order).
  const std::map<std::string, std::vector<Geom>>& geoms() const { return geoms_; }

 private:
  std::string file_, dir_;
  std::map<std::string, Vector4d> materials_;
  std::map<std::string, std::vector<Geom>> geoms_;
  std::set<std::string> links_;
  std::map<std::string, int> joint_lines_, mimic_lines_;
};

// ---- urdfdom messages are captured, never printed -------------------------------------------

class CaptureHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) messages += (messages.empty() ? "" : "; ") + text;
  }
  std::string messages;
};

urdf::ModelInterfaceSharedPtr parseWithUrdfdom(const std::string& xml, std::string& messages) {
  static std::mutex mutex;  // console_bridge's handler is process-global
  std::lock_guard lock(mutex);
  CaptureHandler handler;
  console_bridge::useOutputHandler(&handler);
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    handler.messages += std::string(handler.messages.empty() ? "" : "; ") + e.what();
  }
  console_bridge::restorePreviousOutputHandler();
  messages = handler.messages;
  return model;
}

// urdfdom stores rpy as a quaternion; rebuild the matrix from the rpy text for full precision.
Transform originOf(const tinyxml2::XMLElement* parent) {
  Transform t;
  if (!parent) return t;
  const auto* o = parent->FirstChildElement("origin");
  if (!o) return t;
  auto read3 = [](const char* text) {
    Vector3d v = Vector3d::Zero();
    if (!text) return v;
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    in >> v.x() >> v.y() >> v.z();
    return v;
  };
  t.p = read3(o->Attribute("xyz"));
  t.R = so3::fromRpy(read3(o->Attribute("rpy")));
  return t;
}

Inertial toInertial(const urdf::Link& link, const tinyxml2::XMLElement* link_xml) {
  Inertial in;
  if (!link.inertial) return in;
  const auto& i = *link.inertial;
  const Transform X = originOf(link_xml ? link_xml->FirstChildElement("inertial") : nullptr);
  in.mass = i.mass;
  in.com = X.p;
  Matrix3d I;
  I << i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz;
  const Matrix3d rotated = X.R * I * X.R.transpose();
  in.inertia = 0.5 * (rotated + rotated.transpose());  // symmetric to the bit: the writer keeps one triangle
  return in;
}

}  // namespace

Model parseUrdf(const std::string& xml, const std::string& source_name, const UrdfOptions& options,
                std::vector<std::string>* warnings) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source_name, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  Validator validator(source_name, detail::folderOf(source_name));
  validator.validate(doc);

  // urdfdom gets the <robot> element just validated, printed back by tinyxml2, never the original
  // text: its TinyXML reads some malformed documents differently (an XML declaration ends at its
  // first '>' there), and a <robot> hidden from the validator could hold a cycle of joints, which
  // urdfdom builds as a ring of shared pointers and leaks (found by fuzzing).
  tinyxml2::XMLPrinter printer(nullptr, /*compact=*/true);
  doc.RootElement()->Accept(&printer);
  const std::string checked = printer.CStr();
  std::string messages;
  const urdf::ModelInterfaceSharedPtr urdf_model = parseWithUrdfdom(checked, messages);
  if (!urdf_model) throw ParseError(source_name, 0, "urdfdom rejected the model: " + messages);

  std::map<std::string, const tinyxml2::XMLElement*> link_xml, joint_xml;
  for (auto* e = doc.RootElement()->FirstChildElement("link"); e; e = e->NextSiblingElement("link"))
    link_xml[e->Attribute("name")] = e;
  // Joints in file order, grouped by parent link.
  std::vector<std::string> joint_names;
  std::map<std::string, std::vector<int>> joints_of_parent;
  for (auto* e = doc.RootElement()->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
    joint_xml[e->Attribute("name")] = e;
    joints_of_parent[e->FirstChildElement("parent")->Attribute("link")].push_back(static_cast<int>(joint_names.size()));
    joint_names.push_back(e->Attribute("name"));
  }

  const urdf::LinkConstSharedPtr root = urdf_model->getRoot();
  std::vector<const urdf::Joint*> mimic_joints;
  // Model order is file order when the file lists parents before children; otherwise the
  // topological order that stays closest to it (always the earliest joint whose parent is known).
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int k : joints_of_parent[root->name]) ready.push(k);
  std::size_t walked = 0;
  Model model;
  // The builder's InvalidArgument (the root's inertial, a joint, the build) is a ParseError of
  // this file.
  try {
    ModelBuilder builder(urdf_model->getName(), root->name, options.base, toInertial(*root, link_xml[root->name]));
    // A link's <visual>s and <collision>s, on the link or, once merged, on its parent's link.
    auto add_geoms = [&](const std::string& link) {
      if (auto it = validator.geoms().find(link); it != validator.geoms().end())
        for (const Geom& g : it->second) builder.addGeom(link, g);
    };
    add_geoms(root->name);
    while (!ready.empty()) {
      const int k = ready.top();
      ready.pop();
      ++walked;
      const std::string& name = joint_names[static_cast<std::size_t>(k)];
      const urdf::JointConstSharedPtr joint = urdf_model->getJoint(name);
      const urdf::LinkConstSharedPtr link = joint ? urdf_model->getLink(joint->child_link_name) : nullptr;
      // urdfdom's TinyXML turns a CRLF inside an attribute into LF, tinyxml2 does not: a name
      // can differ between the two. Never dereference null.
      if (!link || link->parent_joint != joint)
        throw ParseError(source_name, 0,
                         "joint '" + name + "': urdfdom does not read it as tinyxml2 does (a line break in a name?)");
      for (int c : joints_of_parent[link->name]) ready.push(c);
      const urdf::Joint& j = *link->parent_joint;
      const Transform X = originOf(joint_xml[j.name]);
      const Inertial inertial = toInertial(*link, link_xml[link->name]);
      if (j.type == urdf::Joint::FIXED) {
        builder.addFixedLink(link->name, j.parent_link_name, X, inertial, j.name);
        add_geoms(link->name);
        continue;
      }
      JointSpec s;
      s.name = j.name;
      s.type = j.type == urdf::Joint::PRISMATIC    ? JointType::Prismatic
               : j.type == urdf::Joint::CONTINUOUS ? JointType::Continuous
                                                   : JointType::Revolute;
      s.parent = j.parent_link_name;
      s.child = link->name;
      s.placement = X;
      s.axis = Vector3d(j.axis.x, j.axis.y, j.axis.z);
      // Finite entries can overflow the norm ("1e200 1 0"), which the builder's normalisation
      // would turn into a zero axis: scale such an axis first.
      if (!std::isfinite(s.axis.squaredNorm())) s.axis = s.axis.stableNormalized();
      if (j.limits) {
        if (s.type != JointType::Continuous) {
          s.lower = fromSentinel(j.limits->lower);
          s.upper = fromSentinel(j.limits->upper);
        }
        // urdfdom defaults a missing velocity/effort (allowed on continuous joints) to 0: no limit.
        auto* lim = joint_xml[j.name]->FirstChildElement("limit");
        s.velocity = lim->Attribute("velocity") ? fromSentinel(j.limits->velocity) : s.velocity;
        s.effort = lim->Attribute("effort") ? fromSentinel(j.limits->effort) : s.effort;
      }
      s.child_inertial = inertial;
      builder.addJoint(s);
      add_geoms(link->name);
      if (j.mimic) mimic_joints.push_back(&j);
    }
    // A cycle apart from the root's tree passes the one-root check; its joints are never reached.
    if (walked != joint_names.size())
      throw ParseError(source_name, 0,
                       std::to_string(joint_names.size() - walked) + " of " + std::to_string(joint_names.size()) +
                           " joints are not reachable from the root link '" + root->name +
                           "' (the joints form a cycle?)");
    for (const urdf::Joint* j : mimic_joints) {
      builder.addMimic(j->name, j->mimic->joint_name, j->mimic->multiplier, j->mimic->offset);
      if (warnings) {
        const auto line = validator.mimicLines().find(j->name);
        warnings->push_back(source_name + ":" +
                            std::to_string(line == validator.mimicLines().end() ? 0 : line->second) + ": joint '" +
                            j->name + "' mimics '" + j->mimic->joint_name +
                            "': kept as an independent coordinate plus an equality constraint 'mimic:" + j->name + "'");
      }
    }
    model = builder.build();
  } catch (const InvalidArgument& e) {
    throw ParseError(source_name, 0, e.what());
  }
  // Merging fixed links composes placements and shifts inertias: finite but huge numbers in the
  // file (an origin of 1e200 m) can overflow there.
  for (int l = 0; l < model.numLinks(); ++l) {
    const Inertial& in = model.inertial(LinkId(l));
    if (!std::isfinite(in.mass) || !in.com.allFinite() || !in.inertia.allFinite())
      throw ParseError(source_name, 0,
                       "link '" + model.linkName(LinkId(l)) +
                           "': its inertial, merged with its fixed children, is not finite (a huge origin?)");
  }
  for (int j = 0; j < model.numJoints(); ++j)
    if (!model.jointPlacement(JointId(j)).p.allFinite() || !model.jointPlacement(JointId(j)).R.allFinite())
      throw ParseError(source_name, 0,
                       "joint '" + model.jointName(JointId(j)) + "': its placement is not finite (a huge origin?)");
  for (int f = 0; f < model.numFrames(); ++f)
    if (!model.framePlacement(FrameId(f)).p.allFinite() || !model.framePlacement(FrameId(f)).R.allFinite())
      throw ParseError(source_name, 0,
                       "frame '" + model.frameName(FrameId(f)) + "': its placement is not finite (a huge origin?)");
  return model;
}

Model loadUrdf(const std::string& path, const UrdfOptions& options, std::vector<std::string>* warnings) {
  return parseUrdf(detail::readTextFile(path), path, options, warnings);
}

}  // namespace kinetrack::io
