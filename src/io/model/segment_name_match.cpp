// Segment maps: the name-based automatic mapper (autoSegmentMap). Each clip segment name is
// analysed (rig prefixes, side, body-part synonyms, vertebrae) and the best-ranked candidate of
// each canonical (Xsens) segment wins.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <span>

#include "kinetrack/io/model/segment_map.hpp"

namespace kinetrack::io {

namespace {

enum class Side : std::uint8_t { None, Left, Right };
enum class Part : std::uint8_t {
  None,
  Pelvis,
  Spine,
  Neck,
  Head,
  Shoulder,
  ShoulderOrArm,
  UpperArm,
  ForeArm,
  Hand,
  UpperLeg,
  LowerLeg,
  Foot,
  Toe
};

struct NameInfo {
  Side side = Side::None;
  std::string core;       // tokens without side, digits and "twist", concatenated
  bool excluded = false;  // finger, toe digit, face, end site, share bone, accessory
  bool twist = false;
  std::string vertebra;  // "L5", "L3", "T12" or "T8" when the name is one
  Part part = Part::None;
  int rank = 0;  // higher wins among candidates for the same canonical segment
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Namespaces ("mixamorig:") and rig prefixes.
std::string stripPrefixes(std::string name) {
  if (const std::size_t c = name.rfind(':'); c != std::string::npos) name = name.substr(c + 1);
  static const char* kPrefixes[] = {"cc_base_", "mixamorig_", "bip001 ", "bip001_", "bip01 ",
                                    "bip01_",   "def-",       "org-",    "rl_"};
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
// Word lists, kept one block each.
// clang-format off
const std::set<std::string> kBodyWords = {"hand", "foot", "hip", "knee", "ankle", "toe", "toes", "shoulder", "elbow", "wrist",
                                          "arm", "forearm", "upperarm", "lowerarm", "leg", "upleg", "upperleg", "lowerleg", "thigh",
                                          "shin", "calf", "shank", "clavicle", "collar", "humerus", "femur", "tibia", "radius",
                                          "finger", "fingers", "thumb", "heel", "ball"};
const std::set<std::string> kExcluded = {"share", "sharebone", "end", "nub", "site", "top", "tip", "finger", "fingers", "thumb",
                                         "index", "middle", "mid", "ring", "pinky", "little", "big", "carpal", "metacarpal", "eye",
                                         "eyes", "jaw", "tongue", "teeth", "facial", "brow", "eyebrow", "lip", "lips", "nose", "ear",
                                         "cheek", "breast", "rib", "ribs", "ik", "pole", "target", "dummy", "helper", "prop",
                                         "weapon", "hair", "cloth", "skirt"};
// clang-format on

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
    if (!std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      t.push_back(w);
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
    if (startsWith(w, "left") && w.size() > 4)
      n.side = Side::Left, w = w.substr(4);
    else if (startsWith(w, "right") && w.size() > 5)
      n.side = Side::Right, w = w.substr(5);
    else if ((w[0] == 'l' || w[0] == 'r') && kBodyWords.contains(w.substr(1)))
      n.side = w[0] == 'l' ? Side::Left : Side::Right, w = w.substr(1);
  }
  for (const auto& w : t) {
    if (w == "twist")
      n.twist = true;
    else
      n.core += w;
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
    static const Syn kSided[] = {{"collar", Part::Shoulder, 3},
                                 {"clavicle", Part::Shoulder, 3},
                                 {"collarbone", Part::Shoulder, 3},
                                 {"shoulder", Part::ShoulderOrArm, 2},
                                 {"arm", Part::UpperArm, 3},
                                 {"upperarm", Part::UpperArm, 3},
                                 {"uparm", Part::UpperArm, 3},
                                 {"humerus", Part::UpperArm, 3},
                                 {"forearm", Part::ForeArm, 3},
                                 {"lowerarm", Part::ForeArm, 3},
                                 {"elbow", Part::ForeArm, 2},
                                 {"radius", Part::ForeArm, 2},
                                 {"hand", Part::Hand, 3},
                                 {"wrist", Part::Hand, 2},
                                 {"upleg", Part::UpperLeg, 3},
                                 {"upperleg", Part::UpperLeg, 3},
                                 {"thigh", Part::UpperLeg, 3},
                                 {"femur", Part::UpperLeg, 3},
                                 {"hip", Part::UpperLeg, 2},
                                 {"leg", Part::LowerLeg, 3},
                                 {"lowerleg", Part::LowerLeg, 3},
                                 {"shin", Part::LowerLeg, 3},
                                 {"calf", Part::LowerLeg, 3},
                                 {"shank", Part::LowerLeg, 3},
                                 {"tibia", Part::LowerLeg, 3},
                                 {"knee", Part::LowerLeg, 2},
                                 {"foot", Part::Foot, 3},
                                 {"ankle", Part::Foot, 2},
                                 {"toe", Part::Toe, 3},
                                 {"toes", Part::Toe, 3},
                                 {"toebase", Part::Toe, 3},
                                 {"ball", Part::Toe, 2}};
    static const Syn kCentral[] = {
        {"pelvis", Part::Pelvis, 4},    {"hips", Part::Pelvis, 3},     {"hip", Part::Pelvis, 2},
        {"root", Part::Pelvis, 1},      {"spine", Part::Spine, 3},     {"chest", Part::Spine, 3},
        {"upperchest", Part::Spine, 3}, {"lowerback", Part::Spine, 3}, {"upperback", Part::Spine, 3},
        {"back", Part::Spine, 3},       {"abdomen", Part::Spine, 3},   {"abs", Part::Spine, 3},
        {"waist", Part::Spine, 3},      {"torso", Part::Spine, 3},     {"thorax", Part::Spine, 3},
        {"lumbar", Part::Spine, 3},     {"thoracic", Part::Spine, 3},  {"neck", Part::Neck, 3},
        {"lowerneck", Part::Neck, 3},   {"upperneck", Part::Neck, 2},  {"head", Part::Head, 3},
        {"face", Part::Head, 1}};
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
    return std::any_of(info.begin(), info.end(),
                       [&](const NameInfo& x) { return x.side == side && x.part == part && !x.twist; });
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
    if (!x.vertebra.empty())
      offer(x.vertebra, i);
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
    if (spine.size() < kTrunk.size())
      slot = kTrunk[spine.size()][k];
    else if (k < 3)
      slot = kTrunk[4][k];
    else if (k + 1 == spine.size())
      slot = "T8";
    if (!slot.empty() && !winner.contains(slot)) winner[slot] = spine[k];
  }

  SegmentMap m;
  m.name = "auto";
  m.description = "automatic map from the clip's segment names (autoSegmentMap)";
  std::vector<std::string> target(n);
  for (const auto& [canonical, i] : winner) target[i] = canonical;
  for (std::size_t i = 0; i < n; ++i) {
    if (target[i].empty())
      m.unmapped.push_back(clip_segment_names[i]);
    else
      m.entries.push_back({clip_segment_names[i], target[i], Matrix3d::Identity(), 1.0});
  }
  return m;
}

}  // namespace kinetrack::io
