// Fuzz-style robustness of the capture readers (issue 4): BVH, MVNX and segment maps (resolved
// against BVH joint names) here; TRC, MOT, URDF, joint and pose-target CSV in
// fuzz_text_readers_test.cpp.
// Truncated and corrupted copies of the real fixtures (../shared/data) must either parse into a
// self-consistent result, which the downstream converters then take without crashing, or throw
// kinetrack::ParseError (InvalidArgument only where the API documents it). Another exception
// type, an inconsistent result, a crash or a sanitizer report is a failure, reported with the
// fixture, the seed and an excerpt: mutated(base, seed) reproduces the input (the machinery is in
// tests/testing/mutations.hpp). Run it under ASan/UBSan too: scripts/test.sh --sanitize, then
// ctest --test-dir build-asan -R Fuzz.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <Eigen/LU>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "kinetrack/io/model/segment_map.hpp"
#include "testing/mutations.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using namespace kinetrack::testing;

// ---- fixtures ----------------------------------------------------------------------------------

// A BVH clip cut to its first `frames` motion rows, "Frames:" rewritten: a small valid file.
std::string shrinkBvh(const std::string& text, int frames) {
  const std::size_t count = text.find("Frames:", text.find("MOTION"));
  const std::size_t eol = text.find('\n', count);
  const std::size_t time_eol = text.find('\n', eol + 1);
  std::string out = text.substr(0, count) + "Frames: " + std::to_string(frames) +
                    (text[eol - 1] == '\r' ? "\r\n" : "\n") + text.substr(eol + 1, time_eol - eol);
  int kept = 0;
  for (std::string_view l : splitLines(std::string_view(text).substr(time_eol + 1))) {
    if (kept == frames) break;
    out += l;
    kept += blank(l) ? 0 : 1;
  }
  return out;
}

// An MVNX file cut after its first `frames` <frame> elements and closed again.
std::string shrinkMvnx(const std::string& text, int frames) {
  std::size_t pos = text.find("<frames>");
  for (int k = 0; k < frames; ++k) pos = text.find("</frame>", pos) + 8;
  return text.substr(0, pos) + "\n\t\t</frames>\n\t</subject>\n</mvnx>\n";
}

// ---- contracts of the results ------------------------------------------------------------------

void checkBvh(const BvhFile& f, std::uint32_t variant) {
  require(!f.joints.empty() && f.joints[0].parent == -1 && !f.joints[0].end_site, "bvh: root");
  int channels = 0;
  std::set<std::string> names;
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    const BvhJoint& j = f.joints[i];
    require(j.offset.allFinite(), "bvh: OFFSET not finite");
    if (i > 0)
      require(j.parent >= 0 && static_cast<std::size_t>(j.parent) < i &&
                  !f.joints[static_cast<std::size_t>(j.parent)].end_site,
              "bvh: parent index");
    if (j.end_site) {
      require(j.channels.empty(), "bvh: End Site with channels");
      continue;
    }
    require(names.insert(j.name).second, "bvh: duplicate joint name");
    // first_channel is only meaningful for a joint with channels.
    require((j.channels.empty() || j.first_channel == channels) && j.channels.size() <= 6, "bvh: channel layout");
    channels += static_cast<int>(j.channels.size());
  }
  require(channels == f.num_channels && f.motion.cols() == f.num_channels, "bvh: channel count");
  require(f.frame_time > 0 && std::isfinite(f.frame_time), "bvh: frame time");

  // The converters on whatever parsed: detected units (or ParseError), then explicit units.
  try {
    checkClip(bvhToClip(f), true);
  } catch (const ParseError&) {
  }
  BvhOptions o;
  o.units = BvhUnits::Centimetres;
  o.y_up = variant % 2 == 0;
  o.position_channels = static_cast<BvhPositionChannels>(variant % 3);
  const MotionClip clip = bvhToClip(f, o);
  checkClip(clip, true);
  checkClip(bvhRestPose(f, o), true);
  require(clip.numFrames() == f.motion.rows() && clip.numSegments() == static_cast<int>(names.size()),
          "bvh: clip size");
  std::optional<Model> built;
  try {
    built = modelFromBvh(f, o);
  } catch (const ParseError&) {  // generated names that collide with the file's
    return;
  }
  const Model& model = *built;
  checkModel(model);
  require(model.numJoints() == f.num_channels - static_cast<int>(f.joints[0].channels.size()), "bvh: model joints");
  const std::vector<Configuration> qs = bvhConfigurations(model, f, o);
  require(qs.size() == static_cast<std::size_t>(f.motion.rows()), "bvh: configuration count");
  Data data(model);
  for (std::size_t k = 0; k < qs.size(); ++k) {
    require(qs[k].joints.size() == model.numJoints(), "bvh: configuration size");
    if (f.motion.row(static_cast<Eigen::Index>(k)).allFinite()) {
      require(qs[k].joints.allFinite() && qs[k].base_position.allFinite() && rotation(qs[k].base_rotation),
              "bvh: configuration of a finite frame not finite");
      if (k < 2) checkKinematics(model, data, qs[k]);
    }
  }
}

