#include "kinetrack/io/model/vsk.hpp"

#include <tinyxml2.h>

#include <cmath>
#include <set>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

std::optional<double> VskSubject::parameter(const std::string& name) const {
  for (const auto& [n, v] : parameters)
    if (n == name) return v;
  return std::nullopt;
}

double VskSubject::height() const {
  const auto h = parameter("Height");
  if (!h) throw InvalidArgument(source + ": the subject has no Height parameter");
  return *h / 1000.0;
}

double VskSubject::mass() const {
  const auto m = parameter("Bodymass");
  if (!m) throw InvalidArgument(source + ": the subject has no Bodymass parameter");
  return *m;
}

VskSubject parseVsk(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml_text.c_str(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("invalid XML: ") + doc.ErrorStr());
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "KinematicModel")
    throw ParseError(source, root ? root->GetLineNum() : 0,
                     std::string("expected a <KinematicModel> root element, got <") + (root ? root->Name() : "") + ">");
  VskSubject out;
  out.source = source;
  if (const char* m = root->Attribute("MODEL")) out.model = m;
  std::set<std::string> seen;
  const tinyxml2::XMLElement* params = root->FirstChildElement("Parameters");
  for (const tinyxml2::XMLElement* e = params ? params->FirstChildElement() : nullptr; e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag != "StaticParameter" && tag != "Parameter") continue;
    const char* name = e->Attribute("NAME");
    if (!name || !*name) throw ParseError(source, e->GetLineNum(), "<" + tag + "> without a NAME");
    const char* value = e->Attribute("VALUE");
    if (!value) continue;  // declared, no value (e.g. LeftTibialTorsion)
    double v = 0.0;
    if (!detail::parseNumber(detail::trim(value), v) || !std::isfinite(v))
      throw ParseError(source, e->GetLineNum(),
                       "parameter '" + std::string(name) + "': VALUE '" + value + "' is not a finite number");
    if (!seen.insert(name).second)
      throw ParseError(source, e->GetLineNum(), "parameter '" + std::string(name) + "' is given twice");
    out.parameters.emplace_back(name, v);
  }
  return out;
}

VskSubject readVsk(const std::string& path) { return parseVsk(detail::readTextFile(path), path); }

}  // namespace kinetrack::io
