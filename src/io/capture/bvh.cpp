// BVH reader: a line-aware tokenizer for the hierarchy, a fast row parser for the motion block.
#include "kinetrack/io/capture/bvh.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::io {

const char* toString(BvhChannel c) {
  switch (c) {
    case BvhChannel::Xposition: return "Xposition";
    case BvhChannel::Yposition: return "Yposition";
    case BvhChannel::Zposition: return "Zposition";
    case BvhChannel::Xrotation: return "Xrotation";
    case BvhChannel::Yrotation: return "Yrotation";
    case BvhChannel::Zrotation: return "Zrotation";
  }
  return "?";
}

BvhUnits parseBvhUnits(std::string_view name) {
  if (name == "auto") return BvhUnits::Auto;
  if (name == "m") return BvhUnits::Metres;
  if (name == "cm") return BvhUnits::Centimetres;
  if (name == "in") return BvhUnits::Inches;
  if (name == "cmu") return BvhUnits::CmuUnits;
  throw InvalidArgument("units: expected auto, m, cm, in or cmu, got '" + std::string(name) + "'");
}

namespace {

struct Token {
  std::string_view text;
  int line = 0;
};

class Tokenizer {
 public:
  Tokenizer(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  // Next whitespace-separated token (line numbers count '\n'; '\r' and tabs are whitespace).
  bool next(Token& t) {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return false;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    t = {text_.substr(start, pos_ - start), line_};
    return true;
  }
  Token expectAny(const char* what) {
    Token t;
    if (!next(t)) fail(line_, std::string("unexpected end of file, expected ") + what);
    return t;
  }
  void expect(std::string_view word) {
    const Token t = expectAny(std::string(word).c_str());
    if (t.text != word) fail(t.line, "expected '" + std::string(word) + "', found '" + std::string(t.text) + "'");
  }
  double number(const char* field) {
    const Token t = expectAny(field);
    double v = 0.0;
    if (!parseDouble(t.text, v)) fail(t.line, std::string(field) + ": '" + std::string(t.text) + "' is not a number");
    return v;
  }
  [[noreturn]] void fail(int line, const std::string& msg) const { throw ParseError(source_, line, msg); }
  int line() const { return line_; }
  std::size_t position() const { return pos_; }

  static bool parseDouble(std::string_view s, double& v) { return detail::parseNumber(s, v); }

 private:
  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

bool channelFromName(std::string_view s, BvhChannel& c) {
  static const std::pair<const char*, BvhChannel> names[] = {
      {"Xposition", BvhChannel::Xposition}, {"Yposition", BvhChannel::Yposition}, {"Zposition", BvhChannel::Zposition},
      {"Xrotation", BvhChannel::Xrotation}, {"Yrotation", BvhChannel::Yrotation}, {"Zrotation", BvhChannel::Zrotation}};
  for (const auto& [n, v] : names)
    if (s == n) {
      c = v;
      return true;
    }
  return false;
}

// Parses "{ OFFSET … CHANNELS … (JOINT … | End Site …)* }" after the joint's name.
void parseJointBody(Tokenizer& tok, BvhFile& f, int index, std::set<std::string>& names) {
  tok.expect("{");
  const std::string who =
      f.joints[static_cast<std::size_t>(index)].end_site
          ? "End Site of '" +
                f.joints[static_cast<std::size_t>(f.joints[static_cast<std::size_t>(index)].parent)].name + "'"
          : "joint '" + f.joints[static_cast<std::size_t>(index)].name + "'";
  tok.expect("OFFSET");
  Vector3d o;
  for (int k = 0; k < 3; ++k) o[k] = tok.number((who + " OFFSET").c_str());
  if (!o.allFinite()) tok.fail(tok.line(), who + ": OFFSET is not finite");
  f.joints[static_cast<std::size_t>(index)].offset = o;
  Token t = tok.expectAny("CHANNELS, JOINT, End or }");
  if (t.text == "CHANNELS") {
    if (f.joints[static_cast<std::size_t>(index)].end_site) tok.fail(t.line, who + ": an End Site has no CHANNELS");
    const Token nt = tok.expectAny("channel count");
    int n = 0;
    const auto r = std::from_chars(nt.text.data(), nt.text.data() + nt.text.size(), n);
    if (r.ec != std::errc() || r.ptr != nt.text.data() + nt.text.size() || n < 0 || n > 6)
      tok.fail(nt.line, who + ": CHANNELS count '" + std::string(nt.text) + "' is not an integer in 0..6");
    f.joints[static_cast<std::size_t>(index)].first_channel = f.num_channels;
    for (int k = 0; k < n; ++k) {
      const Token ct = tok.expectAny("channel name");
      BvhChannel c;
      if (!channelFromName(ct.text, c))
        tok.fail(ct.line, who + ": unknown channel '" + std::string(ct.text) +
                              "' (expected X/Y/Z position or rotation; CHANNELS says " + std::to_string(n) + ")");
      // A repeated channel has no meaning (and no distinct joint in modelFromBvh).
      const auto& have = f.joints[static_cast<std::size_t>(index)].channels;
      if (std::find(have.begin(), have.end(), c) != have.end())
        tok.fail(ct.line, who + ": channel '" + std::string(ct.text) + "' appears twice");
      f.joints[static_cast<std::size_t>(index)].channels.push_back(c);
    }
    f.num_channels += n;
    t = tok.expectAny("JOINT, End or }");
  }
  while (t.text != "}") {
    if (t.text == "JOINT") {
      const Token name = tok.expectAny("joint name");
      const std::string n(name.text);
      if (!names.insert(n).second) tok.fail(name.line, "duplicate joint name '" + n + "'");
      BvhJoint j;
      j.name = n;
      j.parent = index;
      f.joints.push_back(j);
      parseJointBody(tok, f, static_cast<int>(f.joints.size()) - 1, names);
    } else if (t.text == "End") {
      tok.expect("Site");
      BvhJoint j;
      j.name = f.joints[static_cast<std::size_t>(index)].name + "_End";
      j.parent = index;
      j.end_site = true;
      f.joints.push_back(j);
      parseJointBody(tok, f, static_cast<int>(f.joints.size()) - 1, names);
    } else {
      tok.fail(t.line, who + ": expected JOINT, End Site or '}', found '" + std::string(t.text) + "'");
    }
    t = tok.expectAny("JOINT, End or }");
  }
}

std::string channelLabel(const BvhFile& f, int column) {
  for (const BvhJoint& j : f.joints)
    if (!j.end_site && column >= j.first_channel && column < j.first_channel + static_cast<int>(j.channels.size()))
      return j.name + " " + toString(j.channels[static_cast<std::size_t>(column - j.first_channel)]);
  return "?";
}

}  // namespace

BvhFile parseBvh(const std::string& text, const std::string& source) {
  BvhFile f;
  f.source = source;
  Tokenizer tok(text, source);
  tok.expect("HIERARCHY");
  tok.expect("ROOT");
  const Token root = tok.expectAny("root name");
  std::set<std::string> names{std::string(root.text)};
  BvhJoint r;
  r.name = std::string(root.text);
  f.joints.push_back(r);
  parseJointBody(tok, f, 0, names);
  Token t = tok.expectAny("MOTION");
  if (t.text == "ROOT") tok.fail(t.line, "several ROOT hierarchies are not supported");
  if (t.text != "MOTION") tok.fail(t.line, "expected MOTION, found '" + std::string(t.text) + "'");
  tok.expect("Frames:");
  const Token nf = tok.expectAny("frame count");
  int frames = -1;
  const auto rr = std::from_chars(nf.text.data(), nf.text.data() + nf.text.size(), frames);
  if (rr.ec != std::errc() || rr.ptr != nf.text.data() + nf.text.size() || frames < 0)
    tok.fail(nf.line, "Frames: '" + std::string(nf.text) + "' is not a non-negative integer");
  tok.expect("Frame");
  tok.expect("Time:");
  const int time_line = tok.line();
  f.frame_time = tok.number("Frame Time");
  // Finite up to the last frame's time too (a Frame Time of 1e308 is finite, 2 × 1e308 is not).
  if (!(f.frame_time > 0.0) || !std::isfinite(f.frame_time * std::max(frames - 1, 1)))
    tok.fail(time_line, "Frame Time must be > 0 (frame times must increase) and keep the clip's times finite, got " +
                            std::to_string(f.frame_time));

  // Motion rows: one line per frame, exactly num_channels numbers.
  std::size_t pos = tok.position();
  int line = tok.line();
  // Skip to the start of the next line.
  while (pos < text.size() && text[pos] != '\n') ++pos;
  // At most one row per line left: a corrupted 'Frames:' count must not allocate gigabytes.
  const auto lines_left = std::count(text.begin() + static_cast<std::ptrdiff_t>(pos), text.end(), '\n');
  f.motion.resize(std::min<Eigen::Index>(frames, lines_left), f.num_channels);
  int row = 0;
  while (pos < text.size()) {
    ++pos;  // past '\n'
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + pos, end - pos);
    pos = end;
    // Blank lines (and a trailing '\r') are ignored.
    std::size_t i = 0;
    int col = 0;
    bool any = false;
    while (true) {
      while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i;
      if (i >= l.size()) break;
      std::size_t j = i;
      while (j < l.size() && l[j] != ' ' && l[j] != '\t' && l[j] != '\r') ++j;
      if (!any) {
        if (row >= frames)
          throw ParseError(source, line, "more motion rows than 'Frames: " + std::to_string(frames) + "'");
        any = true;
      }
      if (col >= f.num_channels)
        throw ParseError(
            source, line,
            "frame " + std::to_string(row) + ": expected " + std::to_string(f.num_channels) + " values, got more");
      double v = 0.0;
      if (!Tokenizer::parseDouble(l.substr(i, j - i), v))
        throw ParseError(source, line,
                         "frame " + std::to_string(row) + ", field " + std::to_string(col + 1) + " (" +
                             channelLabel(f, col) + "): '" + std::string(l.substr(i, j - i)) + "' is not a number");
      f.motion(row, col++) = v;
      i = j;
    }
    if (!any) continue;
    if (col != f.num_channels)
      throw ParseError(source, line,
                       "frame " + std::to_string(row) + ": expected " + std::to_string(f.num_channels) +
                           " values, got " + std::to_string(col));
    ++row;
  }
  if (row != frames)
    throw ParseError(
        source, line,
        "truncated file: 'Frames: " + std::to_string(frames) + "' but " + std::to_string(row) + " motion rows");
  return f;
}

BvhFile readBvh(const std::string& path) { return parseBvh(detail::readTextFile(path), path); }

namespace {

// Rest-pose FK with zero channels: world positions of all joints (file units). The OFFSET of the
// root or of a child of the root that has position channels is a placement (Bandai puts the
// start position in its Hips OFFSET under a joint_Root at the origin), not a bone, so it is left
// out: the extent is the body's.
std::vector<Vector3d> restPositions(const BvhFile& f) {
  std::vector<Vector3d> p(f.joints.size(), Vector3d::Zero());
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    const BvhJoint& j = f.joints[i];
    const bool near_root = j.parent < 0 || f.joints[static_cast<std::size_t>(j.parent)].parent < 0;
    const bool placement =
        near_root && std::any_of(j.channels.begin(), j.channels.end(), [](BvhChannel c) {
          return c == BvhChannel::Xposition || c == BvhChannel::Yposition || c == BvhChannel::Zposition;
        });
    p[i] = (j.parent >= 0 ? p[static_cast<std::size_t>(j.parent)] : Vector3d::Zero()) +
           (placement ? Vector3d::Zero() : j.offset);
  }
  return p;
}

}  // namespace

