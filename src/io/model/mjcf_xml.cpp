#include "mjcf_xml.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numbers>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "mesh_path.hpp"

namespace kinetrack::io::mjcf {

namespace {

// MuJoCo's defaults of every actuator shortcut (<motor>, <position>, …) are one actuator default.
std::string defaultKind(const char* element) {
  static const char* const actuators[] = {"motor",  "general",  "position", "velocity", "intvelocity",
                                          "damper", "cylinder", "muscle",   "adhesion"};
  for (const char* a : actuators)
    if (std::strcmp(element, a) == 0) return "actuator";
  return element;
}

void parseDocument(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& file) {
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(file, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  const Element* root = doc.RootElement();
  if (!root || std::strcmp(root->Name(), "mujoco") != 0)
    throw ParseError(file, root ? root->GetLineNum() : 0,
                     std::string("root element must be <mujoco>, found <") + (root ? root->Name() : "nothing") + ">");
  if (const Element* extra = root->NextSiblingElement())
    throw ParseError(file, extra->GetLineNum(),
                     std::string("a second top-level element <") + extra->Name() +
                         "> after </mujoco>: an MJCF document holds one <mujoco>");
}

}  // namespace

double Compiler::angle(double v) const { return degree ? v * (std::numbers::pi / 180.0) : v; }

// ---- documents -------------------------------------------------------------------------------

Xml::Xml(const std::string& text, std::string source_name)
    : source_(std::move(source_name)), main_(std::make_unique<tinyxml2::XMLDocument>()) {
  parseDocument(*main_, text, source_);
  files_[main_.get()] = source_;
  classes_.push_back({"main", {}});
  class_index_["main"] = 0;
}

const std::string& Xml::fileOf(const Element* e) const {
  if (e) {
    const auto it = files_.find(e->GetDocument());
    if (it != files_.end()) return it->second;
  }
  return source_;
}

void Xml::fail(const Element* e, const std::string& message) const {
  throw ParseError(fileOf(e), e ? e->GetLineNum() : 0, message);
}

const tinyxml2::XMLDocument* Xml::load(const std::string& path, const Element* include) {
  if (auto it = included_.find(path); it != included_.end()) return it->second.get();
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    fail(include, "<include file>: '" + path + "' is not a regular file");
  std::string text;
  try {
    text = detail::readTextFile(path);
  } catch (const ParseError& e) {
    fail(include, "<include file>: cannot read '" + path + "': " + e.message());
  }
  auto doc = std::make_unique<tinyxml2::XMLDocument>();
  parseDocument(*doc, text, path);
  files_[doc.get()] = path;
  return (included_[path] = std::move(doc)).get();
}

void Xml::expand(const Element* e, std::vector<const Element*>& out, int depth) {
  for (const Element* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "include") != 0) {
      out.push_back(c);
      continue;
    }
    const char* file = c->Attribute("file");
    if (!file || !*file) fail(c, "<include> without a file attribute");
    const std::filesystem::path f(file);
    const std::string path = f.is_absolute()
                                 ? f.string()
                                 : (std::filesystem::path(detail::folderOf(source_)) / f).lexically_normal().string();
    if (std::find(include_stack_.begin(), include_stack_.end(), path) != include_stack_.end() || depth > 16)
      fail(c, "<include file=\"" + std::string(file) + "\">: the file includes itself (directly or not)");
    const tinyxml2::XMLDocument* doc = load(path, c);
    include_stack_.push_back(path);
    expand(doc->RootElement(), out, depth + 1);
    include_stack_.pop_back();
  }
}

std::vector<const Element*> Xml::children(const Element* e) {
  std::vector<const Element*> out;
  expand(e, out, 0);
  return out;
}

// ---- defaults --------------------------------------------------------------------------------

void Xml::readDefaults(const Element* e) {
  if (const char* c = e->Attribute("class"); c && std::strcmp(c, "main") != 0)
    fail(e, std::string("the top-level <default> is class 'main', not '") + c + "'");
  readClass(e, -1);
}

