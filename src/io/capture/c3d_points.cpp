// What the POINT entries of a C3D file are, and unique names for the kept ones.
#include "c3d_points.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kinetrack::io {

const char* toString(C3dPointKind kind) {
  switch (kind) {
    case C3dPointKind::Marker: return "marker";
    case C3dPointKind::Unlabeled: return "unlabeled";
    case C3dPointKind::SegmentFrame: return "segment frame";
    case C3dPointKind::ModeledMarker: return "modeled marker";
    case C3dPointKind::Angle: return "angle";
    case C3dPointKind::Force: return "force";
    case C3dPointKind::Moment: return "moment";
    case C3dPointKind::Power: return "power";
    case C3dPointKind::Other: return "other";
  }
  return "?";
}

bool isPositional(C3dPointKind kind) {
  return kind == C3dPointKind::Marker || kind == C3dPointKind::Unlabeled || kind == C3dPointKind::SegmentFrame ||
         kind == C3dPointKind::ModeledMarker;
}

namespace detail {

namespace {

// Plug-in Gait segments whose frames Vicon Nexus writes as points <segment><O|A|L|P> (origin,
// anterior, lateral and proximal axis points).
constexpr std::array<std::string_view, 19> kPigSegments = {"PEL", "LFE", "LTI", "LFO", "LTO", "RFE", "RTI",
                                                           "RFO", "RTO", "HED", "TRX", "LCL", "RCL", "LHU",
                                                           "LRA", "LHN", "RHU", "RRA", "RHN"};

bool segmentFramePoint(std::string_view name) {
  if (name.size() != 4 || std::string_view("OALP").find(name[3]) == std::string_view::npos) return false;
  return std::find(kPigSegments.begin(), kPigSegments.end(), name.substr(0, 3)) != kPigSegments.end();
}

bool unlabeled(std::string_view name) {
  return name.size() >= 2 && name[0] == '*' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

C3dPointKind groupKind(const std::string& group) {
  if (group == "ANGLES") return C3dPointKind::Angle;
  if (group == "FORCES") return C3dPointKind::Force;
  if (group == "MOMENTS") return C3dPointKind::Moment;
  if (group == "POWERS") return C3dPointKind::Power;
  if (group == "MODELED_MARKERS") return C3dPointKind::ModeledMarker;
  return C3dPointKind::Other;
}

}  // namespace

std::string withoutSubjectPrefix(const std::string& label) {
  const std::size_t colon = label.rfind(':');
  return colon == std::string::npos ? label : label.substr(colon + 1);
}

std::vector<C3dPointKind> classifyC3dPoints(const C3dParameters& params, const std::vector<std::string>& labels) {
  // The parameters of POINT that list model outputs: the usual ones and those of TYPE_GROUPS
  // (pairs of parameter name and type name: "ANGLES", "ANGLE", "FORCES", "FORCE", …).
  std::vector<std::string> groups = {"ANGLES", "FORCES", "MOMENTS", "POWERS", "MODELED_MARKERS", "REACTIONS"};
  std::unordered_set<std::string> seen(groups.begin(), groups.end());
  if (const C3dParameter* tg = params.find("POINT", "TYPE_GROUPS"); tg != nullptr && tg->type == -1) {
    const std::vector<std::string> s = params.strings(*tg);
    for (std::size_t k = 0; k < s.size(); k += 2) {
      std::string g;
      for (const char c : s[k]) g += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (!g.empty() && g != "LABELS" && g != "DESCRIPTIONS" && seen.insert(g).second) groups.push_back(g);
    }
  }
  std::unordered_map<std::string, C3dPointKind> listed;
  for (const std::string& g : groups) {
    const C3dParameter* list = params.find("POINT", g);  // a list of labels: a 2-D char array
    if (list == nullptr || list->type != -1 || list->dims.size() < 2) continue;
    for (const std::string& label : params.stringsWithContinuations("POINT", g)) {
      listed.emplace(label, groupKind(g));
      listed.emplace(withoutSubjectPrefix(label), groupKind(g));
    }
  }
  std::vector<C3dPointKind> kinds;
  kinds.reserve(labels.size());
  for (const std::string& label : labels) {
    const std::string name = withoutSubjectPrefix(label);
    auto it = listed.find(label);
    if (it == listed.end()) it = listed.find(name);
    if (it != listed.end())
      kinds.push_back(it->second);
    else if (segmentFramePoint(name))
      kinds.push_back(C3dPointKind::SegmentFrame);
    else if (unlabeled(name))
      kinds.push_back(C3dPointKind::Unlabeled);
    else
      kinds.push_back(C3dPointKind::Marker);
  }
  return kinds;
}

std::vector<std::string> uniqueC3dNames(const std::vector<std::string>& labels, const std::vector<int>& kept,
                                        std::vector<std::string>& warnings) {
  std::vector<std::string> names;
  names.reserve(kept.size());
  std::unordered_set<std::string> taken;
  constexpr int kMaxRenameWarnings = 20;  // one warning each, then a count
  int renamed = 0;
  for (const int i : kept) {
    const std::string& label = labels[static_cast<std::size_t>(i)];
    std::string name = withoutSubjectPrefix(label);
    if (!name.empty() && taken.insert(name).second) {
      names.push_back(std::move(name));
      continue;
    }
    const std::string why = name.empty() ? "empty label" : "label '" + label + "' repeats an earlier name";
    if (!name.empty() && name != label && taken.insert(label).second) {
      name = label;
    } else {
      const std::string base = "Point" + std::to_string(i + 1);
      name = base;
      for (int k = 2; !taken.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    }
    if (++renamed <= kMaxRenameWarnings)
      warnings.push_back("point " + std::to_string(i + 1) + ": " + why + ": named '" + name + "'");
    names.push_back(std::move(name));
  }
  if (renamed > kMaxRenameWarnings)
    warnings.push_back("… and " + std::to_string(renamed - kMaxRenameWarnings) + " more points renamed");
  return names;
}

}  // namespace detail
}  // namespace kinetrack::io