void checkMvnxFrame(const MvnxFrame& fr, std::size_t ns) {
  for (const auto* v : {&fr.position, &fr.velocity, &fr.acceleration, &fr.angular_velocity, &fr.angular_acceleration})
    require(v->empty() || v->size() == ns, "mvnx: a frame field is not one value per segment");
  require(fr.orientation.empty() || fr.orientation.size() == ns, "mvnx: orientation size");
}

void checkMvnx(const MvnxFile& f) {
  require(f.frame_rate > 0 && std::isfinite(f.frame_rate), "mvnx: frame rate");
  require(!f.segments.empty(), "mvnx: no segments");
  std::set<std::string> labels;
  for (const MvnxSegment& s : f.segments) require(!s.label.empty() && labels.insert(s.label).second, "mvnx: labels");
  const std::size_t ns = f.segments.size();
  for (std::size_t k = 0; k < f.frames.size(); ++k) {
    const MvnxFrame& fr = f.frames[k];
    require(fr.type == "normal", "mvnx: a calibration frame among the frames");
    require(fr.orientation.size() == ns && fr.position.size() == ns, "mvnx: normal frame without pose");
    checkMvnxFrame(fr, ns);
    require(std::isfinite(fr.time) && (k == 0 || (fr.time > f.frames[k - 1].time && fr.index > f.frames[k - 1].index)),
            "mvnx: frame times not finite and increasing");
  }
  for (const auto& [type, fr] : f.calibration) {
    require(type == fr.type && type != "normal", "mvnx: calibration key");
    checkMvnxFrame(fr, ns);
  }
  const MotionClip clip = mvnxToClip(f);
  checkClip(clip, false);
  require(clip.numFrames() == static_cast<int>(f.frames.size()) && clip.numSegments() == static_cast<int>(ns),
          "mvnx: clip size");
  for (const auto& [type, fr] : f.calibration) {
    const MotionClip pose = mvnxCalibrationPose(f, type);
    checkClip(pose, false);
    require(pose.numFrames() == 1, "mvnx: calibration pose is not one frame");
  }
  try {  // documented: InvalidArgument for an absent type
    (void)mvnxCalibrationPose(f, "no-such-pose");
    require(false, "mvnx: an absent calibration type did not throw");
  } catch (const InvalidArgument&) {
  }
}

// ---- the tests ---------------------------------------------------------------------------------

