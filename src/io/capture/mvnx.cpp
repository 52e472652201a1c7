// MVNX reader (tinyxml2; every number list is checked for count and syntax).
#include "kinetrack/io/capture/mvnx.hpp"

#include <tinyxml2.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::io {

namespace {

using tinyxml2::XMLElement;

[[noreturn]] void fail(const std::string& source, const XMLElement* e, const std::string& msg) {
  throw ParseError(source, e ? e->GetLineNum() : 0, msg);
}

// Parses exactly `count` whitespace-separated numbers from e's text into out.
void numbers(const std::string& source, const XMLElement* e, std::size_t count, const std::string& what,
             std::vector<double>& out) {
  out.clear();
  const char* s = e->GetText();
  const char* end = s ? s + std::strlen(s) : nullptr;
  while (s && s < end) {
    while (s < end && std::isspace(static_cast<unsigned char>(*s))) ++s;
    if (s >= end) break;
    const char* t = s;
    while (t < end && !std::isspace(static_cast<unsigned char>(*t))) ++t;
    double v = 0.0;
    const std::string_view tok(s, static_cast<std::size_t>(t - s));
    if (!detail::parseNumber(tok, v))
      fail(source, e,
           what + ": value " + std::to_string(out.size() + 1) + " '" + std::string(tok) + "' is not a number");
    out.push_back(v);
    s = t;
  }
  if (out.size() != count)
    fail(source, e, what + ": expected " + std::to_string(count) + " numbers, got " + std::to_string(out.size()));
}

void vectors(const std::vector<double>& v, std::vector<Vector3d>& out) {
  out.resize(v.size() / 3);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Vector3d(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
}

MvnxFrame parseFrame(const std::string& source, const XMLElement* fe, std::size_t ns, std::size_t nsensors,
                     double rate) {
  MvnxFrame f;
  f.line = fe->GetLineNum();
  const char* type = fe->Attribute("type");
  f.type = type ? type : "normal";
  f.index = fe->IntAttribute("index", 0);
  const std::string who = "frame " + (fe->Attribute("index") ? std::to_string(f.index) : f.type);
  std::vector<double> buf;
  for (const XMLElement* c = fe->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string name = c->Name();
    if (name == "orientation") {
      numbers(source, c, 4 * ns, who + " <orientation> (" + std::to_string(ns) + " segments × 4)", buf);
      f.orientation.resize(ns);
      for (std::size_t i = 0; i < ns; ++i)
        f.orientation[i] = Eigen::Vector4d(buf[4 * i], buf[4 * i + 1], buf[4 * i + 2], buf[4 * i + 3]);
    } else if (name == "position" || name == "velocity" || name == "acceleration" || name == "angularVelocity" ||
               name == "angularAcceleration") {
      numbers(source, c, 3 * ns, who + " <" + name + "> (" + std::to_string(ns) + " segments × 3)", buf);
      std::vector<Vector3d>& dst = name == "position"          ? f.position
                                   : name == "velocity"        ? f.velocity
                                   : name == "acceleration"    ? f.acceleration
                                   : name == "angularVelocity" ? f.angular_velocity
                                                               : f.angular_acceleration;
      vectors(buf, dst);
    } else if (name == "sensorOrientation" && nsensors > 0) {
      numbers(source, c, 4 * nsensors, who + " <sensorOrientation> (" + std::to_string(nsensors) + " sensors × 4)",
              buf);
      f.sensor_orientation.resize(nsensors);
      for (std::size_t i = 0; i < nsensors; ++i)
        f.sensor_orientation[i] = Eigen::Vector4d(buf[4 * i], buf[4 * i + 1], buf[4 * i + 2], buf[4 * i + 3]);
    }
    // Other sensor data, jointAngle*, centerOfMass, footContacts: not used.
  }
  if (f.type == "normal") {
    if (!fe->Attribute("index")) fail(source, fe, "normal frame without an index attribute");
    f.time = f.index / rate;
    if (!std::isfinite(f.time)) fail(source, fe, who + ": time index / frameRate is not finite");  // rate 1e-320
  }
  return f;
}

/// The segment tree of <joints>: each joint's connector1 names the parent segment, connector2 the
/// child ("Segment/point"). Without <joints>, every segment is a root.
std::vector<int> segmentTree(const std::string& source, const XMLElement* joints,
                             const std::vector<MvnxSegment>& segments) {
  std::vector<int> parent(segments.size(), -1);
  if (joints == nullptr) return parent;
  auto segmentOf = [&](const XMLElement* joint, const char* connector) {
    const XMLElement* c = joint->FirstChildElement(connector);
    const char* text = c != nullptr ? c->GetText() : nullptr;
    if (text == nullptr) fail(source, joint, std::string("<joint> without <") + connector + ">");
    const std::string value(text);
    const std::string label = value.substr(0, value.find('/'));
    for (std::size_t s = 0; s < segments.size(); ++s)
      if (segments[s].label == label) return static_cast<int>(s);
    fail(source, c, std::string("<") + connector + "> names segment '" + label + "', not in <segments>");
  };
  for (const XMLElement* j = joints->FirstChildElement("joint"); j; j = j->NextSiblingElement("joint")) {
    const int a = segmentOf(j, "connector1"), b = segmentOf(j, "connector2");
    if (a == b)
      fail(source, j, "<joint> connects segment '" + segments[static_cast<std::size_t>(a)].label + "' to itself");
    if (parent[static_cast<std::size_t>(b)] >= 0)
      fail(source, j, "segment '" + segments[static_cast<std::size_t>(b)].label + "' has two parent joints");
    parent[static_cast<std::size_t>(b)] = a;
    for (int k = a, steps = 0; k >= 0; k = parent[static_cast<std::size_t>(k)], ++steps)
      if (k == b || steps > static_cast<int>(segments.size()))
        fail(source, j, "<joints> form a cycle through segment '" + segments[static_cast<std::size_t>(b)].label + "'");
  }
  return parent;
}

}  // namespace

MvnxFile parseMvnx(const std::string& xml, const std::string& source) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  const XMLElement* root = doc.RootElement();
  if (!root || std::strcmp(root->Name(), "mvnx") != 0) fail(source, root, "root element must be <mvnx>");
  MvnxFile f;
  f.source = source;
  f.version = root->IntAttribute("version", 0);
  const XMLElement* subject = root->FirstChildElement("subject");
  if (!subject) fail(source, root, "missing <subject>");
  f.frame_rate = subject->DoubleAttribute("frameRate", 0.0);
  if (!(f.frame_rate > 0.0) || !std::isfinite(f.frame_rate))
    fail(source, subject, "<subject> frameRate must be a positive number");
  if (const char* c = subject->Attribute("configuration")) f.configuration = c;
  const XMLElement* segs = subject->FirstChildElement("segments");
  if (!segs) fail(source, subject, "missing <segments>");
  for (const XMLElement* s = segs->FirstChildElement("segment"); s; s = s->NextSiblingElement("segment")) {
    MvnxSegment seg;
    const char* label = s->Attribute("label");
    if (!label || !*label) fail(source, s, "<segment> without a label");
    seg.label = label;
    seg.id = s->IntAttribute("id", 0);
    for (const auto& other : f.segments)
      if (other.label == seg.label) fail(source, s, "duplicate segment label '" + seg.label + "'");
    if (const XMLElement* pts = s->FirstChildElement("points")) {
      std::vector<double> buf;
      for (const XMLElement* p = pts->FirstChildElement("point"); p; p = p->NextSiblingElement("point")) {
        const XMLElement* pos = p->FirstChildElement("pos_b");
        if (!pos) pos = p->FirstChildElement("pos_s");
        if (!pos) continue;
        const char* pl = p->Attribute("label");
        numbers(source, pos, 3, "segment '" + seg.label + "' point '" + (pl ? pl : "?") + "'", buf);
        seg.points[pl ? pl : ""] = Vector3d(buf[0], buf[1], buf[2]);
      }
    }
    f.segments.push_back(std::move(seg));
  }
  if (f.segments.empty()) fail(source, segs, "<segments> holds no <segment>");
  f.parents = segmentTree(source, subject->FirstChildElement("joints"), f.segments);
  if (const XMLElement* sensors = subject->FirstChildElement("sensors"))
    for (const XMLElement* s = sensors->FirstChildElement("sensor"); s; s = s->NextSiblingElement("sensor")) {
      const char* label = s->Attribute("label");
      if (!label || !*label) fail(source, s, "<sensor> without a label");
      f.sensors.emplace_back(label);
    }
  const XMLElement* frames = subject->FirstChildElement("frames");
  if (!frames) fail(source, subject, "missing <frames>");
  const std::size_t ns = f.segments.size();
  int last_index = std::numeric_limits<int>::min();
  for (const XMLElement* fe = frames->FirstChildElement("frame"); fe; fe = fe->NextSiblingElement("frame")) {
    MvnxFrame fr = parseFrame(source, fe, ns, f.sensors.size(), f.frame_rate);
    if (fr.type != "normal") {
      f.calibration[fr.type] = std::move(fr);
      continue;
    }
    if (fr.index <= last_index)
      fail(source, fe,
           "frame index " + std::to_string(fr.index) + " does not increase (previous " + std::to_string(last_index) +
               ")");
    last_index = fr.index;
    if (fr.orientation.empty() || fr.position.empty())
      fail(source, fe, "frame " + std::to_string(fr.index) + " lacks <orientation> or <position>");
    f.frames.push_back(std::move(fr));
  }
  return f;
}

