// Segment maps: JSON parsing (nlohmann-json), the built-in maps embedded from maps/*.json
// (maps/segment_maps.cmake), detection, the name-based automatic mapper, and resolution
// against a clip's segment names.
#include "kinetrack/io/segment_map.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "text_util.hpp"

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
    return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(std::min(byte, text_.size())), '\n'));
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
      d.fail({key}, "element " + std::to_string(i + 1) + " must be a non-empty string, got " + (v[i].is_string() ? "\"\"" : typeName(v[i])));
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
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error …"
    std::string what = e.what();
    const std::size_t column = what.find("column ");
    const std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    d.failAt(d.lineAt(e.byte == 0 ? 0 : e.byte - 1), "invalid JSON: " + what);
  } catch (const Json::exception& e) {
    // e.g. "[json.exception.out_of_range.406] number overflow parsing '1e999'": no position, so
    // the line of the quoted text.
    std::string what = e.what();
    if (const std::size_t b = what.find("] "); b != std::string::npos) what = what.substr(b + 2);
    const std::size_t q = what.find('\'');
    const std::string token = q == std::string::npos ? "" : what.substr(q + 1, what.find('\'', q + 1) - q - 1);
    const std::size_t at = token.empty() ? std::string::npos : json_text.find(token);
    d.failAt(at == std::string::npos ? 0 : d.lineAt(at), "invalid JSON: " + what);
  }
  if (!duplicate.empty()) d.fail(duplicate, "duplicate key", 2);
  if (!j.is_object()) d.failAt(1, std::string("expected a JSON object at the top level, got ") + typeName(j));

  static const std::set<std::string> kKeys = {"name", "description", "detect", "segments", "unmapped", "offsets", "weights"};
  for (const auto& [key, value] : j.items())
    if (!kKeys.contains(key)) d.fail({key}, "unknown key (expected name, description, detect, segments, unmapped, offsets, weights)");

  SegmentMap m;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    d.fail({"name"}, j.contains("name") ? "must be a non-empty string" : "missing (a non-empty string)");
  m.name = j["name"].get<std::string>();
  if (j.contains("description")) {
    if (!j["description"].is_string()) d.fail({"description"}, std::string("must be a string, got ") + typeName(j["description"]));
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
    if (!target.is_string()) d.fail({"segments", clip}, std::string("target must be a string (a model frame name), got ") + typeName(target));
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
    if (!j["offsets"].is_object()) d.fail({"offsets"}, std::string("expected an object, got ") + typeName(j["offsets"]));
    for (const auto& [clip, value] : j["offsets"].items()) entry("offsets", clip).offset = parseOffset(d, clip, value);
  }
  if (j.contains("weights")) {
    if (!j["weights"].is_object()) d.fail({"weights"}, std::string("expected an object, got ") + typeName(j["weights"]));
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
  throw InvalidArgument(std::string("unknown built-in ") + kind + " map '" + name + "' (built-in: " + joinNames(namesOf(maps)) + ")");
}

}  // namespace

std::vector<std::string> builtinSegmentMapNames() { return namesOf(builtins()); }
SegmentMap builtinSegmentMap(const std::string& name) { return find(builtins(), name, "segment"); }
std::vector<std::string> builtinRobotMapNames() { return namesOf(robotBuiltins()); }
SegmentMap builtinRobotMap(const std::string& name) { return find(robotBuiltins(), name, "robot"); }

