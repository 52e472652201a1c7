#include "kinetrack/io/model/external_loads.hpp"

#include <tinyxml2.h>

#include <algorithm>
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

std::string resolveAgainst(const std::string& directory, const std::string& file) {
  if (file.empty() || std::filesystem::path(file).is_absolute() || directory.empty()) return file;
  return (std::filesystem::path(directory) / file).string();
}

std::string folderOf(const std::string& source) { return std::filesystem::path(source).parent_path().string(); }

std::string childText(const XMLElement* parent, const char* child) {
  const XMLElement* e = parent->FirstChildElement(child);
  if (!e || !e->GetText()) return {};
  return std::string(trim(e->GetText()));
}

int childLine(const XMLElement* parent, const char* child) {
  const XMLElement* e = parent->FirstChildElement(child);
  return e ? e->GetLineNum() : parent->GetLineNum();
}

// The root element `tag`, directly or inside <OpenSimDocument>.
const XMLElement* documentRoot(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& source,
                               const char* tag) {
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  const XMLElement* root = doc.RootElement();
  if (root && std::string(root->Name()) == "OpenSimDocument") root = root->FirstChildElement(tag);
  if (!root || std::string(root->Name()) != tag)
    throw ParseError(source, root ? root->GetLineNum() : 0, std::string("no <") + tag + "> element");
  return root;
}

bool isTrue(const std::string& t) { return t == "true" || t == "1"; }

// Columns `<prefix>x/y/z` (or 1/2/3) of `data`; false when one is missing (`missing` names it).
bool findTriple(const MotTable& data, const std::string& prefix, int (&out)[3], std::string& missing) {
  static const char* const kSuffixes[2][3] = {{"x", "y", "z"}, {"1", "2", "3"}};
  for (const auto& suffixes : kSuffixes) {
    bool all = true;
    for (int k = 0; k < 3; ++k) {
      const auto it = std::find(data.columns.begin(), data.columns.end(), prefix + suffixes[k]);
      out[k] = it == data.columns.end() ? -1 : static_cast<int>(it - data.columns.begin());
      all = all && out[k] >= 0;
    }
    if (all) return true;
  }
  for (const char* suffix : kSuffixes[0])
    if (std::find(data.columns.begin(), data.columns.end(), prefix + suffix) == data.columns.end()) {
      missing = prefix + suffix;
      break;
    }
  return false;
}

}  // namespace

std::string ExternalLoadsSpec::resolve(const std::string& file) const { return resolveAgainst(directory, file); }
std::string IdSetup::resolve(const std::string& file) const { return resolveAgainst(directory, file); }

ExternalLoadsSpec parseExternalLoadsSpec(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  const XMLElement* root = documentRoot(doc, xml_text, source, "ExternalLoads");
  ExternalLoadsSpec out;
  out.source = source;
  out.directory = folderOf(source);
  if (const char* n = root->Attribute("name")) out.name = n;
  out.datafile = childText(root, "datafile");
  out.datafile_line = childLine(root, "datafile");
  const XMLElement* objects = root->FirstChildElement("objects");
  if (!objects) return out;
  for (const XMLElement* e = objects->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string kind = e->Name();
    if (kind != "ExternalForce")
      throw ParseError(source, e->GetLineNum(), "<" + kind + ">: only <ExternalForce> is supported in ExternalLoads");
    ExternalForceSpec f;
    f.line = e->GetLineNum();
    const char* name = e->Attribute("name");
    if (!name || !*name) throw ParseError(source, f.line, "<ExternalForce> has no name");
    f.name = name;
    const std::string owner = "ExternalForce '" + f.name + "'";
    const std::string disabled = childText(e, "isDisabled");
    const std::string applies = childText(e, "appliesForce");  // 4.0: the inverse flag
    f.disabled = isTrue(disabled) || applies == "false" || applies == "0";
    f.applied_to_body = childText(e, "applied_to_body");
    if (f.applied_to_body.empty()) throw ParseError(source, f.line, owner + ": no <applied_to_body>");
    if (const std::string t = childText(e, "force_expressed_in_body"); !t.empty()) f.force_expressed_in_body = t;
    if (const std::string t = childText(e, "point_expressed_in_body"); !t.empty()) f.point_expressed_in_body = t;
    f.force_identifier = childText(e, "force_identifier");
    f.point_identifier = childText(e, "point_identifier");
    f.torque_identifier = childText(e, "torque_identifier");
    f.data_source_name = childText(e, "data_source_name");
    if (f.force_identifier.empty() && f.torque_identifier.empty())
      throw ParseError(source, f.line, owner + ": neither <force_identifier> nor <torque_identifier>");
    out.forces.push_back(std::move(f));
  }
  return out;
}