void Xml::readClass(const Element* e, int parent) {
  int id = 0;
  if (parent >= 0) {
    const char* name = e->Attribute("class");
    if (!name || !*name) fail(e, "a nested <default> needs a class attribute");
    if (class_index_.count(name)) fail(e, std::string("duplicate default class '") + name + "'");
    id = static_cast<int>(classes_.size());
    classes_.push_back({name, classes_[static_cast<std::size_t>(parent)].attributes});
    class_index_[name] = id;
  }
  for (const Element* c : children(e)) {
    if (std::strcmp(c->Name(), "default") == 0) continue;
    auto& attrs = classes_[static_cast<std::size_t>(id)].attributes[defaultKind(c->Name())];
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) {
      std::string text = a->Value();
      // MuJoCo reads a size over the inherited one: "0.02" over "0.01 0.02 0.03" is "0.02 0.02 0.03".
      if (const auto old = attrs.find(a->Name()); old != attrs.end() && std::strcmp(a->Name(), "size") == 0) {
        const std::vector<std::string> mine = detail::words(text), theirs = detail::words(old->second.text);
        for (std::size_t k = mine.size(); k < theirs.size(); ++k) text += " " + theirs[k];
      }
      attrs[a->Name()] = {text, c};
    }
  }
  for (const Element* c : children(e))
    if (std::strcmp(c->Name(), "default") == 0) readClass(c, id);
}

int Xml::classOf(const Element* e, const char* attr, int inherited) const {
  const char* name = e->Attribute(attr);
  if (!name) return inherited;
  const auto it = class_index_.find(name);
  if (it == class_index_.end()) {
    std::string known;
    for (const auto& c : classes_) known += (known.empty() ? "" : ", ") + c.name;
    fail(e,
         std::string("<") + e->Name() + "> " + attr + ": unknown default class '" + name + "' (known: " + known + ")");
  }
  return it->second;
}

std::optional<Value> Xml::lookup(const Element* e, int cls, const std::string& kind, const char* name) const {
  if (const char* v = e ? e->Attribute(name) : nullptr) return Value{v, e};
  const auto& attrs = classes_[static_cast<std::size_t>(cls)].attributes;
  const auto k = attrs.find(kind);
  if (k == attrs.end()) return std::nullopt;
  const auto a = k->second.find(name);
  if (a == k->second.end()) return std::nullopt;
  return a->second;
}

bool Xml::classHas(int cls, const std::string& kind, const char* name) const {
  const auto& attrs = classes_[static_cast<std::size_t>(cls)].attributes;
  const auto k = attrs.find(kind);
  return k != attrs.end() && k->second.count(name);
}

// ---- typed attributes ------------------------------------------------------------------------

void Attrs::fail(const char* name, const std::string& message) const {
  const std::optional<Value> v = get(name);
  xml_.fail(v ? v->where : e_, owner_ + ": " + name + ": " + message);
}

std::string Attrs::text(const char* name, const std::string& fallback) const {
  const std::optional<Value> v = get(name);
  return v ? v->text : fallback;
}

std::vector<double> Attrs::parse(const Value& v, const char* name, int min, int max) const {
  std::vector<double> out;
  auto bad = [&](const std::string& message) { xml_.fail(v.where, owner_ + ": " + name + ": " + message); };
  for (const std::string& token : detail::words(v.text)) {
    double x = 0.0;
    if (!detail::parseNumber(token, x)) bad("'" + token + "' is not a number");
    if (!std::isfinite(x)) bad("'" + token + "' is not a finite number");
    out.push_back(x);
  }
  const int n = static_cast<int>(out.size());
  if (n < min || n > max)
    bad("expected " + (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)) +
        " numbers, got " + std::to_string(n) + " ('" + v.text + "')");
  return out;
}

std::vector<double> Attrs::numbers(const char* name, int min, int max) const {
  const std::optional<Value> v = get(name);
  return v ? parse(*v, name, min, max) : std::vector<double>{};
}

std::vector<double> Attrs::numbersOverClass(const char* name, int max) const {
  std::vector<double> own = numbers(name, 0, max);
  if (!e_->Attribute(name) || static_cast<int>(own.size()) >= max) return own;
  if (const std::optional<Value> c = xml_.lookup(nullptr, cls_, kind_, name)) {
    const std::vector<double> inherited = parse(*c, name, 0, max);
    for (std::size_t k = own.size(); k < inherited.size(); ++k) own.push_back(inherited[k]);
  }
  return own;
}

double Attrs::number(const char* name, double fallback) const {
  const std::vector<double> v = numbers(name, 1, 1);
  return v.empty() ? fallback : v[0];
}

Vector3d Attrs::vec3(const char* name, const Vector3d& fallback) const {
  const std::vector<double> v = numbers(name, 3, 3);
  return v.empty() ? fallback : Vector3d(v[0], v[1], v[2]);
}