std::optional<std::string> detectSegmentMap(const std::vector<std::string>& clip_segment_names) {
  const std::set<std::string> present(clip_segment_names.begin(), clip_segment_names.end());
  const SegmentMap* best = nullptr;
  for (const auto& m : builtins()) {  // sorted by name: ties keep the first
    if (m.detect.empty() || !std::all_of(m.detect.begin(), m.detect.end(), [&](const auto& n) { return present.contains(n); }))
      continue;
    if (best == nullptr || m.detect.size() > best->detect.size()) best = &m;
  }
  return best ? std::optional<std::string>(best->name) : std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Automatic mapping from names.

namespace {

enum class Side : std::uint8_t { None, Left, Right };
enum class Part : std::uint8_t { None, Pelvis, Spine, Neck, Head, Shoulder, ShoulderOrArm, UpperArm, ForeArm, Hand, UpperLeg, LowerLeg, Foot, Toe };

struct NameInfo {
  Side side = Side::None;
  std::string core;       // tokens without side, digits and "twist", concatenated
  bool excluded = false;  // finger, toe digit, face, end site, share bone, accessory
  bool twist = false;
  std::string vertebra;   // "L5", "L3", "T12" or "T8" when the name is one
  Part part = Part::None;
  int rank = 0;           // higher wins among candidates for the same canonical segment
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Namespaces ("mixamorig:") and rig prefixes.
std::string stripPrefixes(std::string name) {
  if (const std::size_t c = name.rfind(':'); c != std::string::npos) name = name.substr(c + 1);
  static const char* kPrefixes[] = {"cc_base_", "mixamorig_", "bip001 ", "bip001_", "bip01 ", "bip01_", "def-", "org-", "rl_"};
  for (const char* p : kPrefixes)
    if (startsWith(lower(name), p) && name.size() > std::strlen(p)) return name.substr(std::strlen(p));
  return name;
}

// Splits at _ . - space and at camelCase, acronym and letter/digit boundaries ("LHipJoint" →
// l, hip, joint; "Spine01" → spine, 01); lower case.
std::vector<std::string> tokenize(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(lower(cur));
    cur.clear();
  };
  auto up = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  auto low = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      const char p = cur.back();
      const bool acronym_end = up(p) && up(c) && i + 1 < s.size() && low(s[i + 1]);
      if ((low(p) && up(c)) || digit(p) != digit(c) || acronym_end) flush();
    }
    cur += c;
  }
  flush();
  return out;
}

// Words an l/r may be glued to ("lhand", "rfemur").
const std::set<std::string> kBodyWords = {"hand", "foot", "hip", "knee", "ankle", "toe", "toes", "shoulder", "elbow", "wrist",
                                          "arm", "forearm", "upperarm", "lowerarm", "leg", "upleg", "upperleg", "lowerleg", "thigh",
                                          "shin", "calf", "shank", "clavicle", "collar", "humerus", "femur", "tibia", "radius",
                                          "finger", "fingers", "thumb", "heel", "ball"};
const std::set<std::string> kExcluded = {"share", "sharebone", "end", "nub", "site", "top", "tip", "finger", "fingers", "thumb",
                                         "index", "middle", "mid", "ring", "pinky", "little", "big", "carpal", "metacarpal", "eye",
                                         "eyes", "jaw", "tongue", "teeth", "facial", "brow", "eyebrow", "lip", "lips", "nose", "ear",
                                         "cheek", "breast", "rib", "ribs", "ik", "pole", "target", "dummy", "helper", "prop",
                                         "weapon", "hair", "cloth", "skirt"};