ExternalLoadsSpec readExternalLoadsSpec(const std::string& path) {
  return parseExternalLoadsSpec(readTextFile(path), path);
}

ExternalLoads bindExternalLoads(ExternalLoadsSpec spec, MotTable data, const std::string& data_source) {
  ExternalLoads out;
  if (data.times.size() < 2)
    throw ParseError(data_source, 0,
                     "external loads data: " + std::to_string(data.times.size()) + " rows, at least 2 are needed");
  for (const ExternalForceSpec& f : spec.forces) {
    if (f.disabled) continue;
    ExternalForceColumns c;
    std::string missing;
    const auto need = [&](const std::string& prefix, int(&cols)[3], const char* what) {
      if (prefix.empty()) return;
      if (!findTriple(data, prefix, cols, missing))
        throw ParseError(spec.source, f.line,
                         "ExternalForce '" + f.name + "': " + what + " identifier '" + prefix + "': column '" +
                             missing + "' is not in the data file " + data_source);
    };
    need(f.force_identifier, c.force, "force");
    need(f.point_identifier, c.point, "point");
    need(f.torque_identifier, c.torque, "torque");
    for (const int* cols : {c.force, c.point, c.torque})
      for (int k = 0; k < 3; ++k) {
        if (cols[k] < 0) continue;
        for (Eigen::Index r = 0; r < data.values.rows(); ++r)
          if (!std::isfinite(data.values(r, cols[k])))
            throw ParseError(data_source, 0,
                             "column '" + data.columns[static_cast<std::size_t>(cols[k])] + "' at time " +
                                 std::to_string(data.times[static_cast<std::size_t>(r)]) +
                                 " is not a finite number (used by ExternalForce '" + f.name + "')");
      }
    out.forces.push_back(f);
    out.columns.push_back(c);
  }
  out.spec = std::move(spec);
  out.data = std::move(data);
  out.data_source = data_source;
  return out;
}

ExternalLoads readExternalLoads(const std::string& path, const std::string& data_file) {
  ExternalLoadsSpec spec = readExternalLoadsSpec(path);
  std::string file = data_file.empty() ? spec.resolve(spec.datafile) : data_file;
  if (file.empty() || (spec.datafile == "Unassigned" && data_file.empty()))
    throw ParseError(path, spec.datafile_line, "ExternalLoads: no <datafile> (give the data file explicitly)");
  std::string notice;
  if (data_file.empty() && !std::filesystem::exists(file)) {
    const std::filesystem::path beside =
        std::filesystem::path(spec.directory) / std::filesystem::path(spec.datafile).filename();
    if (std::filesystem::exists(beside)) {
      notice = path + ": <datafile> " + spec.datafile + " does not exist; " + beside.filename().string() +
               " beside it is read";
      file = beside.string();
    }
  }
  MotTable data = readMot(file);
  ExternalLoads loads = bindExternalLoads(std::move(spec), std::move(data), file);
  if (!notice.empty()) loads.notices.push_back(notice);
  return loads;
}

