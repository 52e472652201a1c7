// Segment maps: JSON parsing (nlohmann-json), the built-in maps embedded from maps/*.json
// (maps/segment_maps.cmake), detection, and resolution against a clip's segment names. The
// name-based automatic mapper (autoSegmentMap) is in segment_name_match.cpp.
#include "kinetrack/io/model/segment_map.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "../table/text_util.hpp"
#include "json_error.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::io {

namespace detail {
// Defined in the generated segment_maps_builtin.cpp (one entry per maps/*.json, then nullptr).
extern const std::size_t kBuiltinSegmentMapCount;
extern const char* const kBuiltinSegmentMapFiles[];
extern const char* const kBuiltinSegmentMapJson[];
extern const std::size_t kBuiltinRobotMapCount;
extern const char* const kBuiltinRobotMapFiles[];
extern const char* const kBuiltinRobotMapJson[];
}  // namespace detail

namespace {

using Json = nlohmann::ordered_json;  // keeps the file's key order

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const char* typeName(const Json& j) { return j.type_name(); }

// Error reporting for one JSON text: a field is a path of keys; its line is found by searching
// the text for each key in turn ("key" followed by ':'), after the previous one. nlohmann-json
// keeps no positions for values, so this is the line of the key, or 0 when it is not found.
class Doc {
 public:
  Doc(const std::string& text, std::string source) : text_(text), source_(std::move(source)) {}

  [[nodiscard]] int line(const std::vector<std::string>& keys, int occurrence = 1) const {
    std::size_t pos = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const int times = k + 1 == keys.size() ? occurrence : 1;
      for (int t = 0; t < times; ++t) {
        pos = findKey(keys[k], t == 0 && k == 0 ? 0 : pos + 1);
        if (pos == std::string::npos) return 0;
      }
    }
    return lineAt(pos);
  }
  [[nodiscard]] int lineAt(std::size_t byte) const {
    return 1 + static_cast<int>(std::count(
                   text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text_.size())), '\n'));
  }
  [[noreturn]] void fail(const std::vector<std::string>& keys, const std::string& msg, int occurrence = 1) const {
    std::string field;
    for (const auto& k : keys) field += (field.empty() ? "" : ".") + k;
    throw ParseError(source_, line(keys, occurrence), "field '" + field + "': " + msg);
  }
  [[noreturn]] void failAt(int line, const std::string& msg) const { throw ParseError(source_, line, msg); }

 private:
  [[nodiscard]] std::size_t findKey(const std::string& key, std::size_t from) const {
    const std::string quoted = Json(key).dump();
    for (std::size_t p = text_.find(quoted, from); p != std::string::npos; p = text_.find(quoted, p + 1)) {
      std::size_t q = p + quoted.size();
      while (q < text_.size() && std::isspace(static_cast<unsigned char>(text_[q]))) ++q;
      if (q < text_.size() && text_[q] == ':') return p;
    }
    return std::string::npos;
  }
  const std::string& text_;
  std::string source_;
};