NameInfo analyse(const std::string& raw) {
  NameInfo n;
  const std::string stripped = stripPrefixes(raw);
  const std::string upper = [&] {
    std::string u = stripped;
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }();
  if (upper == "L5" || upper == "L3" || upper == "T12" || upper == "T8") {
    n.vertebra = upper;
    return n;
  }
  std::vector<std::string> t;
  for (auto& w : tokenize(stripped))
    if (!std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) t.push_back(w);
  auto sideOf = [](const std::string& w) {
    if (w == "left" || w == "l" || w == "lft") return Side::Left;
    if (w == "right" || w == "r" || w == "rt" || w == "rgt") return Side::Right;
    return Side::None;
  };
  if (t.size() > 1 && sideOf(t.front()) != Side::None) {
    n.side = sideOf(t.front());
    t.erase(t.begin());
  } else if (t.size() > 1 && sideOf(t.back()) != Side::None) {
    n.side = sideOf(t.back());
    t.pop_back();
  } else if (!t.empty()) {
    std::string& w = t.front();
    if (startsWith(w, "left") && w.size() > 4) n.side = Side::Left, w = w.substr(4);
    else if (startsWith(w, "right") && w.size() > 5) n.side = Side::Right, w = w.substr(5);
    else if ((w[0] == 'l' || w[0] == 'r') && kBodyWords.contains(w.substr(1)))
      n.side = w[0] == 'l' ? Side::Left : Side::Right, w = w.substr(1);
  }
  for (const auto& w : t) {
    if (w == "twist") n.twist = true;
    else n.core += w;
  }
  if (n.core == "fingerbase") {  // cgspeed CMU: the ASF "lhand" bone (the hand; its parent only twists)
    n.part = Part::Hand, n.rank = 4;
  } else {
    for (const auto& w : t) n.excluded = n.excluded || kExcluded.contains(w);
    if (n.excluded) return n;
    struct Syn {
      const char* word;
      Part part;
      int rank;
    };
    static const Syn kSided[] = {
        {"collar", Part::Shoulder, 3},    {"clavicle", Part::Shoulder, 3},  {"collarbone", Part::Shoulder, 3},
        {"shoulder", Part::ShoulderOrArm, 2},
        {"arm", Part::UpperArm, 3},       {"upperarm", Part::UpperArm, 3},  {"uparm", Part::UpperArm, 3},
        {"humerus", Part::UpperArm, 3},   {"forearm", Part::ForeArm, 3},    {"lowerarm", Part::ForeArm, 3},
        {"elbow", Part::ForeArm, 2},      {"radius", Part::ForeArm, 2},     {"hand", Part::Hand, 3},
        {"wrist", Part::Hand, 2},         {"upleg", Part::UpperLeg, 3},     {"upperleg", Part::UpperLeg, 3},
        {"thigh", Part::UpperLeg, 3},     {"femur", Part::UpperLeg, 3},     {"hip", Part::UpperLeg, 2},
        {"leg", Part::LowerLeg, 3},       {"lowerleg", Part::LowerLeg, 3},  {"shin", Part::LowerLeg, 3},
        {"calf", Part::LowerLeg, 3},      {"shank", Part::LowerLeg, 3},     {"tibia", Part::LowerLeg, 3},
        {"knee", Part::LowerLeg, 2},      {"foot", Part::Foot, 3},          {"ankle", Part::Foot, 2},
        {"toe", Part::Toe, 3},            {"toes", Part::Toe, 3},           {"toebase", Part::Toe, 3},
        {"ball", Part::Toe, 2}};
    static const Syn kCentral[] = {
        {"pelvis", Part::Pelvis, 4},  {"hips", Part::Pelvis, 3},     {"hip", Part::Pelvis, 2},       {"root", Part::Pelvis, 1},
        {"spine", Part::Spine, 3},    {"chest", Part::Spine, 3},     {"upperchest", Part::Spine, 3}, {"lowerback", Part::Spine, 3},
        {"upperback", Part::Spine, 3}, {"back", Part::Spine, 3},     {"abdomen", Part::Spine, 3},   {"abs", Part::Spine, 3},
        {"waist", Part::Spine, 3},    {"torso", Part::Spine, 3},     {"thorax", Part::Spine, 3},    {"lumbar", Part::Spine, 3},
        {"thoracic", Part::Spine, 3}, {"neck", Part::Neck, 3},       {"lowerneck", Part::Neck, 3},  {"upperneck", Part::Neck, 2},
        {"head", Part::Head, 3},      {"face", Part::Head, 1}};
    for (const Syn& s : n.side == Side::None ? std::span<const Syn>(kCentral) : std::span<const Syn>(kSided))
      if (n.core == s.word) n.part = s.part, n.rank = s.rank;
    // A root bone ("joint_Root", "RL_BoneRoot") is the pelvis only when nothing better exists.
    if (n.part == Part::None && n.side == Side::None && n.core.size() > 4 && n.core.ends_with("root"))
      n.part = Part::Pelvis, n.rank = 1;
  }
  if (n.twist) n.rank = 0;  // a twist bone only when nothing else fits
  return n;
}