TEST(FuzzReaders, Bvh) {
  const std::vector<std::string> files = {
      "data/bvh/xsens/xsens_test_mocap.bvh",           "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh",
      "data/bvh/cmu_cgspeed/cmu_131_01.bvh",           "data/bvh/cmu_iclone/cmu_ic_007_12.bvh",
      "data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh", "data/bvh/reactidle/003_genuine.bvh"};
  // Every clip cut to 6 frames (a small valid file) and mutated; then the whole clips truncated.
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkBvh(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/bvh not found";
  Stats st{"bvh"};
  std::uint32_t variant = 0;
  auto read = [&](const Fixture& fx, const std::string& text) { checkBvh(parseBvh(text, fx.name), variant++); };
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 frames";
  const Vocabulary words = {{"Frames:", "CHANNELS", "OFFSET"},
                            {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation", "JOINT",
                             "End Site", "ROOT", "OFFSET", "CHANNELS", "MOTION", "{", "}", "Frame Time:", "Frames:"}};
  fuzz(st, small, {25 * kScale, 300 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      st, small[0], ".bvh", [](const std::string& p) { readBvh(p); },
      [](const std::string& t, const std::string& p) { parseBvh(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

TEST(FuzzReaders, Mvnx) {
  std::vector<Fixture> fixtures = sharedFixtures({"data/mvnx/Meri-020.mvnx"});       // v3: 2 calibration + 4 frames
  const std::vector<Fixture> large = sharedFixtures({"data/mvnx/test_mocap.mvnx"});  // v4: 3 + 112
  for (const Fixture& fx : large) fixtures.push_back({fx.name, shrinkMvnx(fx.text, 5)});
  if (fixtures.empty()) GTEST_SKIP() << "../shared/data/mvnx not found";
  Stats st{"mvnx"};
  auto read = [](const Fixture& fx, const std::string& text) { checkMvnx(parseMvnx(text, fx.name)); };
  for (const Fixture& fx : fixtures) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {
      {"frameRate=", "index=", "<orientation>", "<position>", "<pos_", "<velocity>"},
      {"normal", "tpose", "npose", "identity", "index=", "type=", "<frame ", "</frame>", "<segment ", "</segment>",
       "label=", "orientation", "position", "velocity", "subject", "segments", "frames"}};
  fuzz(st, fixtures, {25 * kScale, 150 * kScale, 0, words}, read);
  fuzz(st, large, {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      st, fixtures[0], ".mvnx", [](const std::string& p) { readMvnx(p); },
      [](const std::string& t, const std::string& p) { parseMvnx(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- segment maps ------------------------------------------------------------------------------

// A clip of each built-in map's skeleton family (../shared/data), whose joint names the maps are
// resolved against.
const std::map<std::string, std::string> kMapClip = {
    {"bandai", "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh"},
    {"cmu_cgspeed", "data/bvh/cmu_cgspeed/cmu_01_01.bvh"},
    {"cmu_cgspeed_joint_names", "data/bvh/cmu_cgspeed/cmu_131_01.bvh"},
    {"iclone_cc", "data/bvh/cmu_iclone/cmu_ic_007_12.bvh"},
    {"iclone_cc_rl", "data/bvh/cmu_iclone/cmu_ic_007_01.bvh"},
    {"pymo", "data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh"},
    {"reactidle", "data/bvh/reactidle/003_genuine.bvh"},
    {"xsens_bvh", "data/bvh/xsens/xsens_test_mocap.bvh"}};

// The joint names of the clip of built-in map `name`; without ../shared, the map's own names.
std::vector<std::string> clipNames(const std::string& name) {
  std::vector<std::string> names;
  const auto it = kMapClip.find(name);
  const std::string path = it == kMapClip.end() ? "" : testing::sharedFile(it->second);
  if (!path.empty()) {
    for (const BvhJoint& j : parseBvh(shrinkBvh(slurp(path), 1), path).joints)
      if (!j.end_site) names.push_back(j.name);
    return names;
  }
  const SegmentMap m = builtinSegmentMap(name);
  for (const SegmentMapEntry& e : m.entries) names.push_back(e.clip_segment);
  names.insert(names.end(), m.unmapped.begin(), m.unmapped.end());
  return names;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;  // the built-in maps' strings hold no control characters
  }
  return out + '"';
}

std::string jsonList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + jsonString(v[i]);
  return out + "]";
}

// A built-in map as JSON text, with offsets (rpy_deg and quaternion_wxyz in turn) on every third
// entry and weights on every fourth, which no map of maps/ has.
std::string mapJson(const SegmentMap& m) {
  std::string segments, offsets, weights;
  for (std::size_t i = 0; i < m.entries.size(); ++i) {
    const std::string key = jsonString(m.entries[i].clip_segment);
    segments += (i ? ",\n    " : "") + key + ": " + jsonString(m.entries[i].model_frame);
    if (i % 3 == 0)
      offsets += (offsets.empty() ? "" : ",\n    ") + key +
                 (i % 2 ? ": {\"quaternion_wxyz\": [0.5, -0.5, 0.5, 0.5]}"
                        : ": {\"rpy_deg\": [" + std::to_string(i) + ", -90, 12.5]}");
    if (i % 4 == 1) weights += (weights.empty() ? "" : ", ") + key + ": " + std::to_string(0.25 * double(i + 1));
  }
  return "{\n  \"name\": " + jsonString(m.name) + ",\n  \"description\": " + jsonString(m.description) +
         ",\n  \"detect\": " + jsonList(m.detect) + ",\n  \"segments\": {\n    " + segments +
         "\n  },\n  \"unmapped\": " + jsonList(m.unmapped) + ",\n  \"offsets\": {\n    " + offsets +
         "\n  },\n  \"weights\": {" + weights + "}\n}\n";
}

void checkSegmentMap(const SegmentMap& m) {
  require(!m.name.empty() && !m.entries.empty(), "map: no name or no entry");
  std::set<std::string> clip, frames;
  for (const SegmentMapEntry& e : m.entries) {
    require(!e.clip_segment.empty() && !e.model_frame.empty(), "map: an empty name");
    require(clip.insert(e.clip_segment).second && frames.insert(e.model_frame).second,
            "map: a clip segment or a model frame twice");
    require(rotation(e.offset) && e.offset.determinant() > 0 && std::isfinite(e.weight) && e.weight > 0,
            "map: offset not a rotation or weight not > 0");
  }
  for (const std::string& u : m.unmapped) require(!u.empty() && !clip.contains(u), "map: unmapped");
  for (const std::string& d : m.detect) require(!d.empty(), "map: an empty detect name");
}

// Downstream: the map, as a file, resolved against a clip's names: the same entries in clip
// order with every other clip segment unmapped, or InvalidArgument (documented) when an entry
// names a segment the clip lacks.
void checkResolved(const SegmentMap& m, const std::string& text, const std::vector<std::string>& names,
                   const std::string& path) {
  std::ofstream(path, std::ios::binary) << text;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
  const bool absent = std::any_of(m.entries.begin(), m.entries.end(),
                                  [&](const SegmentMapEntry& e) { return !index.contains(e.clip_segment); });
  SegmentMap r;
  try {
    r = resolveSegmentMap(names, path);
  } catch (const InvalidArgument&) {
    require(absent, "map: resolveSegmentMap rejected a map of the clip's segments");
    return;
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("map: the file does not read back: ") + e.what()};
  }
  require(!absent && r.entries.size() == m.entries.size(), "map: resolved a map of segments the clip lacks");
  std::vector<std::string> unmapped;
  for (const std::string& n : names)
    if (std::none_of(m.entries.begin(), m.entries.end(), [&](const SegmentMapEntry& e) { return e.clip_segment == n; }))
      unmapped.push_back(n);
  require(r.unmapped == unmapped, "map: resolved unmapped segments");
  for (std::size_t k = 0; k < r.entries.size(); ++k) {
    const SegmentMapEntry& e = r.entries[k];
    const auto same = std::find_if(m.entries.begin(), m.entries.end(), [&](const SegmentMapEntry& x) {
      return x.clip_segment == e.clip_segment && x.model_frame == e.model_frame && x.offset == e.offset &&
             x.weight == e.weight;
    });
    require(same != m.entries.end() && (k == 0 || index[r.entries[k - 1].clip_segment] < index[e.clip_segment]),
            "map: resolved entries differ or are not in clip order");
  }
}

TEST(FuzzReaders, SegmentMap) {
  // The map files of maps/, then built-in maps written back with offsets and weights.
  std::vector<Fixture> files, generated;
  for (const auto& e : std::filesystem::directory_iterator(kinetrack::testing::sourceDir() + "/maps"))
    if (e.path().extension() == ".json")
      files.push_back({"maps/" + e.path().filename().string(), slurp(e.path().string())});
  std::sort(files.begin(), files.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  ASSERT_EQ(files.size(), builtinSegmentMapNames().size());
  for (const char* name : {"bandai", "cmu_cgspeed", "iclone_cc_rl"})
    generated.push_back({std::string("builtin_") + name + ".json", mapJson(builtinSegmentMap(name))});
  std::map<std::string, std::vector<std::string>> names;  // per fixture: the clip's joint names
  for (const Fixture& fx : files) names[fx.name] = clipNames(parseSegmentMap(fx.text, fx.name).name);
  for (const Fixture& fx : generated) names[fx.name] = clipNames(parseSegmentMap(fx.text, fx.name).name);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kinetrack_fuzz_" + std::to_string(::getpid()) + "_map.json"))
          .string();
  Stats st{"segmap"};
  auto read = [&](const Fixture& fx, const std::string& text) {
    const SegmentMap m = parseSegmentMap(text, fx.name);
    checkSegmentMap(m);
    checkResolved(m, text, names.at(fx.name), path);
  };
  for (const Fixture& fx : files) {
    EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
    const SegmentMap m = parseSegmentMap(fx.text, fx.name), b = builtinSegmentMap(m.name);
    EXPECT_EQ(m.entries.size(), b.entries.size()) << fx.name << " is not the built-in map " << m.name;
  }
  for (const Fixture& fx : generated) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{"rpy_deg", "quaternion_wxyz", "weights"},
                            {"\"name\"",
                             "\"description\"",
                             "\"detect\"",
                             "\"segments\"",
                             "\"unmapped\"",
                             "\"offsets\"",
                             "\"weights\"",
                             "\"rpy_deg\"",
                             "\"quaternion_wxyz\"",
                             "\"Pelvis\"",
                             "\"Head\"",
                             "{",
                             "}",
                             "[",
                             "]",
                             ",",
                             ":",
                             "\"",
                             "null",
                             "true",
                             "[]",
                             "{}",
                             "\\u0000",
                             "\\\""}};
  fuzz(st, files, {10 * kScale, 60 * kScale, 4000, words}, read);
  fuzz(st, generated, {10 * kScale, 150 * kScale, 6000, words}, read);
  viaFiles(
      st, files[0], ".json", [](const std::string& p) { readSegmentMap(p); },
      [](const std::string& t, const std::string& p) { parseSegmentMap(t, p); });
  std::filesystem::remove(path);
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- regressions: the bugs the fuzzing found, one input each ----------------------------------

constexpr const char* kBvh =
    "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
    "Yrotation\n"
    "\tJOINT A\n\t{\n\t\tOFFSET 0 100 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 50 0\n\t\t}\n\t}\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.01\n"
    "0 90 0 0 0 0 0 0 0\n"
    "0 90 0 0 0 0 0 0 0\n";

TEST(FuzzReaders, RegressionsBvh) {
  BvhOptions cm;
  cm.units = BvhUnits::Centimetres;
  // "Frames: 99999999" allocated the declared rows up front: std::bad_alloc (ASan: allocation
  // size too big) instead of the truncated-file error.
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(kBvh, "Frames: 2", "Frames: 99999999"), "f.bvh"); }), 21);
  // A channel twice in one joint parsed, then modelFromBvh threw InvalidArgument (two model
  // joints "A_Xrotation").
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(kBvh, "CHANNELS 3 Zrotation", "CHANNELS 3 Xrotation"), "f.bvh"); }),
            9);
  // Generated names that collide with the file's ("A_End" is A's End Site, "A_f1" an intermediate
  // link of A): modelFromBvh threw InvalidArgument.
  for (const char* name : {"A_End", "A_f1"}) {
    const std::string text =
        edited(edited(kBvh, "\t}\n}\n",
                      std::string("\t}\n\tJOINT ") + name +
                          "\n\t{\n\t\tOFFSET 0 -100 0\n\t\tCHANNELS 1 Zrotation\n"
                          "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 -50 0\n\t\t}\n\t}\n}\n"),
               "0 90 0 0 0 0 0 0 0\n0 90 0 0 0 0 0 0 0\n", "0 90 0 0 0 0 0 0 0 0\n0 90 0 0 0 0 0 0 0 0\n");
    const BvhFile f = parseBvh(text, "f.bvh");
    EXPECT_THROW(modelFromBvh(f, cm), ParseError) << name;
  }
  // Frame Time 1e308 is finite but the third frame's time (2e308) is not.
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(edited(kBvh, "Frames: 2", "Frames: 3"), "0.01", "1e308"), "f.bvh"); }),
            18);
  // 1e308° overflowed v·π to inf: a NaN rotation marked valid by bvhToClip, an infinite angle in
  // bvhConfigurations. Now converted as v·(π/180): finite.
  {
    const BvhFile f = parseBvh(edited(kBvh, "0 90 0 0 0 0 0 0 0\n0 90", "0 90 0 0 0 0 1e308 0 0\n0 90"), "f.bvh");
    const MotionClip clip = bvhToClip(f, cm);
    EXPECT_TRUE(clip.isValid(0, 1));
    EXPECT_TRUE(clip.pose(0, 1).R.allFinite());
    const Model model = modelFromBvh(f, cm);
    EXPECT_TRUE(bvhConfigurations(model, f, cm)[0].joints.allFinite());
  }
  // A position that overflows after scaling and accumulation (1e308 + 1e308 m) was a valid pose
  // with an infinite position: now a gap.
  {
    BvhOptions m;
    m.units = BvhUnits::Metres;
    const BvhFile f = parseBvh(edited(edited(kBvh, "OFFSET 0 0 0", "OFFSET 1e308 0 0"), "0 90 0 0 0 0 0 0 0\n0 90",
                                      "1e308 90 0 0 0 0 0 0 0\n0 90"),
                               "f.bvh");
    const MotionClip clip = bvhToClip(f, m);
    EXPECT_FALSE(clip.isValid(0, 0));
    EXPECT_FALSE(clip.isValid(0, 1));
    EXPECT_TRUE(clip.isValid(1, 0));
  }
}