double finiteNumber(const Doc& d, const std::vector<std::string>& field, const Json& v, const std::string& what) {
  if (!v.is_number()) d.fail(field, what + " must be a number, got " + typeName(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) d.fail(field, what + " is not a finite number");
  return x;
}

std::vector<double> numberArray(const Doc& d, const std::vector<std::string>& field, const Json& v, std::size_t n) {
  if (!v.is_array()) d.fail(field, "expected an array of " + std::to_string(n) + " numbers, got " + typeName(v));
  if (v.size() != n) d.fail(field, "expected " + std::to_string(n) + " numbers, got " + std::to_string(v.size()));
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(finiteNumber(d, field, v[i], "value " + std::to_string(i + 1)));
  return out;
}

std::vector<std::string> stringArray(const Doc& d, const std::string& key, const Json& v) {
  if (!v.is_array()) d.fail({key}, std::string("expected an array of strings, got ") + typeName(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      d.fail({key}, "element " + std::to_string(i + 1) + " must be a non-empty string, got " +
                        (v[i].is_string() ? "\"\"" : typeName(v[i])));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

Matrix3d parseOffset(const Doc& d, const std::string& joint, const Json& v) {
  const std::vector<std::string> field = {"offsets", joint};
  if (!v.is_object() || v.size() != 1)
    d.fail(field, "expected an object with one key, \"rpy_deg\" or \"quaternion_wxyz\"");
  const auto it = v.begin();
  const std::string key = it.key();
  const Json& value = it.value();
  if (key == "rpy_deg") {
    const auto a = numberArray(d, {"offsets", joint, key}, value, 3);
    constexpr double kDeg = M_PI / 180.0;
    return so3::fromRpy(Vector3d(a[0], a[1], a[2]) * kDeg);
  }
  if (key == "quaternion_wxyz") {
    const auto a = numberArray(d, {"offsets", joint, key}, value, 4);
    const Eigen::Vector4d q(a[0], a[1], a[2], a[3]);
    if (q.norm() < 1e-12) d.fail({"offsets", joint, key}, "zero quaternion");
    // Scaled by its largest entry first: the norm of finite entries such as 1e200 overflows.
    return so3::fromQuaternionWxyz(q / q.cwiseAbs().maxCoeff());
  }
  d.fail({"offsets", joint, key}, "unknown key (expected \"rpy_deg\" or \"quaternion_wxyz\")");
}

}  // namespace

SegmentMap parseSegmentMap(const std::string& json_text, const std::string& source) {
  const Doc d(json_text, source);
  // nlohmann-json silently keeps one of two equal keys; the callback sees every key.
  std::vector<std::pair<std::set<std::string>, std::string>> open;  // per object: keys, current
  std::vector<std::string> duplicate;
  const Json::parser_callback_t watch = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open.emplace_back();
    if (event == Json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == Json::parse_event_t::key && !open.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!open.back().first.insert(key).second && duplicate.empty()) {
        for (std::size_t i = 0; i + 1 < open.size(); ++i) duplicate.push_back(open[i].second);
        duplicate.push_back(key);
      }
      open.back().second = key;
    }
    return true;
  };
  Json j;
  try {
    j = Json::parse(json_text, watch);
  } catch (const Json::exception& e) {
    const detail::JsonErrorPlace place = detail::jsonErrorPlace(e, json_text);
    d.failAt(place.known ? d.lineAt(place.byte) : 0, "invalid JSON: " + place.message);
  }
  if (!duplicate.empty()) d.fail(duplicate, "duplicate key", 2);
  if (!j.is_object()) d.failAt(1, std::string("expected a JSON object at the top level, got ") + typeName(j));

  static const std::set<std::string> kKeys = {"name",     "description", "detect", "segments",
                                              "unmapped", "offsets",     "weights"};
  for (const auto& [key, value] : j.items())
    if (!kKeys.contains(key))
      d.fail({key}, "unknown key (expected name, description, detect, segments, unmapped, offsets, weights)");

  SegmentMap m;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    d.fail({"name"}, j.contains("name") ? "must be a non-empty string" : "missing (a non-empty string)");
  m.name = j["name"].get<std::string>();
  if (j.contains("description")) {
    if (!j["description"].is_string())
      d.fail({"description"}, std::string("must be a string, got ") + typeName(j["description"]));
    m.description = j["description"].get<std::string>();
  }
  if (j.contains("detect")) m.detect = stringArray(d, "detect", j["detect"]);

  if (!j.contains("segments")) d.failAt(0, "field 'segments': missing (an object clip segment → model frame)");
  const Json& segments = j["segments"];
  if (!segments.is_object() || segments.empty())
    d.fail({"segments"}, std::string("expected a non-empty object clip segment → model frame, got ") +
                             (segments.is_object() ? "an empty object" : typeName(segments)));
  std::map<std::string, std::string> target_of;  // model frame → clip segment
  for (const auto& [clip, target] : segments.items()) {
    if (!target.is_string())
      d.fail({"segments", clip}, std::string("target must be a string (a model frame name), got ") + typeName(target));
    const std::string frame = target.get<std::string>();
    if (clip.empty() || frame.empty()) d.fail({"segments", clip}, "empty name");
    if (const auto it = target_of.find(frame); it != target_of.end())
      d.fail({"segments", clip}, "model frame '" + frame + "' is already the target of '" + it->second + "'");
    target_of[frame] = clip;
    m.entries.push_back({clip, frame, Matrix3d::Identity(), 1.0});
  }
  auto entry = [&](const std::string& field, const std::string& clip) -> SegmentMapEntry& {
    for (auto& e : m.entries)
      if (e.clip_segment == clip) return e;
    d.fail({field, clip}, "'" + clip + "' is not a key of 'segments'");
  };
  if (j.contains("unmapped")) {
    m.unmapped = stringArray(d, "unmapped", j["unmapped"]);
    for (const auto& u : m.unmapped)
      if (segments.contains(u)) d.fail({"unmapped"}, "'" + u + "' is also mapped in 'segments'");
  }
  if (j.contains("offsets")) {
    if (!j["offsets"].is_object())
      d.fail({"offsets"}, std::string("expected an object, got ") + typeName(j["offsets"]));
    for (const auto& [clip, value] : j["offsets"].items()) entry("offsets", clip).offset = parseOffset(d, clip, value);
  }
  if (j.contains("weights")) {
    if (!j["weights"].is_object())
      d.fail({"weights"}, std::string("expected an object, got ") + typeName(j["weights"]));
    for (const auto& [clip, value] : j["weights"].items()) {
      SegmentMapEntry& e = entry("weights", clip);
      e.weight = finiteNumber(d, {"weights", clip}, value, "weight");
      if (!(e.weight > 0.0)) d.fail({"weights", clip}, "weight must be > 0");
    }
  }
  return m;
}

SegmentMap readSegmentMap(const std::string& path) { return parseSegmentMap(detail::readTextFile(path), path); }

namespace {

// The embedded maps of one table, parsed once, sorted by name.
std::vector<SegmentMap> parseEmbedded(std::size_t count, const char* const* files, const char* const* json) {
  std::vector<SegmentMap> v;
  for (std::size_t i = 0; i < count; ++i) v.push_back(parseSegmentMap(json[i], std::string("maps/") + files[i]));
  std::sort(v.begin(), v.end(), [](const SegmentMap& a, const SegmentMap& b) { return a.name < b.name; });
  return v;
}

const std::vector<SegmentMap>& builtins() {
  static const std::vector<SegmentMap> maps =
      parseEmbedded(detail::kBuiltinSegmentMapCount, detail::kBuiltinSegmentMapFiles, detail::kBuiltinSegmentMapJson);
  return maps;
}

const std::vector<SegmentMap>& robotBuiltins() {
  static const std::vector<SegmentMap> maps =
      parseEmbedded(detail::kBuiltinRobotMapCount, detail::kBuiltinRobotMapFiles, detail::kBuiltinRobotMapJson);
  return maps;
}

std::vector<std::string> namesOf(const std::vector<SegmentMap>& maps) {
  std::vector<std::string> names;
  for (const auto& m : maps) names.push_back(m.name);
  return names;
}

SegmentMap find(const std::vector<SegmentMap>& maps, const std::string& name, const char* kind) {
  for (const auto& m : maps)
    if (m.name == name) return m;
  throw InvalidArgument(std::string("unknown built-in ") + kind + " map '" + name +
                        "' (built-in: " + joinNames(namesOf(maps)) + ")");
}

}  // namespace

std::vector<std::string> builtinSegmentMapNames() { return namesOf(builtins()); }
SegmentMap builtinSegmentMap(const std::string& name) { return find(builtins(), name, "segment"); }
std::vector<std::string> builtinRobotMapNames() { return namesOf(robotBuiltins()); }
SegmentMap builtinRobotMap(const std::string& name) { return find(robotBuiltins(), name, "robot"); }

namespace {

// The map of `maps` whose "detect" names are all in `names`, the longest list winning.
std::optional<std::string> detect(const std::vector<SegmentMap>& maps, const std::vector<std::string>& names) {
  const std::set<std::string> present(names.begin(), names.end());
  const SegmentMap* best = nullptr;
  for (const auto& m : maps) {  // sorted by name: ties keep the first
    if (m.detect.empty() ||
        !std::all_of(m.detect.begin(), m.detect.end(), [&](const auto& n) { return present.contains(n); }))
      continue;
    if (best == nullptr || m.detect.size() > best->detect.size()) best = &m;
  }
  return best ? std::optional<std::string>(best->name) : std::nullopt;
}

}  // namespace

std::optional<std::string> detectSegmentMap(const std::vector<std::string>& clip_segment_names) {
  return detect(builtins(), clip_segment_names);
}

std::optional<std::string> detectRobotMap(const std::vector<std::string>& robot_names) {
  return detect(robotBuiltins(), robot_names);
}

SegmentMap resolveSegmentMap(const std::vector<std::string>& clip_segment_names, const std::string& map_spec) {
  SegmentMap m;
  const auto names = builtinSegmentMapNames();
  if (map_spec.empty() || map_spec == "auto") {
    const auto detected = detectSegmentMap(clip_segment_names);
    m = detected ? builtinSegmentMap(*detected) : autoSegmentMap(clip_segment_names);
  } else if (std::find(names.begin(), names.end(), map_spec) != names.end()) {
    m = builtinSegmentMap(map_spec);
  } else if (map_spec.find('/') != std::string::npos || map_spec.ends_with(".json")) {
    m = readSegmentMap(map_spec);
  } else {
    throw InvalidArgument("unknown segment map '" + map_spec + "': expected auto, a built-in map (" + joinNames(names) +
                          ") or the path of a JSON map file");
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < clip_segment_names.size(); ++i) index.emplace(clip_segment_names[i], i);
  std::vector<std::string> missing;
  for (const auto& e : m.entries)
    if (!index.contains(e.clip_segment)) missing.push_back(e.clip_segment);
  if (!missing.empty())
    throw InvalidArgument("segment map '" + m.name + "': the clip has no segment " + joinNames(missing) +
                          " (clip segments: " + joinNames(clip_segment_names) + ")");
  if (m.entries.empty())
    throw InvalidArgument("segment map '" + m.name +
                          "': no segment of the clip is mapped (clip segments: " + joinNames(clip_segment_names) + ")");
  std::stable_sort(m.entries.begin(), m.entries.end(), [&](const SegmentMapEntry& a, const SegmentMapEntry& b) {
    return index[a.clip_segment] < index[b.clip_segment];
  });
  m.unmapped.clear();
  std::set<std::string> mapped;
  for (const auto& e : m.entries) mapped.insert(e.clip_segment);
  for (const auto& s : clip_segment_names)
    if (!mapped.contains(s)) m.unmapped.push_back(s);
  return m;
}

}  // namespace kinetrack::io