std::string partName(Part p) {
  switch (p) {
    case Part::Pelvis: return "Pelvis";
    case Part::Neck: return "Neck";
    case Part::Head: return "Head";
    case Part::Shoulder: return "Shoulder";
    case Part::UpperArm: return "UpperArm";
    case Part::ForeArm: return "ForeArm";
    case Part::Hand: return "Hand";
    case Part::UpperLeg: return "UpperLeg";
    case Part::LowerLeg: return "LowerLeg";
    case Part::Foot: return "Foot";
    case Part::Toe: return "Toe";
    default: return "";
  }
}

}  // namespace

SegmentMap autoSegmentMap(const std::vector<std::string>& clip_segment_names) {
  const std::size_t n = clip_segment_names.size();
  std::vector<NameInfo> info(n);
  for (std::size_t i = 0; i < n; ++i) info[i] = analyse(clip_segment_names[i]);
  // "Shoulder" is the upper arm when that side has a collar/clavicle or no arm bone.
  auto sideHas = [&](Side side, Part part) {
    return std::any_of(info.begin(), info.end(), [&](const NameInfo& x) { return x.side == side && x.part == part && !x.twist; });
  };
  for (auto& x : info)
    if (x.part == Part::ShoulderOrArm)
      x.part = sideHas(x.side, Part::Shoulder) || !sideHas(x.side, Part::UpperArm) ? Part::UpperArm : Part::Shoulder;

  std::map<std::string, std::size_t> winner;  // canonical name → clip index
  auto offer = [&](const std::string& canonical, std::size_t i) {
    const auto it = winner.find(canonical);
    if (it == winner.end() || info[i].rank > info[it->second].rank) winner[canonical] = i;  // ties: first in clip order
  };
  std::vector<std::size_t> spine;
  for (std::size_t i = 0; i < n; ++i) {
    const NameInfo& x = info[i];
    if (!x.vertebra.empty()) offer(x.vertebra, i);
    else if (x.part == Part::Spine) {
      if (!x.twist) spine.push_back(i);
    } else if (x.part != Part::None) {
      offer((x.side == Side::Left ? "Left" : x.side == Side::Right ? "Right" : "") + partName(x.part), i);
    }
  }
  // Spine bones in chain order onto the trunk segments left free by vertebra names.
  static const std::vector<std::vector<std::string>> kTrunk = {
      {}, {"T8"}, {"L3", "T8"}, {"L5", "L3", "T8"}, {"L5", "L3", "T12", "T8"}};
  for (std::size_t k = 0; k < spine.size(); ++k) {
    std::string slot;
    if (spine.size() < kTrunk.size()) slot = kTrunk[spine.size()][k];
    else if (k < 3) slot = kTrunk[4][k];
    else if (k + 1 == spine.size()) slot = "T8";
    if (!slot.empty() && !winner.contains(slot)) winner[slot] = spine[k];
  }

  SegmentMap m;
  m.name = "auto";
  m.description = "automatic map from the clip's segment names (autoSegmentMap)";
  std::vector<std::string> target(n);
  for (const auto& [canonical, i] : winner) target[i] = canonical;
  for (std::size_t i = 0; i < n; ++i) {
    if (target[i].empty()) m.unmapped.push_back(clip_segment_names[i]);
    else m.entries.push_back({clip_segment_names[i], target[i], Matrix3d::Identity(), 1.0});
  }
  return m;
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
    throw InvalidArgument("segment map '" + m.name + "': no segment of the clip is mapped (clip segments: " +
                          joinNames(clip_segment_names) + ")");
  std::stable_sort(m.entries.begin(), m.entries.end(),
                   [&](const SegmentMapEntry& a, const SegmentMapEntry& b) { return index[a.clip_segment] < index[b.clip_segment]; });
  m.unmapped.clear();
  std::set<std::string> mapped;
  for (const auto& e : m.entries) mapped.insert(e.clip_segment);
  for (const auto& s : clip_segment_names)
    if (!mapped.contains(s)) m.unmapped.push_back(s);
  return m;
}

}  // namespace kinetrack::io
