// OpenSim model and marker-set readers: the public entry points (the work is in
// opensim_model_{xml,parse,joints,build}.cpp, see opensim_model_impl.hpp).
#include "kinetrack/io/model/opensim_model.hpp"

#include <cstring>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io {

Configuration OpenSimModel::defaultConfiguration() const {
  if (!model) throw InvalidArgument("OpenSimModel::defaultConfiguration: no model");
  Configuration q(*model);
  for (const OpenSimCoordinate& c : coordinates) q.joints[c.joint.value] = c.default_value;
  return q;
}

const OpenSimCoordinate* OpenSimModel::findCoordinate(std::string_view name) const {
  for (const OpenSimCoordinate& c : coordinates)
    if (c.name == name) return &c;
  return nullptr;
}

const OpenSimOffsetFrame* OpenSimModel::findOffsetFrame(std::string_view name) const {
  for (const OpenSimOffsetFrame& f : offset_frames)
    if (f.name == name) return &f;
  return nullptr;
}

OpenSimModel parseOpenSimModel(const std::string& xml_text, const std::string& source,
                               const OpenSimReadOptions& options) {
  return detail::osim::buildModel(detail::osim::parseDocument(xml_text, source), options);
}

OpenSimModel readOpenSimModel(const std::string& path, const OpenSimReadOptions& options) {
  return parseOpenSimModel(detail::readTextFile(path), path, options);
}

std::vector<OpenSimMarker> parseOpenSimMarkerSet(const std::string& xml_text, const std::string& source) {
  using detail::osim::Xml;
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml_text.c_str(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  const Xml xml(source);
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root || std::strcmp(root->Name(), "OpenSimDocument") != 0)
    xml.fail(root,
             std::string("root element must be <OpenSimDocument>, found <") + (root ? root->Name() : "nothing") + ">");
  const tinyxml2::XMLElement* set = Xml::child(root, "MarkerSet");
  if (!set) set = Xml::child(Xml::child(root, "Model"), "MarkerSet");
  if (!set) xml.fail(root, "no <MarkerSet> (in <OpenSimDocument> or its <Model>)");
  std::vector<OpenSimMarker> out;
  for (detail::osim::MarkerDef& m : detail::osim::readMarkerElements(xml, set)) {
    if (m.marker.body.empty())
      xml.fail(m.element, "Marker '" + m.marker.name + "': frame '" + m.frame +
                              "' is not a body path (/bodyset/<body> or /ground); markers on offset frames need the "
                              "model (readOpenSimModel)");
    out.push_back(std::move(m.marker));
  }
  return out;
}

std::vector<OpenSimMarker> readOpenSimMarkerSet(const std::string& path) {
  return parseOpenSimMarkerSet(detail::readTextFile(path), path);
}

}  // namespace kinetrack::io
