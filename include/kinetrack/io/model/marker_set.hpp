#pragma once
// Marker sets: where the markers of a motion-capture protocol sit on a model's links (Vicon
// Plug-in Gait on human66, …), as a JSON file (maps/markersets/*.json are built in;
// docs/formats.md, "Marker-set JSON"):
//
//   {
//     "name": "human66_plugin_gait",            required, non-empty string
//     "description": "…",                       optional string
//     "model": "human66",                       optional: the model the set is written for; a
//                                               built-in model name (human66, human48) makes
//                                               the reader check every link against it
//     "reference_height": 1.75,                 optional (m, > 0): body height of the model the
//                                               offsets were written for (scaledMarkerSet)
//     "markers": [                              required, non-empty
//       {"name": "LASI",                        required, unique, non-empty
//        "link": "Pelvis",                      required: a link of the model
//        "offset": [0.06, 0.125, 0.075],        required: marker position in the link frame (m)
//        "weight": 1.0,                         optional, finite, ≥ 0 (default 1)
//        "fixed": false}                        optional (default false): true = calibration
//     ]                                         does not move the marker
//   }
//
// Unknown keys, duplicate keys or marker names, wrongly typed values, non-finite numbers and
// (for a built-in "model") unknown links are ParseErrors naming the source, the line and the
// field.
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

struct MarkerSetMarker {
  std::string name;                    ///< marker label (a column of the trial)
  std::string link;                    ///< model link it is attached to
  Vector3d offset = Vector3d::Zero();  ///< position in the link frame (m)
  double weight = 1.0;                 ///< IK weight (≥ 0)
  bool fixed = false;                  ///< calibration leaves it where it is
};

struct MarkerSet {
  std::string name;
  std::string description;
  std::string model;              ///< model the set was written for ("" when not said)
  double reference_height = 0.0;  ///< body height (m) the offsets are for; 0 when not said
  std::vector<MarkerSetMarker> markers;

  /// Index of the marker named `name`, or −1.
  [[nodiscard]] int find(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> names() const;
};

/// Parses a marker set from JSON text; `source` names the text in errors. Throws ParseError
/// (source, line of the offending key where it can be found, field) as described above.
MarkerSet parseMarkerSet(const std::string& json_text, const std::string& source);

/// Reads a marker-set file (ParseError as parseMarkerSet, or when the file cannot be read).
MarkerSet readMarkerSet(const std::string& path);

/// Names of the marker sets built into the library (maps/markersets/*.json of the source tree,
/// embedded at build time; installed to <datadir>/kinetrack/maps/markersets), sorted.
std::vector<std::string> builtinMarkerSetNames();

/// A built-in marker set by name. Throws InvalidArgument for an unknown name, listing the valid
/// ones.
MarkerSet builtinMarkerSet(const std::string& name);

/// The set with every offset multiplied by height / reference_height (offsets written for a
/// reference body height, moved to a model built at `height`). A set without reference_height
/// is returned unchanged. Throws InvalidArgument for a non-positive or non-finite height.
MarkerSet scaledMarkerSet(const MarkerSet& set, double height);

/// `model` plus one User frame per marker, named after the marker, on its link at its offset
/// (identity rotation). Throws InvalidArgument when a marker's link is not a link of the model
/// (listing the links) or its name is already a link, joint or frame of the model.
Model withMarkers(const Model& model, const MarkerSet& set);

}  // namespace kinetrack::io
