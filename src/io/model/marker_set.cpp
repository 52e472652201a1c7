// Marker sets: JSON parsing (nlohmann-json), the built-in sets embedded from
// maps/markersets/*.json (maps/marker_sets.cmake), scaling, and attaching the markers to a model.
#include "kinetrack/io/model/marker_set.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "../table/text_util.hpp"
#include "json_error.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io {

namespace detail {
// Defined in the generated marker_sets_builtin.cpp (one entry per maps/markersets/*.json).
extern const std::size_t kBuiltinMarkerSetCount;
extern const char* const kBuiltinMarkerSetFiles[];
extern const char* const kBuiltinMarkerSetJson[];
}  // namespace detail

namespace {

using Json = nlohmann::ordered_json;

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Where each field of a (valid) JSON text starts: a key's byte for object members ("markers",
// "markers[2].offset") and an element's byte for array elements ("markers[2]"). nlohmann-json
// keeps no positions, so this scanner walks the text once more after it parsed; it also finds
// the first duplicate key, which nlohmann-json silently drops.
class Positions {
 public:
  explicit Positions(const std::string& text) : t_(text) { value(""); }

  [[nodiscard]] const std::string& duplicate() const { return duplicate_; }
  [[nodiscard]] std::size_t duplicateByte() const { return duplicate_byte_; }
  /// Byte of `path`, else of its closest recorded ancestor, else npos.
  [[nodiscard]] std::size_t find(std::string path) const {
    while (!path.empty()) {
      if (const auto it = at_.find(path); it != at_.end()) return it->second;
      const std::size_t cut = path.find_last_of(".[");
      path = cut == std::string::npos ? std::string() : path.substr(0, cut);
    }
    return std::string::npos;
  }

 private:
  void ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  std::string string() {  // at the opening quote; returns the decoded text
    const std::size_t start = p_++;
    while (p_ < t_.size() && t_[p_] != '"') p_ += t_[p_] == '\\' ? 2 : 1;
    ++p_;
    return Json::parse(t_.substr(start, p_ - start)).get<std::string>();
  }
  void value(const std::string& path) {
    ws();
    if (p_ >= t_.size()) return;
    const char c = t_[p_];
    if (c == '{') {
      ++p_;
      std::set<std::string> seen;
      for (ws(); p_ < t_.size() && t_[p_] != '}';) {
        const std::size_t key_byte = p_;
        const std::string key = string();
        const std::string sub = path.empty() ? key : path + "." + key;
        if (!seen.insert(key).second && duplicate_.empty()) {
          duplicate_ = sub;
          duplicate_byte_ = key_byte;
        }
        at_.emplace(sub, key_byte);
        ws();
        ++p_;  // ':'
        value(sub);
        ws();
        if (p_ < t_.size() && t_[p_] == ',') ++p_, ws();
      }
      ++p_;
    } else if (c == '[') {
      ++p_;
      int i = 0;
      for (ws(); p_ < t_.size() && t_[p_] != ']'; ++i) {
        const std::string sub = path + "[" + std::to_string(i) + "]";
        ws();
        at_.emplace(sub, p_);
        value(sub);
        ws();
        if (p_ < t_.size() && t_[p_] == ',') ++p_, ws();
      }
      ++p_;
    } else if (c == '"') {
      string();
    } else {
      while (p_ < t_.size() && std::string_view(",]} \t\r\n").find(t_[p_]) == std::string_view::npos) ++p_;
    }
  }

  const std::string& t_;
  std::size_t p_ = 0;
  std::map<std::string, std::size_t> at_;
  std::string duplicate_;
  std::size_t duplicate_byte_ = 0;
};

class Doc {
 public:
  Doc(const std::string& text, std::string source) : text_(text), source_(std::move(source)) {}
  void scan() { positions_.emplace(text_); }
  [[nodiscard]] const Positions& positions() const { return *positions_; }
  [[nodiscard]] int lineAt(std::size_t byte) const {
    if (byte == std::string::npos) return 0;
    return 1 + static_cast<int>(std::count(
                   text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text_.size())), '\n'));
  }
  [[noreturn]] void fail(const std::string& field, const std::string& msg) const {
    const int line = positions_ ? lineAt(positions_->find(field)) : 0;
    throw ParseError(source_, line, "field '" + field + "': " + msg);
  }
  [[noreturn]] void failAt(int line, const std::string& msg) const { throw ParseError(source_, line, msg); }

 private:
  const std::string& text_;
  std::string source_;
  std::optional<Positions> positions_;
};