MvnxFile readMvnx(const std::string& path) { return parseMvnx(detail::readTextFile(path), path); }

namespace {

MotionClip clipFrom(const MvnxFile& file, const std::vector<const MvnxFrame*>& frames) {
  MotionClip clip;
  clip.source = file.source;
  for (const MvnxSegment& s : file.segments) {
    clip.segment_names.push_back(s.label);
  }
  clip.segment_parent = file.parents;
  clip.segment_parent.resize(file.segments.size(), -1);
  const std::size_t ns = file.segments.size();
  bool have_velocity = true;
  for (const MvnxFrame* fr : frames) {
    clip.times.push_back(fr->time);
    have_velocity = have_velocity && !fr->velocity.empty() && !fr->angular_velocity.empty();
    for (std::size_t s = 0; s < ns; ++s) {
      Transform T;
      // A finite norm implies finite entries; finite entries can still overflow it (1e200).
      const double qn = s < fr->orientation.size() ? fr->orientation[s].norm() : 0.0;
      bool ok = s < fr->position.size() && fr->position[s].allFinite() && std::isfinite(qn) && qn > 1e-6;
      if (ok) {
        T.R = so3::fromQuaternionWxyz(fr->orientation[s]);
        T.p = fr->position[s];
      }
      clip.poses.push_back(T);
      clip.valid.push_back(ok ? 1 : 0);
    }
  }
  if (have_velocity && !frames.empty()) {
    for (const MvnxFrame* fr : frames)
      for (std::size_t s = 0; s < ns; ++s) {
        clip.linear_velocity.push_back(fr->velocity[s]);
        clip.angular_velocity.push_back(fr->angular_velocity[s]);
      }
  } else {
    computeVelocities(clip);
  }
  return clip;
}

}  // namespace