static double restHeight(const BvhFile& file) {
  const std::vector<Vector3d> p = restPositions(file);
  Vector3d lo = Vector3d::Constant(1e300), hi = Vector3d::Constant(-1e300);
  for (const Vector3d& x : p) {
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  return (hi - lo).maxCoeff();
}

double bvhScale(const BvhFile& file, BvhUnits units) {
  switch (units) {
    case BvhUnits::Metres: return 1.0;
    case BvhUnits::Centimetres: return 0.01;
    case BvhUnits::Inches: return 0.0254;
    case BvhUnits::CmuUnits: return 0.056444;
    case BvhUnits::Auto: break;
  }
  // Height of the rest pose along its largest extent (BVH rest poses stand upright).
  const double h = restHeight(file);
  if (h >= 1.0 && h <= 2.3) return 1.0;
  if (h >= 100.0 && h <= 230.0) return 0.01;
  if (h >= 40.0 && h <= 90.0) return 0.0254;
  if (h >= 17.0 && h < 40.0) return 0.056444;
  throw ParseError(file.source, 0,
                   "cannot detect the length unit: rest-pose height " + std::to_string(h) +
                       " fits neither m, cm, inches nor CMU units; give the units explicitly");
}

std::vector<std::uint8_t> bvhChannelsReplaceOffset(const BvhFile& f, BvhPositionChannels rule) {
  const int frames = static_cast<int>(f.motion.rows());
  const double rest_height = restHeight(f);
  std::vector<std::uint8_t> replace(f.joints.size(), 0);
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    const BvhJoint& j = f.joints[i];
    if (rule == BvhPositionChannels::ReplaceOffset) replace[i] = 1;
    if (rule != BvhPositionChannels::Auto) continue;
    // Mean of each position channel over the finite frames (the OFFSET where there is none).
    Vector3d mean = j.offset;
    bool has_position = false;
    for (std::size_t k = 0; k < j.channels.size(); ++k) {
      const int axis = static_cast<int>(j.channels[k]);
      if (axis > 2) continue;
      has_position = true;
      double sum = 0.0;
      int count = 0;
      for (int fr = 0; fr < frames; ++fr) {
        const double v = f.motion(fr, j.first_channel + static_cast<int>(k));
        if (std::isfinite(v)) sum += v, ++count;
      }
      mean[axis] = count ? sum / count : 0.0;
    }
    if (!has_position) continue;
    // Vertical (Y) evidence first: it survives a walk across the room; the whole vector when
    // both the OFFSET and the channel are ~0 vertically (limb joints offset along x or z).
    const double tiny = 1e-3 * rest_height;
    if (std::max(std::abs(j.offset.y()), std::abs(mean.y())) > tiny)
      replace[i] = std::abs(mean.y() - j.offset.y()) < 0.5 * std::abs(mean.y()) ? 1 : 0;
    else
      replace[i] = (mean - j.offset).norm() < 0.5 * mean.norm() ? 1 : 0;
  }
  return replace;
}

