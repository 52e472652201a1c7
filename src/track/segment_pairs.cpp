#include "kinetrack/track/segment_pairs.hpp"

#include "kinetrack/core/errors.hpp"

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

}  // namespace kinetrack::track