double finiteNumber(const Doc& d, const std::string& field, const Json& v) {
  if (!v.is_number()) d.fail(field, std::string("must be a number, got ") + v.type_name());
  const double x = v.get<double>();
  if (!std::isfinite(x)) d.fail(field, "is not a finite number");
  return x;
}

std::string nonEmptyString(const Doc& d, const std::string& field, const Json& v) {
  if (!v.is_string()) d.fail(field, std::string("must be a non-empty string, got ") + v.type_name());
  std::string s = v.get<std::string>();
  if (s.empty()) d.fail(field, "must be a non-empty string");
  return s;
}

Json parseJson(const Doc& d, const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    const detail::JsonErrorPlace place = detail::jsonErrorPlace(e, text);
    d.failAt(place.known ? d.lineAt(place.byte) : 0, "invalid JSON: " + place.message);
  }
}

// The links of a built-in model, or nothing for another model name.
std::optional<std::set<std::string>> builtinLinks(const std::string& model) {
  const auto& names = builtinModelNames();
  if (std::find(names.begin(), names.end(), model) == names.end()) return std::nullopt;
  const std::vector<std::string> links = makeBuiltinModel(model).linkNames();
  return std::set<std::string>(links.begin(), links.end());
}

MarkerSetMarker parseMarker(const Doc& d, const std::string& field, const Json& m,
                            const std::optional<std::set<std::string>>& links, const std::string& model) {
  if (!m.is_object()) d.fail(field, std::string("expected a marker object, got ") + m.type_name());
  static const std::set<std::string> kKeys = {"name", "link", "offset", "weight", "fixed"};
  for (const auto& [key, value] : m.items())
    if (!kKeys.contains(key)) d.fail(field + "." + key, "unknown key (expected name, link, offset, weight, fixed)");
  for (const char* key : {"name", "link", "offset"})
    if (!m.contains(key)) d.fail(field, std::string("missing '") + key + "'");
  MarkerSetMarker out;
  out.name = nonEmptyString(d, field + ".name", m["name"]);
  out.link = nonEmptyString(d, field + ".link", m["link"]);
  if (links && !links->contains(out.link)) {
    std::vector<std::string> valid;
    for (const auto& l : *links)
      if (l.find("_f") == std::string::npos) valid.push_back(l);  // the segments, not the dummy links
    d.fail(field + ".link", "marker '" + out.name + "': '" + out.link + "' is not a link of " + model +
                                " (links: " + joinNames(valid) + ")");
  }
  const Json& offset = m["offset"];
  if (!offset.is_array() || offset.size() != 3)
    d.fail(field + ".offset", "marker '" + out.name + "': expected an array of 3 numbers (m)");
  for (int k = 0; k < 3; ++k)
    out.offset[k] = finiteNumber(d, field + ".offset[" + std::to_string(k) + "]", offset[static_cast<std::size_t>(k)]);
  if (m.contains("weight")) {
    out.weight = finiteNumber(d, field + ".weight", m["weight"]);
    if (out.weight < 0.0) d.fail(field + ".weight", "marker '" + out.name + "': weight must be ≥ 0");
  }
  if (m.contains("fixed")) {
    if (!m["fixed"].is_boolean())
      d.fail(field + ".fixed", std::string("must be true or false, got ") + m["fixed"].type_name());
    out.fixed = m["fixed"].get<bool>();
  }
  return out;
}

}  // namespace

