#include "kinetrack/track/segment_pairs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/track/robot_map_auto.hpp"

namespace kinetrack::track {

SegmentPairs segmentPairsOnModel(const Model& model, const io::SegmentMap& map) {
  SegmentPairs out;
  out.unmapped = map.unmapped;
  for (const io::SegmentMapEntry& e : map.entries) {
    if (!model.findFrame(e.model_frame)) {
      out.skipped.push_back(e.clip_segment + " -> " + e.model_frame);
      continue;
    }
    out.pairs.push_back({e.clip_segment, e.model_frame, e.offset, e.weight});
  }
  return out;
}

SegmentPairs resolveSegmentPairs(const Model& model, const Capture& capture, const std::string& map_spec) {
  if (capture.kind == CaptureKind::TargetCsv && map_spec.empty()) {
    // Pose targets are named after model frames.
    SegmentPairs out;
    for (const std::string& s : capture.clip.segment_names) out.pairs.push_back({s, s, Matrix3d::Identity(), 1.0});
    for (const auto& p : out.pairs)
      static_cast<void>(model.frameId(p.model_frame));  // throws, listing the valid frames
    return out;
  }
  SegmentPairs out = segmentPairsOnModel(model, io::resolveSegmentMap(capture.clip.segment_names, map_spec));
  if (out.pairs.empty())
    throw InvalidArgument("segment map '" + (map_spec.empty() ? std::string("auto") : map_spec) +
                          "': no mapped segment is a frame of model '" + model.name() + "'");
  return out;
}

io::SegmentMap resolveRobotMap(const Model& robot, const std::string& spec) {
  if (spec.empty()) {
    std::vector<std::string> names = robot.frameNames();
    names.insert(names.end(), robot.jointNames().begin(), robot.jointNames().end());
    if (const auto detected = io::detectRobotMap(names)) return io::builtinRobotMap(*detected);
    return autoRobotMap(robot);
  }
  if (spec == "auto") return autoRobotMap(robot);
  if (spec.find('/') != std::string::npos || spec.ends_with(".json")) return io::readSegmentMap(spec);
  return io::builtinRobotMap(spec);
}

std::string robotMapText(const io::SegmentMap& map) {
  std::string s = "robot map '" + map.name + "':\n";
  for (const io::SegmentMapEntry& e : map.entries) {
    s += "  " + e.clip_segment + " -> " + e.model_frame;
    if (e.weight != 1.0) s += fmt::format(" (weight {:g})", e.weight);
    if (!e.offset.isIdentity(0.0)) s += " (rotated)";
    s += "\n";
  }
  return s;
}

SegmentPairs resolveRobotPairs(const Model& robot, const Capture& capture, const std::string& segment_map_spec,
                               const std::string& robot_map_spec) {
  const io::SegmentMap clip_map = io::resolveSegmentMap(capture.clip.segment_names, segment_map_spec);
  const io::SegmentMap robot_map = resolveRobotMap(robot, robot_map_spec);
  SegmentPairs out;
  out.robot_map = robot_map;
  out.pairs = composeMaps(clip_map, robot_map);
  for (const io::SegmentMapEntry& e : clip_map.entries)
    if (std::none_of(out.pairs.begin(), out.pairs.end(),
                     [&](const SegmentPair& p) { return p.clip_segment == e.clip_segment; }))
      out.skipped.push_back(e.clip_segment + " -> " + e.model_frame + " (not in robot map '" + robot_map.name + "')");
  out.unmapped = clip_map.unmapped;
  out.clip_map = clip_map;
  return out;
}

}  // namespace kinetrack::track
