#include "kinetrack/io/model/opensim_setup.hpp"

#include <tinyxml2.h>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "opensim_setup_parser.hpp"

namespace kinetrack::io {

namespace {

using detail::load;
using detail::parseNumber;
using detail::readTextFile;
using detail::SetupParser;
using detail::trim;
using detail::words;
using tinyxml2::XMLElement;

}  // namespace

std::string IkSetup::resolve(const std::string& file) const { return detail::resolveAgainst(directory, file); }

IkSetup parseIkSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  load(doc, xml_text, source);
  const SetupParser p(source);
  const XMLElement* tool = rootOrChild(doc, p, "InverseKinematicsTool", " (is this an OpenSim IK setup?)");
  IkSetup s;
  s.source = source;
  s.directory = std::filesystem::path(source).parent_path().string();
  s.name = tool->Attribute("name") ? tool->Attribute("name") : "";
  const std::string owner = "InverseKinematicsTool";
  s.model_file = p.text(tool, "model_file");
  s.marker_file = p.text(tool, "marker_file");
  s.coordinate_file = p.text(tool, "coordinate_file");
  if (s.coordinate_file == "Unassigned") s.coordinate_file.clear();
  s.output_motion_file = p.text(tool, "output_motion_file");
  s.constraint_weight = p.number(tool, "constraint_weight", s.constraint_weight, owner, true);
  s.accuracy = p.number(tool, "accuracy", s.accuracy, owner, true);
  if (!(s.accuracy > 0.0) || std::isinf(s.accuracy))
    p.fail(tool->FirstChildElement("accuracy"), owner + ": accuracy must be a positive number");
  s.report_errors = p.flag(tool, "report_errors", s.report_errors, owner);
  s.report_marker_locations = p.flag(tool, "report_marker_locations", s.report_marker_locations, owner);
  p.timeRange(tool, owner, s.time_start, s.time_end);
  if (const XMLElement* set = tool->FirstChildElement("IKTaskSet"))
    ikTaskSet(
        p, set, [&s](const std::string& f) { return s.resolve(f); }, s.marker_tasks, s.coordinate_tasks);
  return s;
}

IkSetup readIkSetup(const std::string& path) { return parseIkSetup(readTextFile(path), path); }

}  // namespace kinetrack::io