int MarkerSet::find(const std::string& marker) const {
  for (std::size_t i = 0; i < markers.size(); ++i)
    if (markers[i].name == marker) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> MarkerSet::names() const {
  std::vector<std::string> v;
  for (const auto& m : markers) v.push_back(m.name);
  return v;
}

MarkerSet parseMarkerSet(const std::string& json_text, const std::string& source) {
  Doc d(json_text, source);
  const Json j = parseJson(d, json_text);
  d.scan();
  if (!d.positions().duplicate().empty()) {
    const std::string& dup = d.positions().duplicate();
    throw ParseError(source, d.lineAt(d.positions().duplicateByte()), "field '" + dup + "': duplicate key");
  }
  if (!j.is_object()) d.failAt(1, std::string("expected a JSON object at the top level, got ") + j.type_name());
  static const std::set<std::string> kKeys = {"name", "description", "model", "reference_height", "markers"};
  for (const auto& [key, value] : j.items())
    if (!kKeys.contains(key)) d.fail(key, "unknown key (expected name, description, model, reference_height, markers)");

  MarkerSet set;
  if (!j.contains("name")) d.failAt(0, "field 'name': missing (a non-empty string)");
  set.name = nonEmptyString(d, "name", j["name"]);
  if (j.contains("description")) {
    if (!j["description"].is_string())
      d.fail("description", std::string("must be a string, got ") + j["description"].type_name());
    set.description = j["description"].get<std::string>();
  }
  if (j.contains("model")) set.model = nonEmptyString(d, "model", j["model"]);
  if (j.contains("reference_height")) {
    set.reference_height = finiteNumber(d, "reference_height", j["reference_height"]);
    if (!(set.reference_height > 0.0)) d.fail("reference_height", "must be > 0 (m)");
  }
  if (!j.contains("markers")) d.failAt(0, "field 'markers': missing (an array of marker objects)");
  const Json& markers = j["markers"];
  if (!markers.is_array() || markers.empty())
    d.fail("markers", std::string("expected a non-empty array of marker objects, got ") +
                          (markers.is_array() ? "an empty array" : markers.type_name()));
  const auto links = builtinLinks(set.model);
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const std::string field = "markers[" + std::to_string(i) + "]";
    MarkerSetMarker m = parseMarker(d, field, markers[i], links, set.model);
    if (const auto it = first.find(m.name); it != first.end())
      d.fail(field + ".name",
             "duplicate marker name '" + m.name + "' (also markers[" + std::to_string(it->second) + "])");
    first.emplace(m.name, i);
    set.markers.push_back(std::move(m));
  }
  return set;
}

MarkerSet readMarkerSet(const std::string& path) { return parseMarkerSet(detail::readTextFile(path), path); }

namespace {

const std::vector<MarkerSet>& builtins() {
  static const std::vector<MarkerSet> sets = [] {
    std::vector<MarkerSet> v;
    for (std::size_t i = 0; i < detail::kBuiltinMarkerSetCount; ++i)
      v.push_back(
          parseMarkerSet(detail::kBuiltinMarkerSetJson[i], std::string("maps/") + detail::kBuiltinMarkerSetFiles[i]));
    std::sort(v.begin(), v.end(), [](const MarkerSet& a, const MarkerSet& b) { return a.name < b.name; });
    return v;
  }();
  return sets;
}

}  // namespace

std::vector<std::string> builtinMarkerSetNames() {
  std::vector<std::string> names;
  for (const auto& s : builtins()) names.push_back(s.name);
  return names;
}

MarkerSet builtinMarkerSet(const std::string& name) {
  for (const auto& s : builtins())
    if (s.name == name) return s;
  throw InvalidArgument("unknown built-in marker set '" + name + "' (built-in: " + joinNames(builtinMarkerSetNames()) +
                        ")");
}

MarkerSet scaledMarkerSet(const MarkerSet& set, double height) {
  if (!(std::isfinite(height) && height > 0.0))
    throw InvalidArgument("scaledMarkerSet: height must be finite and > 0, got " + std::to_string(height));
  MarkerSet out = set;
  if (set.reference_height > 0.0) {
    const double f = height / set.reference_height;
    for (auto& m : out.markers) m.offset *= f;
    out.reference_height = height;
  }
  return out;
}

Model withMarkers(const Model& model, const MarkerSet& set) {
  ModelBuilder b(model);
  std::set<std::string> seen;
  for (const auto& m : set.markers) {
    if (!seen.insert(m.name).second)
      throw InvalidArgument("marker set '" + set.name + "': marker '" + m.name + "' appears twice");
    if (!model.findLink(m.link))
      throw InvalidArgument("marker set '" + set.name + "': marker '" + m.name + "': '" + m.link +
                            "' is not a link of model '" + model.name() + "' (links: " + joinNames(model.linkNames()) +
                            ")");
    if (b.hasName(m.name))
      throw InvalidArgument("marker set '" + set.name + "': marker '" + m.name +
                            "' has the name of a link or frame of model '" + model.name() + "'");
    if (!m.offset.allFinite())
      throw InvalidArgument("marker set '" + set.name + "': marker '" + m.name + "': offset is not finite");
    Transform X;
    X.p = m.offset;
    b.addFrame(m.name, m.link, X);
  }
  return b.build();
}

}  // namespace kinetrack::io