constexpr const char* kMvnx =
    "<?xml version=\"1.0\"?>\n<mvnx version=\"4\">\n<subject frameRate=\"60\">\n<segments>\n"
    "<segment label=\"Pelvis\" id=\"1\"/>\n<segment label=\"Head\" id=\"2\"/>\n</segments>\n<frames>\n"
    "<frame index=\"0\" type=\"normal\">\n<orientation>1 0 0 0 1 0 0 0</orientation>\n<position>0 0 1 0 0 "
    "1.6</position>\n</frame>\n"
    "<frame index=\"1\" type=\"normal\">\n<orientation>1 0 0 0 1 0 0 0</orientation>\n<position>0 0 1 0 0 "
    "1.6</position>\n</frame>\n"
    "</frames>\n</subject>\n</mvnx>\n";

TEST(FuzzReaders, RegressionsMvnx) {
  // A quaternion with finite entries whose norm overflows (1e200): so3::fromQuaternionWxyz threw
  // InvalidArgument out of mvnxToClip. Now a gap.
  const MvnxFile f = parseMvnx(edited(kMvnx, "<orientation>1 0 0 0 1", "<orientation>1e200 0 0 0 1"), "f.mvnx");
  const MotionClip clip = mvnxToClip(f);
  EXPECT_FALSE(clip.isValid(0, 0));
  EXPECT_TRUE(clip.isValid(0, 1));
  // frameRate 1e-320 (positive, finite) made the times infinite: frame 1 (line 13) at 1e320 s.
  EXPECT_EQ(parseErrorLine([&] { parseMvnx(edited(kMvnx, "frameRate=\"60\"", "frameRate=\"1e-320\""), "f.mvnx"); }),
            13);
}

TEST(FuzzReaders, RegressionsSegmentMap) {
  const std::string map =
      "{\n  \"name\": \"m\",\n  \"segments\": {\"Hips\": \"Pelvis\"},\n"
      "  \"offsets\": {\"Hips\": {\"quaternion_wxyz\": [0.5, 0.5, 0.5, 0.5]}}\n}\n";
  EXPECT_TRUE(parseSegmentMap(map, "m.json").entries[0].offset.isApprox(so3::fromQuaternionWxyz({1, 1, 1, 1})));
  // Finite entries whose norm overflows ([0, 1e200, 0.5, 0.5]): so3::fromQuaternionWxyz threw
  // InvalidArgument out of parseSegmentMap. Now normalised like any non-zero quaternion: a half
  // turn about x.
  const SegmentMap m = parseSegmentMap(edited(map, "[0.5, 0.5", "[0, 1e200"), "m.json");
  EXPECT_LT((m.entries[0].offset - Vector3d(1, -1, -1).asDiagonal().toDenseMatrix()).norm(), 1e-12);
  EXPECT_EQ(parseErrorLine([&] { parseSegmentMap(edited(map, "0.5, 0.5, 0.5, 0.5", "0, 0, 0, 0"), "m.json"); }), 4);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