bool Attrs::boolean(const char* name, bool fallback) const {
  const std::optional<Value> v = get(name);
  if (!v) return fallback;
  if (v->text == "true") return true;
  if (v->text == "false") return false;
  fail(name, "'" + v->text + "' is not true or false");
}

bool Attrs::tristate(const char* name, bool when_auto) const {
  const std::optional<Value> v = get(name);
  if (!v || v->text == "auto") return when_auto;
  return boolean(name, when_auto);
}

long Attrs::integer(const char* name, long fallback, long min, long max) const {
  const std::optional<Value> v = get(name);
  if (!v) return fallback;
  const std::vector<std::string> w = detail::words(v->text);
  long x = 0;
  if (w.size() != 1) fail(name, "expected one integer, got '" + v->text + "'");
  const char* b = w[0].data();
  const char* end = b + w[0].size();
  const auto r = std::from_chars(b, end, x);
  if (r.ec != std::errc() || r.ptr != end) fail(name, "'" + w[0] + "' is not an integer");
  if (x < min || x > max)
    fail(name, std::to_string(x) + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return x;
}

Matrix3d zAxisRotation(const Vector3d& v) {
  const Vector3d n = v.normalized();
  Vector3d axis = Vector3d::UnitZ().cross(n);
  const double s = axis.norm();
  if (s < 1e-15) return n.z() < 0.0 ? Matrix3d(Vector3d(1.0, -1.0, -1.0).asDiagonal()) : Matrix3d::Identity();
  axis /= s;
  return so3::axisAngle(axis, std::atan2(s, n.z()));
}

Matrix3d Attrs::orientation(const Compiler& compiler) const {
  static const char* const forms[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  // The element's own orientation wins over its class's; two on one level is an error, as in MuJoCo.
  const char* form = nullptr;
  for (bool own : {true, false}) {
    for (const char* f : forms) {
      const bool given = own ? e_->Attribute(f) != nullptr : xml_.classHas(cls_, kind_, f);
      if (!given) continue;
      if (form) fail(f, std::string("the orientation is given twice (") + form + " and " + f + ")");
      form = f;
    }
    if (form) break;
  }
  if (!form) return Matrix3d::Identity();
  auto degenerate = [&](const char* what) { fail(form, std::string(what) + " has zero (or overflowing) length"); };
  const std::string f = form;
  if (f == "quat") {
    const std::vector<double> q = numbers(form, 4, 4);
    const Eigen::Vector4d w(q[0], q[1], q[2], q[3]);
    if (!(w.norm() > 1e-15) || !std::isfinite(w.norm())) degenerate("the quaternion");
    return so3::fromQuaternionWxyz(w);
  }
  if (f == "axisangle") {
    const std::vector<double> a = numbers(form, 4, 4);
    const Vector3d axis(a[0], a[1], a[2]);
    if (!(axis.norm() > 1e-15) || !std::isfinite(axis.norm())) degenerate("the axis");
    return so3::axisAngle(axis.normalized(), compiler.angle(a[3]));
  }
  if (f == "euler") {
    const std::vector<double> e = numbers(form, 3, 3);
    Matrix3d R = Matrix3d::Identity();
    for (int i = 0; i < 3; ++i) {
      const char c = compiler.eulerseq[static_cast<std::size_t>(i)];
      const int k = std::tolower(static_cast<unsigned char>(c)) - 'x';
      const Matrix3d Ri = so3::axisAngle(Vector3d::Unit(k), compiler.angle(e[static_cast<std::size_t>(i)]));
      R = std::islower(static_cast<unsigned char>(c)) ? Matrix3d(R * Ri) : Matrix3d(Ri * R);
    }
    return R;
  }
  if (f == "xyaxes") {
    const std::vector<double> a = numbers(form, 6, 6);
    Vector3d x(a[0], a[1], a[2]), y(a[3], a[4], a[5]);
    if (!(x.norm() > 1e-15) || !std::isfinite(x.norm())) degenerate("the x axis");
    x.normalize();
    y -= x * x.dot(y);
    if (!(y.norm() > 1e-15) || !std::isfinite(y.norm())) degenerate("the y axis (orthogonal to x)");
    y.normalize();
    Matrix3d R;
    R << x, y, x.cross(y);
    return R;
  }
  const Vector3d z = vec3(form, Vector3d::UnitZ());
  if (!(z.norm() > 1e-15) || !std::isfinite(z.norm())) degenerate("the z axis");
  return zAxisRotation(z);
}

}  // namespace kinetrack::io::mjcf
