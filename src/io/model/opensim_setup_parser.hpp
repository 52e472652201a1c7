#pragma once
// Private to the OpenSim setup readers (opensim_setup.cpp, opensim_scale_setup.cpp,
// opensense_setup.cpp): values of a tool's elements with errors naming the file and line (file
// names, time ranges), file names resolved against the setup's folder, and the IKTaskSet's tasks.
#include <tinyxml2.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"

namespace kinetrack::io::detail {

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

  /// A file name; "" for none (OpenSim writes "Unassigned" for an unset one).
  [[nodiscard]] std::string fileName(const XMLElement* parent, const char* child) const {
    std::string t = text(parent, child);
    return t == "Unassigned" ? std::string() : t;
  }

  /// <time_range>: two numbers, start ≤ end; start and end left as they are without the element.
  void timeRange(const XMLElement* parent, const std::string& owner, double& start, double& end) const {
    const XMLElement* tr = parent->FirstChildElement("time_range");
    if (!tr) return;
    const std::string t = tr->GetText() ? tr->GetText() : "";
    const std::vector<std::string> fields = words(t);
    double a = 0.0, b = 0.0;
    if (fields.size() != 2 || !parseNumber(fields[0], a) || !parseNumber(fields[1], b) || std::isnan(a) ||
        std::isnan(b))
      fail(tr, owner + ": <time_range> '" + std::string(trim(t)) + "' is not two numbers");
    if (a > b) fail(tr, owner + ": <time_range> starts after it ends");
    start = a;
    end = b;
  }

  [[nodiscard]] bool flag(const XMLElement* parent, const char* child, bool fallback, const std::string& owner) const {
    const XMLElement* e = parent->FirstChildElement(child);
    if (!e) return fallback;
    const std::string t = e->GetText() ? std::string(trim(e->GetText())) : std::string();
    if (t == "true" || t == "1") return true;
    if (t == "false" || t == "0") return false;
    fail(e, owner + ": <" + child + "> '" + t + "' is not true or false");
  }

  void tasks(const XMLElement* set, std::vector<IkMarkerTaskSpec>& marker_tasks,
             std::vector<IkCoordinateTaskSpec>& coordinate_tasks) const {
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
        marker_tasks.push_back(std::move(t));
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
        coordinate_tasks.push_back(std::move(t));
      } else {
        fail(e, "IKTaskSet: unknown task type <" + kind + "> (expected IKMarkerTask or IKCoordinateTask)");
      }
    }
  }

 private:
  std::string source_;
};

/// `file` resolved against a setup's folder `directory`, as OpenSim does (absolute paths, an
/// empty name and an empty folder kept).
inline std::string resolveAgainst(const std::string& directory, const std::string& file) {
  if (file.empty()) return file;
  const std::filesystem::path p(file);
  if (p.is_absolute() || directory.empty()) return file;
  return (std::filesystem::path(directory) / p).string();
}

inline void load(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& source) {
  if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
}

/// The element `name` at the root of `doc` or just under it (OpenSimDocument), else the parser's
/// error "no <name> element" followed by `what` (the kind of file it should be).
inline const XMLElement* rootOrChild(const tinyxml2::XMLDocument& doc, const SetupParser& p, const char* name,
                                     const std::string& what) {
  const XMLElement* root = doc.RootElement();
  const XMLElement* e =
      root && std::string(root->Name()) == name ? root : (root ? root->FirstChildElement(name) : nullptr);
  if (!e) p.fail(root, std::string("no <") + name + "> element" + what);
  return e;
}

/// The tasks of an <IKTaskSet> element: inline, or read from the file its `file` attribute names
/// (`resolve(file)` gives its path), that file holding an <IKTaskSet> at its root or inside it.
template <class Resolve>
void ikTaskSet(const SetupParser& p, const XMLElement* set, const Resolve& resolve,
               std::vector<IkMarkerTaskSpec>& marker_tasks, std::vector<IkCoordinateTaskSpec>& coordinate_tasks) {
  const char* file = set->Attribute("file");
  if (file == nullptr || *file == '\0' || std::string(file) == "Unassigned") {
    p.tasks(set, marker_tasks, coordinate_tasks);
    return;
  }
  const std::string path = resolve(file);
  const std::string text = readTextFile(path);
  tinyxml2::XMLDocument doc;
  load(doc, text, path);
  const SetupParser tp(path);
  tp.tasks(rootOrChild(doc, tp, "IKTaskSet", ""), marker_tasks, coordinate_tasks);
}

}  // namespace kinetrack::io::detail
