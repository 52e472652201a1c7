#include "kinetrack/io/model/opensim_scale_setup.hpp"

#include <tinyxml2.h>

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

std::string nameOf(const XMLElement* e) { return e->Attribute("name") ? e->Attribute("name") : ""; }

// The elements of a set's <objects> (or the set's own children when it has none) with that tag.
std::vector<const XMLElement*> objects(const XMLElement* set, const char* tag) {
  std::vector<const XMLElement*> out;
  if (!set) return out;
  const XMLElement* holder = set->FirstChildElement("objects");
  if (!holder) holder = set;
  for (const XMLElement* e = holder->FirstChildElement(tag); e; e = e->NextSiblingElement(tag)) out.push_back(e);
  return out;
}

void measurement(const SetupParser& p, const XMLElement* e, ScaleSetup& s) {
  ScaleMeasurement m;
  m.name = nameOf(e);
  m.line = e->GetLineNum();
  const std::string owner = "Measurement '" + m.name + "'";
  m.apply = p.flag(e, "apply", true, owner);
  for (const XMLElement* pe : objects(e->FirstChildElement("MarkerPairSet"), "MarkerPair")) {
    const XMLElement* me = pe->FirstChildElement("markers");
    const std::string t = me && me->GetText() ? me->GetText() : "";
    const std::vector<std::string> names = words(t);
    if (names.size() != 2)
      p.fail(me ? me : pe, owner + ": <markers> '" + std::string(trim(t)) + "' names " + std::to_string(names.size()) +
                               " marker" + (names.size() == 1 ? "" : "s") + ", expected 2");
    m.pairs.push_back({names[0], names[1], (me ? me : pe)->GetLineNum()});
  }
  for (const XMLElement* be : objects(e->FirstChildElement("BodyScaleSet"), "BodyScale")) {
    ScaleBodyAxes b;
    b.body = nameOf(be);
    b.line = be->GetLineNum();
    if (b.body.empty()) p.fail(be, owner + ": <BodyScale> has no name (the body to scale)");
    const XMLElement* ax = be->FirstChildElement("axes");
    const std::string t = ax && ax->GetText() ? ax->GetText() : "";
    for (const std::string& w : words(t)) {
      if (w == "X" || w == "x")
        b.axes[0] = true;
      else if (w == "Y" || w == "y")
        b.axes[1] = true;
      else if (w == "Z" || w == "z")
        b.axes[2] = true;
      else
        p.fail(ax, owner + ": BodyScale '" + b.body + "': axis '" + w + "' is not X, Y or Z");
    }
    m.bodies.push_back(std::move(b));
  }
  s.measurements.push_back(std::move(m));
}

void modelScaler(const SetupParser& p, const XMLElement* ms, ScaleSetup& s) {
  const std::string owner = "ModelScaler";
  s.scaler_apply = p.flag(ms, "apply", true, owner);
  if (const XMLElement* so = ms->FirstChildElement("scaling_order")) {
    for (const std::string& w : words(so->GetText() ? so->GetText() : "")) {
      if (w != "measurements" && w != "manualScale")
        p.fail(so, owner + ": <scaling_order> '" + w + "' is not measurements or manualScale");
      s.scaling_order.push_back(w);
    }
  }
  for (const XMLElement* e : objects(ms->FirstChildElement("MeasurementSet"), "Measurement")) measurement(p, e, s);
  for (const XMLElement* e : objects(ms->FirstChildElement("ScaleSet"), "Scale")) {
    ManualScale m;
    m.line = e->GetLineNum();
    m.body = p.text(e, "segment");
    if (m.body.empty()) p.fail(e, "ScaleSet: <Scale> has no <segment>");
    const std::string so = "Scale of '" + m.body + "'";
    const XMLElement* se = e->FirstChildElement("scales");
    const std::string t = se && se->GetText() ? se->GetText() : "";
    const std::vector<std::string> f = words(t);
    if (f.size() != 3 || !parseNumber(f[0], m.factors.x()) || !parseNumber(f[1], m.factors.y()) ||
        !parseNumber(f[2], m.factors.z()) || !m.factors.allFinite())
      p.fail(se ? se : e, so + ": <scales> '" + std::string(trim(t)) + "' is not three numbers");
    m.apply = p.flag(e, "apply", true, so);
    s.manual_scales.push_back(std::move(m));
  }
  s.scaler_marker_file = p.fileName(ms, "marker_file");
  p.timeRange(ms, owner, s.scaler_time_start, s.scaler_time_end);
  s.preserve_mass_distribution = p.flag(ms, "preserve_mass_distribution", false, owner);
  s.scaler_output_model_file = p.fileName(ms, "output_model_file");
  s.output_scale_file = p.fileName(ms, "output_scale_file");
}

void markerPlacer(const SetupParser& p, const XMLElement* mp, ScaleSetup& s) {
  const std::string owner = "MarkerPlacer";
  s.placer_apply = p.flag(mp, "apply", true, owner);
  if (const XMLElement* set = mp->FirstChildElement("IKTaskSet"))
    ikTaskSet(
        p, set, [&s](const std::string& f) { return s.resolve(f); }, s.marker_tasks, s.coordinate_tasks);
  s.placer_marker_file = p.fileName(mp, "marker_file");
  s.coordinate_file = p.fileName(mp, "coordinate_file");
  p.timeRange(mp, owner, s.placer_time_start, s.placer_time_end);
  s.output_model_file = p.fileName(mp, "output_model_file");
  s.output_motion_file = p.fileName(mp, "output_motion_file");
  s.output_marker_file = p.fileName(mp, "output_marker_file");
  s.max_marker_movement = p.number(mp, "max_marker_movement", -1.0, owner);
}

}  // namespace

std::string ScaleSetup::resolve(const std::string& file) const { return detail::resolveAgainst(directory, file); }

IkSetup ScaleSetup::ikSetup() const {
  IkSetup s;
  s.source = source;
  s.directory = directory;
  s.name = name;
  s.marker_file = placer_marker_file;
  s.coordinate_file = coordinate_file;
  s.time_start = placer_time_start;
  s.time_end = placer_time_end;
  s.marker_tasks = marker_tasks;
  s.coordinate_tasks = coordinate_tasks;
  return s;
}

ScaleSetup parseScaleSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  load(doc, xml_text, source);
  const SetupParser p(source);
  const XMLElement* tool = rootOrChild(doc, p, "ScaleTool", " (is this an OpenSim Scale setup?)");
  ScaleSetup s;
  s.source = source;
  s.directory = std::filesystem::path(source).parent_path().string();
  s.name = nameOf(tool);
  s.line = tool->GetLineNum();
  s.mass = p.number(tool, "mass", -1.0, "ScaleTool");
  if (std::isinf(s.mass)) p.fail(tool->FirstChildElement("mass"), "ScaleTool: <mass> must be finite");
  if (const XMLElement* g = tool->FirstChildElement("GenericModelMaker")) {
    s.model_file = p.fileName(g, "model_file");
    s.marker_set_file = p.fileName(g, "marker_set_file");
  }
  if (const XMLElement* ms = tool->FirstChildElement("ModelScaler"))
    modelScaler(p, ms, s);
  else
    s.scaler_apply = false;
  if (const XMLElement* mp = tool->FirstChildElement("MarkerPlacer"))
    markerPlacer(p, mp, s);
  else
    s.placer_apply = false;
  return s;
}

ScaleSetup readScaleSetup(const std::string& path) { return parseScaleSetup(readTextFile(path), path); }

}  // namespace kinetrack::io
