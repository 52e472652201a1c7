#include "kinetrack/io/model/opensim_setup.hpp"

#include <tinyxml2.h>

#include <cctype>
#include <cmath>
#include <filesystem>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

namespace {

using detail::parseNumber;
using detail::readTextFile;
using detail::trim;
using detail::words;
using tinyxml2::XMLElement;

class SetupParser {
 public:
  explicit SetupParser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const XMLElement* e, const std::string& msg) const {
    throw ParseError(source_, e ? e->GetLineNum() : 0, msg);
  }

  [[nodiscard]] std::string text(const XMLElement* parent, const char* child) const {
    const XMLElement* e = parent->FirstChildElement(child);
    if (!e || !e->GetText()) return {};
    return std::string(trim(e->GetText()));
  }

  [[nodiscard]] double number(const XMLElement* parent, const char* child, double fallback, const std::string& owner,
                              bool non_negative = false) const {
    const XMLElement* e = parent->FirstChildElement(child);
    if (!e) return fallback;
    const std::string t = e->GetText() ? std::string(trim(e->GetText())) : std::string();
    double v = 0.0;
    // OpenSim writes infinity as "Inf" (also "inf", "Infinity").
    if (t == "Inf" || t == "inf" || t == "Infinity" || t == "infinity") return std::numeric_limits<double>::infinity();
    if (!parseNumber(t, v) || std::isnan(v) || (non_negative && v < 0.0))
      fail(e, owner + ": <" + child + "> '" + t + "' is not a " + (non_negative ? "non-negative " : "") + "number");
    return v;
  }

  [[nodiscard]] bool flag(const XMLElement* parent, const char* child, bool fallback, const std::string& owner) const {
    const XMLElement* e = parent->FirstChildElement(child);
    if (!e) return fallback;
    const std::string t = e->GetText() ? std::string(trim(e->GetText())) : std::string();
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
    fail(e, owner + ": <" + child + "> '" + t + "' is not true or false");
  }

  void tasks(const XMLElement* set, IkSetup& out) const {
    const XMLElement* objects = set->FirstChildElement("objects");
    if (!objects) return;
    for (const XMLElement* e = objects->FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string kind = e->Name();
      const char* name_attr = e->Attribute("name");
      if (!name_attr || !*name_attr) fail(e, "<" + kind + "> has no name");
      const std::string owner = kind + " '" + name_attr + "'";
      if (kind == "IKMarkerTask") {
        IkMarkerTaskSpec t;
        t.name = name_attr;
        t.apply = flag(e, "apply", true, owner);
        t.weight = number(e, "weight", 1.0, owner, true);
        if (std::isinf(t.weight)) fail(e, owner + ": weight must be finite");
        t.line = e->GetLineNum();
        out.marker_tasks.push_back(std::move(t));
      } else if (kind == "IKCoordinateTask") {
        IkCoordinateTaskSpec t;
        t.name = name_attr;
        t.apply = flag(e, "apply", true, owner);
        t.weight = number(e, "weight", 1.0, owner, true);
        if (std::isinf(t.weight)) fail(e, owner + ": weight must be finite");
        const std::string vt = text(e, "value_type");
        if (vt.empty() || vt == "default_value")
          t.value_type = IkCoordinateTaskSpec::ValueType::DefaultValue;
        else if (vt == "manual_value")
          t.value_type = IkCoordinateTaskSpec::ValueType::ManualValue;
        else if (vt == "from_file")
          t.value_type = IkCoordinateTaskSpec::ValueType::FromFile;
        else
          fail(e->FirstChildElement("value_type"),
               owner + ": value_type '" + vt + "' is not default_value, manual_value or from_file");
        t.value = number(e, "value", 0.0, owner);
        if (std::isinf(t.value)) fail(e, owner + ": value must be finite");
        t.line = e->GetLineNum();
        out.coordinate_tasks.push_back(std::move(t));
      } else {
        fail(e, "IKTaskSet: unknown task type <" + kind + "> (expected IKMarkerTask or IKCoordinateTask)");
      }
    }
  }

 private:
  std::string source_;
};

void load(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& source) {
  if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
}

}  // namespace

std::string IkSetup::resolve(const std::string& file) const {
  if (file.empty()) return file;
  const std::filesystem::path p(file);
  if (p.is_absolute() || directory.empty()) return file;
  return (std::filesystem::path(directory) / p).string();
}

IkSetup parseIkSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  load(doc, xml_text, source);
  const SetupParser p(source);
  const XMLElement* root = doc.RootElement();
  const XMLElement* tool = nullptr;
  if (root && std::string(root->Name()) == "InverseKinematicsTool")
    tool = root;
  else if (root)
    tool = root->FirstChildElement("InverseKinematicsTool");
  if (!tool) p.fail(root, "no <InverseKinematicsTool> element (is this an OpenSim IK setup?)");
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
  if (const XMLElement* tr = tool->FirstChildElement("time_range")) {
    const std::string t = tr->GetText() ? tr->GetText() : "";
    const std::vector<std::string> fields = words(t);
    double a = 0.0, b = 0.0;
    if (fields.size() != 2 || !parseNumber(fields[0], a) || !parseNumber(fields[1], b) || std::isnan(a) ||
        std::isnan(b))
      p.fail(tr, owner + ": <time_range> '" + std::string(trim(t)) + "' is not two numbers");
    if (a > b) p.fail(tr, owner + ": <time_range> starts after it ends");
    s.time_start = a;
    s.time_end = b;
  }
  if (const XMLElement* set = tool->FirstChildElement("IKTaskSet")) {
    if (const char* file = set->Attribute("file"); file && *file && std::string(file) != "Unassigned") {
      const std::string path = s.resolve(file);
      const std::string text = readTextFile(path);
      tinyxml2::XMLDocument tdoc;
      load(tdoc, text, path);
      const SetupParser tp(path);
      const XMLElement* troot = tdoc.RootElement();
      const XMLElement* tset = troot && std::string(troot->Name()) == "IKTaskSet"
                                   ? troot
                                   : (troot ? troot->FirstChildElement("IKTaskSet") : nullptr);
      if (!tset) tp.fail(troot, "no <IKTaskSet> element");
      tp.tasks(tset, s);
    } else {
      p.tasks(set, s);
    }
  }
  return s;
}

IkSetup readIkSetup(const std::string& path) { return parseIkSetup(readTextFile(path), path); }

}  // namespace kinetrack::io
