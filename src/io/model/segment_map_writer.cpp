// Segment maps back to JSON (segment_map.hpp): what `kinetrack retarget --save-map` writes, in
// the format parseSegmentMap reads.
#include <nlohmann/json.hpp>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::io {

std::string segmentMapJson(const SegmentMap& map) {
  using Json = nlohmann::ordered_json;  // keys in the order written
  Json j;
  j["name"] = map.name;
  if (!map.description.empty()) j["description"] = map.description;
  if (!map.detect.empty()) j["detect"] = map.detect;
  Json segments = Json::object(), offsets = Json::object(), weights = Json::object();
  for (const SegmentMapEntry& e : map.entries) {
    segments[e.clip_segment] = e.model_frame;
    if (!e.offset.isIdentity(0.0)) {
      const Eigen::Vector4d q = so3::toQuaternionWxyz(e.offset);
      offsets[e.clip_segment] = Json{{"quaternion_wxyz", {q[0], q[1], q[2], q[3]}}};
    }
    if (e.weight != 1.0) weights[e.clip_segment] = e.weight;
  }
  j["segments"] = segments;
  if (!map.unmapped.empty()) j["unmapped"] = map.unmapped;
  if (!offsets.empty()) j["offsets"] = offsets;
  if (!weights.empty()) j["weights"] = weights;
  return j.dump(2) + "\n";
}

void writeSegmentMap(const SegmentMap& map, const std::string& path) { writeFileAtomically(path, segmentMapJson(map)); }

}  // namespace kinetrack::io