namespace {

// R ← R · rot(axis, a) for a principal axis, where (i, j) are the two other axes in cyclic order
// (x: 1,2; y: 2,0; z: 0,1): only columns i and j change. Same result as R * axisAngle(e_axis, a)
// to round-off, without forming the rotation.
inline void rotateAboutAxis(Matrix3d& R, int i, int j, double a) {
  const double c = std::cos(a), s = std::sin(a);
  const Vector3d ci = R.col(i), cj = R.col(j);
  R.col(i) = c * ci + s * cj;
  R.col(j) = c * cj - s * ci;
}

}  // namespace

MotionClip bvhToClip(const BvhFile& f, const BvhOptions& options) {
  MotionClip clip;
  clip.source = f.source;
  const double scale = bvhScale(f, options.units);
  std::vector<int> index(f.joints.size(), -1);  // joint → segment
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    if (f.joints[i].end_site) continue;
    index[i] = clip.numSegments();
    clip.segment_names.push_back(f.joints[i].name);
    clip.segment_parent.push_back(f.joints[i].parent >= 0 ? index[static_cast<std::size_t>(f.joints[i].parent)] : -1);
  }
  const int frames = static_cast<int>(f.motion.rows());
  const int ns = clip.numSegments();
  clip.times.resize(static_cast<std::size_t>(frames));
  clip.poses.resize(static_cast<std::size_t>(frames) * static_cast<std::size_t>(ns));
  clip.valid.assign(static_cast<std::size_t>(frames) * static_cast<std::size_t>(ns), 1);
  Matrix3d C = Matrix3d::Identity();  // BVH axes → kinetrack axes
  if (options.y_up) C << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  const std::vector<std::uint8_t> replace = bvhChannelsReplaceOffset(f, options.position_channels);
  std::vector<Transform> world(f.joints.size());
  std::vector<std::uint8_t> ok(f.joints.size());
  for (int fr = 0; fr < frames; ++fr) {
    clip.times[static_cast<std::size_t>(fr)] = fr * f.frame_time;
    for (std::size_t i = 0; i < f.joints.size(); ++i) {
      const BvhJoint& j = f.joints[i];
      if (j.end_site) continue;
      Vector3d t = j.offset;
      if (replace[i]) {
        for (const BvhChannel c : j.channels)
          if (c == BvhChannel::Xposition || c == BvhChannel::Yposition || c == BvhChannel::Zposition)
            t[static_cast<int>(c)] = 0.0;  // the channel carries the whole coordinate
      }
      Matrix3d R = Matrix3d::Identity();
      bool finite = true;
      for (std::size_t k = 0; k < j.channels.size(); ++k) {
        const double v = f.motion(fr, j.first_channel + static_cast<int>(k));
        finite = finite && std::isfinite(v);
        switch (j.channels[k]) {
          case BvhChannel::Xposition: t.x() += v; break;
          case BvhChannel::Yposition: t.y() += v; break;
          case BvhChannel::Zposition: t.z() += v; break;
          case BvhChannel::Xrotation: rotateAboutAxis(R, 1, 2, v * (M_PI / 180.0)); break;
          case BvhChannel::Yrotation: rotateAboutAxis(R, 2, 0, v * (M_PI / 180.0)); break;
          case BvhChannel::Zrotation: rotateAboutAxis(R, 0, 1, v * (M_PI / 180.0)); break;
        }
      }
      Transform& W = world[i];
      if (j.parent >= 0) {
        const Transform& P = world[static_cast<std::size_t>(j.parent)];
        W.p = P.p + P.R * (scale * t);
        W.R = P.R * R;
        ok[i] = ok[static_cast<std::size_t>(j.parent)] && finite;
      } else {
        W.p = scale * t;
        W.R = R;
        ok[i] = finite;
      }
      // Finite but huge channels (1e308) can still overflow the pose: not a valid sample either.
      ok[i] = ok[i] && W.p.allFinite() && W.R.allFinite();
      const std::size_t s =
          static_cast<std::size_t>(fr) * static_cast<std::size_t>(ns) + static_cast<std::size_t>(index[i]);
      clip.poses[s] = {C * W.R * C.transpose(), C * W.p};
      clip.valid[s] = ok[i];
    }
  }
  if (options.velocities) computeVelocities(clip);
  return clip;
}