MotionClip mvnxToClip(const MvnxFile& file) {
  std::vector<const MvnxFrame*> frames;
  for (const MvnxFrame& f : file.frames) frames.push_back(&f);
  return clipFrom(file, frames);
}

MotionClip mvnxCalibrationPose(const MvnxFile& file, const std::string& type) {
  const auto it = file.calibration.find(type);
  if (it == file.calibration.end()) {
    std::string have;
    for (const auto& [k, v] : file.calibration) have += (have.empty() ? "" : ", ") + k;
    throw InvalidArgument(file.source + ": no '" + type +
                          "' calibration frame; present: " + (have.empty() ? "none" : have));
  }
  return clipFrom(file, {&it->second});
}

}  // namespace kinetrack::io

namespace kinetrack::io {

OrientationTable mvnxSensorTable(const MvnxFile& file) {
  if (file.sensors.empty()) throw InvalidArgument(file.source + ": no <sensors>: the file carries no IMU orientations");
  static const std::map<std::string, std::string> kOpenSimBody = {
      {"Pelvis", "pelvis"},         {"T8", "torso"},          {"RightUpperLeg", "femur_r"},
      {"RightLowerLeg", "tibia_r"}, {"RightFoot", "calcn_r"}, {"LeftUpperLeg", "femur_l"},
      {"LeftLowerLeg", "tibia_l"},  {"LeftFoot", "calcn_l"},  {"RightUpperArm", "humerus_r"},
      {"RightForeArm", "radius_r"}, {"RightHand", "hand_r"},  {"LeftUpperArm", "humerus_l"},
      {"LeftForeArm", "radius_l"},  {"LeftHand", "hand_l"}};
  OrientationTable t;
  t.source = file.source;
  for (const std::string& s : file.sensors) {
    const auto it = kOpenSimBody.find(s);
    t.names.push_back(it == kOpenSimBody.end() ? s : it->second + "_imu");
  }
  t.data_rate = file.frame_rate;
  const Eigen::Quaterniond missing(NAN, NAN, NAN, NAN);
  for (const MvnxFrame& fr : file.frames) {
    t.times.push_back(fr.time);
    t.lines.push_back(fr.line);
    for (std::size_t i = 0; i < file.sensors.size(); ++i) {
      if (i >= fr.sensor_orientation.size()) {
        t.orientations.push_back(missing);
        continue;
      }
      const Eigen::Vector4d& q = fr.sensor_orientation[i];
      const double n = q.norm();
      t.orientations.push_back(q.allFinite() && std::abs(n - 1.0) < 0.05
                                   ? Eigen::Quaterniond(q[0] / n, q[1] / n, q[2] / n, q[3] / n)
                                   : missing);
    }
  }
  if (t.times.empty()) throw InvalidArgument(file.source + ": no normal frame");
  return t;
}

OrientationTable readImuOrientations(const std::string& path) {
  const bool mvnx = path.size() >= 5 && (path.ends_with(".mvnx") || path.ends_with(".MVNX"));
  return mvnx ? mvnxSensorTable(readMvnx(path)) : readOrientationTable(path);
}

}  // namespace kinetrack::io
