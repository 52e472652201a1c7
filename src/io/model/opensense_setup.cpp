#include "kinetrack/io/model/opensense_setup.hpp"

#include <tinyxml2.h>

#include <Eigen/Geometry>
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

Vector3d rotations(const SetupParser& p, const XMLElement* tool, const std::string& owner) {
  const XMLElement* e = tool->FirstChildElement("sensor_to_opensim_rotations");
  if (!e) return Vector3d::Zero();
  const std::string t = e->GetText() ? e->GetText() : "";
  const std::vector<std::string> f = words(t);
  Vector3d v;
  if (f.size() != 3 || !parseNumber(f[0], v.x()) || !parseNumber(f[1], v.y()) || !parseNumber(f[2], v.z()) ||
      !v.allFinite())
    p.fail(e, owner + ": <sensor_to_opensim_rotations> '" + std::string(trim(t)) + "' is not three angles (rad)");
  return v;
}

}  // namespace

std::string ImuPlacerSetup::resolve(const std::string& f) const { return detail::resolveAgainst(directory, f); }
std::string ImuIkSetup::resolve(const std::string& f) const { return detail::resolveAgainst(directory, f); }

Matrix3d sensorToOpenSimRotation(const Vector3d& xyz) {
  return (Eigen::AngleAxisd(xyz.z(), Vector3d::UnitZ()) * Eigen::AngleAxisd(xyz.y(), Vector3d::UnitY()) *
          Eigen::AngleAxisd(xyz.x(), Vector3d::UnitX()))
      .toRotationMatrix();
}

ImuPlacerSetup parseImuPlacerSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  load(doc, xml_text, source);
  const SetupParser p(source);
  const XMLElement* tool = rootOrChild(doc, p, "IMUPlacer", " (is this an OpenSense IMU placer setup?)");
  const std::string owner = "IMUPlacer";
  ImuPlacerSetup s;
  s.source = source;
  s.directory = std::filesystem::path(source).parent_path().string();
  s.model_file = p.fileName(tool, "model_file");
  s.orientation_file_for_calibration = p.fileName(tool, "orientation_file_for_calibration");
  s.output_model_file = p.fileName(tool, "output_model_file");
  s.sensor_to_opensim_rotations = rotations(p, tool, owner);
  s.base_imu_label = p.text(tool, "base_imu_label");
  s.base_heading_axis = p.text(tool, "base_heading_axis");
  const std::string& a = s.base_heading_axis;
  if (!a.empty() && a != "x" && a != "-x" && a != "y" && a != "-y" && a != "z" && a != "-z")
    p.fail(tool->FirstChildElement("base_heading_axis"),
           owner + ": <base_heading_axis> '" + a + "' is not one of x, -x, y, -y, z, -z");
  if (!s.base_imu_label.empty() && a.empty())
    p.fail(tool->FirstChildElement("base_imu_label"),
           owner + ": base IMU '" + s.base_imu_label + "' has no <base_heading_axis>");
  return s;
}

ImuPlacerSetup readImuPlacerSetup(const std::string& path) { return parseImuPlacerSetup(readTextFile(path), path); }

ImuIkSetup parseImuIkSetup(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  load(doc, xml_text, source);
  const SetupParser p(source);
  const XMLElement* tool =
      rootOrChild(doc, p, "IMUInverseKinematicsTool", " (is this an OpenSense IMU inverse kinematics setup?)");
  const std::string owner = "IMUInverseKinematicsTool";
  ImuIkSetup s;
  s.source = source;
  s.directory = std::filesystem::path(source).parent_path().string();
  s.model_file = p.fileName(tool, "model_file");
  s.orientations_file = p.fileName(tool, "orientations_file");
  s.output_motion_file = p.fileName(tool, "output_motion_file");
  s.results_directory = p.text(tool, "results_directory");
  s.sensor_to_opensim_rotations = rotations(p, tool, owner);
  s.accuracy = p.number(tool, "accuracy", s.accuracy, owner, true);
  if (!(s.accuracy > 0.0) || std::isinf(s.accuracy))
    p.fail(tool->FirstChildElement("accuracy"), owner + ": accuracy must be a positive number");
  s.constraint_weight = p.number(tool, "constraint_weight", s.constraint_weight, owner, true);
  s.report_errors = p.flag(tool, "report_errors", s.report_errors, owner);
  p.timeRange(tool, owner, s.time_start, s.time_end);
  // <orientation_weights><OrientationWeightSet><objects><OrientationWeight name=…><weight>…
  if (const XMLElement* ow = tool->FirstChildElement("orientation_weights")) {
    const XMLElement* set = ow->FirstChildElement("OrientationWeightSet");
    const XMLElement* objects = (set ? set : ow)->FirstChildElement("objects");
    for (const XMLElement* e = objects ? objects->FirstChildElement("OrientationWeight") : nullptr; e;
         e = e->NextSiblingElement("OrientationWeight")) {
      const char* name = e->Attribute("name");
      if (!name || !*name) p.fail(e, "<OrientationWeight> has no name");
      const std::string w_owner = std::string("OrientationWeight '") + name + "'";
      ImuWeightSpec w{name, p.number(e, "weight", 1.0, w_owner, true), e->GetLineNum()};
      if (std::isinf(w.weight)) p.fail(e, w_owner + ": weight must be finite");
      for (const ImuWeightSpec& other : s.orientation_weights)
        if (other.name == w.name) p.fail(e, w_owner + " appears twice");
      s.orientation_weights.push_back(std::move(w));
    }
  }
  return s;
}

ImuIkSetup readImuIkSetup(const std::string& path) { return parseImuIkSetup(readTextFile(path), path); }

}  // namespace kinetrack::io