void ExternalLoads::sample(double t, std::vector<ExternalForceSample>& out) const {
  if (out.size() != forces.size())
    throw InvalidArgument("ExternalLoads::sample: expected " + std::to_string(forces.size()) + " entries, got " +
                          std::to_string(out.size()));
  const std::vector<double>& ts = data.times;
  constexpr double kTolerance = 1e-6;
  if (!(t >= ts.front() - kTolerance && t <= ts.back() + kTolerance))
    throw InvalidArgument("external loads " + data_source + ": time " + std::to_string(t) + " s is outside " +
                          std::to_string(ts.front()) + "–" + std::to_string(ts.back()) + " s");
  const auto it = std::upper_bound(ts.begin(), ts.end(), t);
  std::size_t i1 = static_cast<std::size_t>(it - ts.begin());
  i1 = std::clamp<std::size_t>(i1, 1, ts.size() - 1);
  const std::size_t i0 = i1 - 1;
  const double w = std::clamp((t - ts[i0]) / (ts[i1] - ts[i0]), 0.0, 1.0);
  const auto value = [&](int col) {
    return (1.0 - w) * data.values(static_cast<Eigen::Index>(i0), col) +
           w * data.values(static_cast<Eigen::Index>(i1), col);
  };
  const auto triple = [&](const int(&cols)[3], Vector3d& v) {
    if (cols[0] < 0) {
      v.setZero();
      return false;
    }
    v = Vector3d(value(cols[0]), value(cols[1]), value(cols[2]));
    return true;
  };
  for (std::size_t k = 0; k < forces.size(); ++k) {
    triple(columns[k].force, out[k].force);
    out[k].has_point = triple(columns[k].point, out[k].point);
    triple(columns[k].torque, out[k].torque);
  }
}

IdSetup parseIdSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  const XMLElement* root = documentRoot(doc, xml_text, source, "InverseDynamicsTool");
  IdSetup out;
  out.source = source;
  out.directory = folderOf(source);
  if (const char* n = root->Attribute("name")) out.name = n;
  out.model_file = childText(root, "model_file");
  out.coordinates_file = childText(root, "coordinates_file");
  out.external_loads_file = childText(root, "external_loads_file");
  out.output_gen_force_file = childText(root, "output_gen_force_file");
  out.results_directory = childText(root, "results_directory");
  if (const XMLElement* e = root->FirstChildElement("time_range")) {
    const std::vector<std::string> w = words(e->GetText() ? e->GetText() : "");
    double a = 0.0, b = 0.0;
    if (w.size() != 2 || !parseNumber(w[0], a) || !parseNumber(w[1], b) || !std::isfinite(a) || !std::isfinite(b))
      throw ParseError(source, e->GetLineNum(), "InverseDynamicsTool: <time_range> needs two finite numbers");
    if (a > b) throw ParseError(source, e->GetLineNum(), "InverseDynamicsTool: <time_range> start > end");
    out.time_start = a;
    out.time_end = b;
  }
  if (const XMLElement* e = root->FirstChildElement("lowpass_cutoff_frequency_for_coordinates")) {
    const std::string t(trim(e->GetText() ? e->GetText() : ""));
    if (!parseNumber(t, out.lowpass_cutoff_hz) || !std::isfinite(out.lowpass_cutoff_hz))
      throw ParseError(source, e->GetLineNum(),
                       "InverseDynamicsTool: <lowpass_cutoff_frequency_for_coordinates> '" + t + "' is not a number");
  }
  out.forces_to_exclude = words(childText(root, "forces_to_exclude"));
  if (root->FirstChildElement("coordinates_in_degrees"))
    out.coordinates_in_degrees = isTrue(childText(root, "coordinates_in_degrees")) ? 1 : 0;
  return out;
}

IdSetup readIdSetup(const std::string& path) { return parseIdSetup(readTextFile(path), path); }

}  // namespace kinetrack::io
