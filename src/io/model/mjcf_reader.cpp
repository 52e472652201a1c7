// MJCF reader, top level: <compiler>, <option>, <default>, <asset>, <actuator> and the world's
// top-level bodies (the floating or fixed base); the bodies themselves are in mjcf_bodies.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

#include "../table/text_util.hpp"
#include "mesh_path.hpp"
#include "mjcf_reader_impl.hpp"

namespace kinetrack::io {
namespace mjcf {

// ---- top level -----------------------------------------------------------------------------------

void Reader::readCompiler(const Element* e) {
  const Attrs a(xml_, e, mjcf::Xml::mainClass(), "compiler", "<compiler>");
  if (a.has("angle")) {
    const std::string angle = a.text("angle");
    if (angle != "degree" && angle != "radian") a.fail("angle", "'" + angle + "' is not degree or radian");
    compiler_.degree = angle == "degree";
  }
  if (a.has("eulerseq")) {
    const std::string seq = a.text("eulerseq");
    if (seq.size() != 3 || seq.find_first_not_of("xyzXYZ") != std::string::npos)
      a.fail("eulerseq", "'" + seq + "' is not three of x, y, z, X, Y, Z");
    compiler_.eulerseq = seq;
  }
  compiler_.autolimits = a.boolean("autolimits", compiler_.autolimits);
  compiler_.strippath = a.boolean("strippath", compiler_.strippath);
  compiler_.meshdir = a.text("meshdir", compiler_.meshdir);
  compiler_.assetdir = a.text("assetdir", compiler_.assetdir);
  if (a.has("inertiafromgeom")) {
    const std::string v = a.text("inertiafromgeom");
    if (v != "true" && v != "false" && v != "auto") a.fail("inertiafromgeom", "'" + v + "' is not true, false or auto");
    compiler_.inertiafromgeom = v;
  }
  if (a.has("coordinate") && a.text("coordinate") != "local")
    a.fail("coordinate", "'" + a.text("coordinate") + "' is not supported (only local, as in MuJoCo ≥ 2.3.3)");
}

void Reader::readOption(const Element* e) {
  const Attrs a(xml_, e, mjcf::Xml::mainClass(), "option", "<option>");
  if (!a.has("gravity")) return;
  const Vector3d g = a.vec3("gravity", Vector3d::Zero());
  const double n = g.norm();
  if (!std::isfinite(n)) a.fail("gravity", "its length overflows");
  if (n > 0.0) up_ = -g / n;
}

void Reader::readAssets(const Element* e) {
  for (const Element* c : xml_.children(e)) {
    if (is(c, "material")) {
      const Attrs a(xml_, c, xml_.classOf(c, "class", mjcf::Xml::mainClass()), "material", "material");
      const std::vector<double> rgba = a.numbers("rgba", 4, 4);
      if (c->Attribute("name") && !rgba.empty()) materials_[c->Attribute("name")] = Vector4d(rgba.data());
      continue;
    }
    if (!is(c, "mesh")) continue;  // textures, height fields, skins: nothing for the model
    const std::string file = c->Attribute("file") ? c->Attribute("file") : "";
    std::string name = c->Attribute("name") ? c->Attribute("name") : "";
    if (name.empty()) name = std::filesystem::path(file).stem().string();
    if (name.empty()) xml_.fail(c, "<mesh> without a name or a file");
    if (meshes_.count(name)) xml_.fail(c, "duplicate mesh name '" + name + "'");
    const Attrs a(xml_, c, xml_.classOf(c, "class", mjcf::Xml::mainClass()), "mesh", "mesh '" + name + "'");
    MeshAsset m;
    m.scale = a.vec3("scale", Vector3d::Ones());
    if (!file.empty()) {
      const detail::MeshPath p = detail::resolveMjcfMesh(
          file, compiler_.meshdir.empty() ? compiler_.assetdir : compiler_.meshdir, dir_, compiler_.strippath);
      m.path = p.path;
      m.found = p.found;
    }
    meshes_[name] = m;
  }
}

bool Reader::limited(const Attrs& a, const char* flag, const char* range) const {
  const std::optional<mjcf::Value> v = a.get(flag);
  if (v && v->text != "auto") return a.boolean(flag, false);
  if (!a.has(range)) return false;
  if (!compiler_.autolimits)
    a.fail(range, std::string("given without ") + flag +
                      " while the compiler's autolimits is false (set autolimits=\"true\" or " + flag + ")");
  return true;
}

void Reader::readActuators(const Element* e) {
  static const char* const kinds[] = {"motor",  "general",  "position", "velocity", "intvelocity",
                                      "damper", "cylinder", "muscle",   "adhesion"};
  for (const Element* c : xml_.children(e)) {
    if (std::none_of(std::begin(kinds), std::end(kinds), [&](const char* k) { return is(c, k); })) {
      ignore(c);
      continue;
    }
    const std::string name = c->Attribute("name") ? c->Attribute("name") : "";
    const Attrs a(xml_, c, xml_.classOf(c, "class", mjcf::Xml::mainClass()), "actuator",
                  "actuator '" + name + "' <" + c->Name() + ">");
    const std::string joint = a.text("joint");
    if (joint.empty()) continue;  // a tendon, site or body transmission: no joint effort
    actuator_joints_.emplace_back(joint, c);
    double effort = kInf;
    if (limited(a, "forcelimited", "forcerange")) {
      const std::vector<double> r = a.numbers("forcerange", 2, 2);
      effort = std::max(std::abs(r[0]), std::abs(r[1]));
    } else if ((is(c, "motor") || (is(c, "general") && !a.has("gainprm") && !a.has("biastype"))) &&
               limited(a, "ctrllimited", "ctrlrange")) {
      const std::vector<double> r = a.numbers("ctrlrange", 2, 2);
      const std::vector<double> gear = a.numbers("gear", 1, 6);
      effort = std::max(std::abs(r[0]), std::abs(r[1])) * (gear.empty() ? 1.0 : std::abs(gear[0]));
    }
    if (!std::isfinite(effort)) continue;
    auto [it, added] = actuator_effort_.emplace(joint, effort);
    if (!added) it->second = std::max(it->second, effort);
  }
}

Model Reader::read(std::vector<std::string>* warnings) {
  const Element* root = xml_.root();
  model_name_ =
      root->Attribute("model") ? root->Attribute("model") : std::filesystem::path(xml_.sourceName()).stem().string();
  const std::vector<const Element*> top = xml_.children(root);
  for (const Element* e : top)
    if (is(e, "compiler")) readCompiler(e);
  for (const Element* e : top)
    if (is(e, "default")) xml_.readDefaults(e);
  std::vector<const Element*> worldbodies;
  for (const Element* e : top) {
    if (is(e, "compiler") || is(e, "default")) continue;
    if (is(e, "option")) {
      readOption(e);  // its gravity: the model's up
    } else if (is(e, "asset")) {
      readAssets(e);
    } else if (is(e, "worldbody")) {
      worldbodies.push_back(e);
    } else if (!is(e, "actuator")) {
      ignore(e);
    }
  }
  for (const Element* e : top)
    if (is(e, "actuator")) readActuators(e);
  for (const Element* w : worldbodies)
    for (const Element* c : xml_.children(w)) numberBodies(c, 0);
  readWorld(worldbodies);
  for (const auto& [joint, e] : actuator_joints_)
    if (!joints_.count(joint) && !skipped_bodies_)  // a skipped body's joints are unknown
      xml_.fail(e, std::string("actuator <") + e->Name() + ">: joint '" + joint + "' is not a joint of the model");

  Model model;
  build(root, [&] { model = builder_->build(); });
  // Composed placements and merged inertials of huge (finite) numbers can overflow.
  for (int l = 0; l < model.numLinks(); ++l) {
    const Inertial& in = model.inertial(LinkId(l));
    if (!std::isfinite(in.mass) || !in.com.allFinite() || !in.inertia.allFinite())
      xml_.fail(root, "body '" + model.linkName(LinkId(l)) +
                          "': its inertial, merged with its fixed children, is "
                          "not finite (a huge position?)");
  }
  for (int f = 0; f < model.numFrames(); ++f)
    if (!model.framePlacement(FrameId(f)).p.allFinite() || !model.framePlacement(FrameId(f)).R.allFinite())
      xml_.fail(root, "frame '" + model.frameName(FrameId(f)) + "': its placement is not finite (a huge position?)");

  if (warnings) {
    const std::string& src = xml_.sourceName();
    if (!ignored_.empty()) {
      std::string list;
      for (const std::string& n : ignored_) list += (list.empty() ? "" : ", ") + n;
      warnings->push_back(src + ": ignored (no part of the kinematic model): " + list);
    }
    for (const std::string& s : skipped_) warnings->push_back(src + ": " + s);
    if (!no_inertial_.empty()) {
      std::string list;
      for (const std::string& n : no_inertial_) list += (list.empty() ? "" : ", ") + n;
      warnings->push_back(
          src + ": inertiafromgeom=\"" + compiler_.inertiafromgeom + "\": MuJoCo computes the mass of " +
          (no_inertial_.size() == 1 ? "body " : "bodies ") + list + " from their geoms; kinetrack does not: " +
          (compiler_.inertiafromgeom == "true" ? "their <inertial>, if any, is kept" : "they are massless"));
    }
    if (!missing_meshes_.empty())
      warnings->push_back(src + ": " + std::to_string(missing_meshes_.size()) + " of " + std::to_string(mesh_geoms_) +
                          " mesh geoms name files that do not exist (first: " + missing_meshes_.front() +
                          "); their paths are kept");
  }
  return model;
}

// ---- the world ---------------------------------------------------------------------------------

void Reader::numberBodies(const Element* e, int depth) {
  if (!is(e, "frame") && !is(e, "body")) return;
  if (depth > kMaxDepth) xml_.fail(e, "bodies and frames nested more than " + std::to_string(kMaxDepth) + " deep");
  if (is(e, "body")) body_ids_[e] = static_cast<int>(body_ids_.size()) + 1;  // MuJoCo's ids: world 0, depth first
  for (const Element* c : xml_.children(e)) numberBodies(c, depth + 1);
}

void Reader::readWorld(const std::vector<const Element*>& worldbodies) {
  // The top level, through <frame>s: (element, offset, class).
  struct Item {
    const Element* e;
    Transform offset;
    int cls;
  };
  std::vector<Item> items;
  auto collect = [&](auto&& self, const Element* parent, const Transform& offset, int cls) -> void {
    for (const Element* c : xml_.children(parent)) {
      if (is(c, "frame")) {
        const int fc = xml_.classOf(c, "childclass", cls);
        const Attrs a(xml_, c, fc, "frame", "<frame>");
        self(self, c, compose(offset, {a.orientation(compiler_), a.vec3("pos", Vector3d::Zero())}), fc);
      } else {
        items.push_back({c, offset, cls});
      }
    }
  };
  for (const Element* w : worldbodies) collect(collect, w, Transform{}, mjcf::Xml::mainClass());

  const Item* free_body = nullptr;
  for (const Item& it : items) {
    if (!is(it.e, "body")) continue;
    const int cls = xml_.classOf(it.e, "childclass", it.cls);
    const auto kids = xml_.children(it.e);
    if (std::none_of(kids.begin(), kids.end(), [&](const Element* c) { return isFreeJoint(c, cls); })) continue;
    if (free_body) continue;  // skipped below, with the other top-level bodies
    free_body = &it;
  }
  if (free_body) {
    readBody(free_body->e, {}, Transform{}, free_body->cls, true);
  } else {
    builder_ = std::make_unique<ModelBuilder>(model_name_, kWorld, options_.base.value_or(BaseType::Fixed));
    bodies_.insert(kWorld);
  }
  build(xml_.root(), [&] { builder_->setUp(up_.value_or(Vector3d::UnitZ())); });
  auto name = [](const Element* e) { return std::string(e->Attribute("name") ? e->Attribute("name") : ""); };
  auto line = [](const Element* e) { return " (line " + std::to_string(e->GetLineNum()) + ")"; };
  BodyContext world{kWorld, kWorld, 0, 0};
  for (const Item& it : items) {
    if (free_body && it.e == free_body->e) continue;
    if (is(it.e, "body")) {
      if (free_body) {
        skipped_.push_back("top-level body '" + name(it.e) + "'" + line(it.e) + " is not part of the floating body '" +
                           name(free_body->e) + "': skipped, with its subtree");
        skipped_bodies_ = true;
        continue;
      }
      readBody(it.e, kWorld, it.offset, it.cls, false);
    } else if (is(it.e, "geom")) {
      skipped_.push_back("worldbody geom '" + name(it.e) + "'" + line(it.e) + " is on no body: skipped");
    } else if (is(it.e, "site") && free_body) {
      skipped_.push_back("worldbody site '" + name(it.e) + "'" + line(it.e) +
                         " is on no body of the floating model: skipped");
    } else if (is(it.e, "site")) {
      readSite(it.e, world, it.offset, it.cls);
    } else {
      ignore(it.e);
    }
  }
}

namespace {

bool skipSpaceAndComments(const std::string& t, std::size_t& i) {
  for (;;) {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
    if (t.compare(i, 4, "<!--") == 0) {
      const std::size_t end = t.find("-->", i + 4);
      if (end == std::string::npos) return false;
      i = end + 3;
    } else if (t.compare(i, 2, "<?") == 0 || t.compare(i, 2, "<!") == 0) {
      const std::size_t end = t.find('>', i + 2);
      if (end == std::string::npos) return false;
      i = end + 1;
    } else {
      return i < t.size();
    }
  }
}

}  // namespace

}  // namespace mjcf

bool looksLikeMjcf(const std::string& text) {
  std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a UTF-8 byte-order mark
  if (!mjcf::skipSpaceAndComments(text, i) || text.compare(i, 7, "<mujoco") != 0) return false;
  return i + 7 < text.size() &&
         (std::isspace(static_cast<unsigned char>(text[i + 7])) || text[i + 7] == '>' || text[i + 7] == '/');
}

Model parseMjcf(const std::string& xml, const std::string& source_name, const MjcfOptions& options,
                std::vector<std::string>* warnings) {
  mjcf::Reader reader(xml, source_name, options);
  return reader.read(warnings);
}

Model loadMjcf(const std::string& path, const MjcfOptions& options, std::vector<std::string>* warnings) {
  return parseMjcf(detail::readTextFile(path), path, options, warnings);
}

}  // namespace kinetrack::io