int MotionClip::findSegment(const std::string& name) const {
  const auto it = std::find(segment_names.begin(), segment_names.end(), name);
  return it == segment_names.end() ? -1 : static_cast<int>(it - segment_names.begin());
}

void computeVelocities(MotionClip& clip) {
  const int nf = clip.numFrames(), ns = clip.numSegments();
  clip.linear_velocity.assign(clip.poses.size(), Vector3d::Zero());
  clip.angular_velocity.assign(clip.poses.size(), Vector3d::Zero());
  for (int s = 0; s < ns; ++s) {
    for (int f = 0; f < nf; ++f) {
      if (!clip.isValid(f, s)) continue;
      const int a = f > 0 && clip.isValid(f - 1, s) ? f - 1 : f;
      const int b = f + 1 < nf && clip.isValid(f + 1, s) ? f + 1 : f;
      if (a == b) continue;
      const double dt = clip.times[static_cast<std::size_t>(b)] - clip.times[static_cast<std::size_t>(a)];
      const Transform& A = clip.pose(a, s);
      const Transform& B = clip.pose(b, s);
      const std::size_t k = static_cast<std::size_t>(f) * static_cast<std::size_t>(ns) + static_cast<std::size_t>(s);
      clip.linear_velocity[k] = (B.p - A.p) / dt;
      clip.angular_velocity[k] = so3::log(B.R * A.R.transpose()) / dt;  // world frame
    }
  }
}

}  // namespace kinetrack::io
