// The data of a tracked result for the browser viewer: forward kinematics of every row, the input
// capture in the model's world, per-link target errors; and data.js, the script that carries it.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::viewer {
namespace {

constexpr double kRadToDeg = 180.0 / M_PI;

/// Target errors of one frame, per binding: orientation angle (deg) or position distance (mm).
void bindingErrors(const Model& model, const Data& data, const track::Retargeting& plan, std::span<const Matrix3d> R,
                   std::span<const Vector3d> p, const std::vector<FrameId>& frames, bool use_orientation,
                   std::span<double> link_error) {
  std::fill(link_error.begin(), link_error.end(), -1.0);
  for (std::size_t b = 0; b < plan.bindings.size(); ++b) {
    const auto& binding = plan.bindings[b];
    const Transform& X = data.frame[frames[b].value];
    double e = -1.0;
    if (use_orientation && binding.orientation) {
      e = so3::log(R[b].transpose() * X.R).norm() * kRadToDeg;
    } else if (!use_orientation && binding.position) {
      e = (p[b] - X.p).norm() * 1e3;
    }
    if (e < 0.0) continue;
    double& slot = link_error[static_cast<std::size_t>(model.frameLink(frames[b]).value)];
    slot = std::max(slot, e);
  }
}

void addErrors(ViewerData& out, const Model& model, const std::vector<Configuration>& q, const track::Capture& capture,
               const track::Retargeting& plan) {
  const std::size_t nb = plan.bindings.size();
  if (nb == 0) return;
  track::checkBindings(capture.clip, plan.bindings);
  std::vector<FrameId> frames;
  frames.reserve(nb);
  for (const auto& b : plan.bindings) frames.push_back(model.frameId(b.frame));
  const bool use_orientation =
      std::any_of(plan.bindings.begin(), plan.bindings.end(), [](const auto& b) { return b.orientation; });
  out.error_unit = use_orientation ? "deg" : "mm";
  const int nl = model.numLinks();
  out.errors.assign(static_cast<std::size_t>(out.numFrames()) * static_cast<std::size_t>(nl), -1.0);
  out.frame_error.assign(static_cast<std::size_t>(out.numFrames()), 0.0);
  std::vector<Matrix3d> R(nb);
  std::vector<Vector3d> p(nb);
  Data data(model);
  std::vector<double> all;
  for (int f = 0; f < out.numFrames(); ++f) {
    std::span<double> link_error(out.errors.data() + static_cast<std::size_t>(f) * static_cast<std::size_t>(nl),
                                 static_cast<std::size_t>(nl));
    if (!track::clipFrameTargets(capture.clip, plan.bindings, plan.alignment, f, R, p)) continue;  // a gap: no error
    framesForwardKinematics(model, data, q[static_cast<std::size_t>(f)]);
    bindingErrors(model, data, plan, R, p, frames, use_orientation, link_error);
    double sum = 0.0;
    int count = 0;
    for (const double e : link_error) {
      if (e < 0.0) continue;
      sum += e;
      ++count;
      all.push_back(e);
    }
    out.frame_error[static_cast<std::size_t>(f)] = count > 0 ? sum / count : 0.0;
  }
  if (!all.empty()) {
    const auto k = static_cast<std::ptrdiff_t>(0.95 * static_cast<double>(all.size() - 1));
    std::nth_element(all.begin(), all.begin() + k, all.end());
    out.error_p95 = all[static_cast<std::size_t>(k)];
    out.error_max = *std::max_element(all.begin(), all.end());
    out.error_scale = std::max(out.error_p95, 1.0);
  }
}

void addInput(ViewerData& out, const track::Capture& capture, const track::Retargeting* plan) {
  const io::MotionClip& clip = capture.clip;
  const track::ClipAlignment alignment = plan != nullptr ? plan->alignment : track::ClipAlignment{};
  out.input = clip.source;
  // Segments shown: the targeted ones with a plan (clip order), else all.
  std::vector<int> shown, slot(static_cast<std::size_t>(clip.numSegments()), -1);
  for (int s = 0; s < clip.numSegments(); ++s) {
    const bool bound = plan == nullptr || std::any_of(plan->bindings.begin(), plan->bindings.end(),
                                                      [s](const auto& b) { return b.segment == s; });
    if (!bound) continue;
    slot[static_cast<std::size_t>(s)] = static_cast<int>(shown.size());
    shown.push_back(s);
  }
  for (const int s : shown) {
    int parent = clip.segment_parent[static_cast<std::size_t>(s)];
    while (parent >= 0 && slot[static_cast<std::size_t>(parent)] < 0)
      parent = clip.segment_parent[static_cast<std::size_t>(parent)];
    out.segment_names.push_back(clip.segment_names[static_cast<std::size_t>(s)]);
    out.segment_parent.push_back(parent >= 0 ? slot[static_cast<std::size_t>(parent)] : -1);
  }
  const int ns = static_cast<int>(shown.size());
  out.input_positions.resize(static_cast<std::size_t>(out.numFrames()) * static_cast<std::size_t>(ns) * 3);
  out.input_valid.resize(static_cast<std::size_t>(out.numFrames()) * static_cast<std::size_t>(ns));
  for (int f = 0; f < out.numFrames(); ++f) {
    for (int s = 0; s < ns; ++s) {
      const std::size_t i = static_cast<std::size_t>(f) * static_cast<std::size_t>(ns) + static_cast<std::size_t>(s);
      const int c = shown[static_cast<std::size_t>(s)];
      const std::size_t ci =
          static_cast<std::size_t>(f) * static_cast<std::size_t>(clip.numSegments()) + static_cast<std::size_t>(c);
      const bool has_position = capture.has_position.empty() || capture.has_position[static_cast<std::size_t>(c)];
      const Vector3d& pc = clip.pose(f, c).p;
      const bool ok = clip.valid[ci] != 0 && has_position && pc.allFinite();
      const Vector3d pw =
          ok ? Vector3d(alignment.scale * (alignment.rotation * pc) + alignment.translation) : Vector3d::Zero();
      out.input_valid[i] = ok ? 1 : 0;
      for (int k = 0; k < 3; ++k) out.input_positions[3 * i + static_cast<std::size_t>(k)] = pw[k];
    }
  }
}

/// Appends `value` rounded to `decimals` decimals (shortest form that reads back).
void appendNumber(std::string& s, double value, double scale) {
  std::array<char, 32> buf{};
  const double v = std::round(value * scale) / scale;
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v == 0.0 ? 0.0 : v);
  s.append(buf.data(), r.ptr);
}

/// Appends `values` as a JSON array of numbers with `decimals` decimals.
void appendNumbers(std::string& s, const std::vector<double>& values, int decimals) {
  const double scale = std::pow(10.0, decimals);
  s += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ',';
    appendNumber(s, values[i], scale);
  }
  s += ']';
}

void appendFlags(std::string& s, const std::vector<std::uint8_t>& flags) {
  s += '[';
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (i > 0) s += ',';
    s += flags[i] != 0 ? '1' : '0';
  }
  s += ']';
}

nlohmann::json namedTree(const std::vector<std::string>& names, const std::vector<int>& parent) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < names.size(); ++i) list.push_back({{"name", names[i]}, {"parent", parent[i]}});
  return list;
}

}  // namespace

ViewerData buildViewerData(const Model& model, const io::JointTrajectory& result, const track::Capture* capture,
                           const track::Retargeting* plan) {
  std::vector<Configuration> q;
  try {
    q = io::toConfigurations(result, model);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(result.source + ": the result does not match model '" + model.name() + "': " + e.what());
  }
  ViewerData out;
  out.model_name = model.name();
  out.result = result.source;
  out.link_names = model.linkNames();
  for (int l = 0; l < model.numLinks(); ++l) out.link_parent.push_back(l == 0 ? -1 : model.parent(LinkId(l)).value);
  out.times = result.times;
  out.gap = result.gap;
  const int nl = model.numLinks();
  out.positions.resize(static_cast<std::size_t>(result.numFrames()) * static_cast<std::size_t>(nl) * 3);
  Data data(model);
  for (int f = 0; f < result.numFrames(); ++f) {
    forwardKinematics(model, data, q[static_cast<std::size_t>(f)]);
    for (int l = 0; l < nl; ++l) {
      const Vector3d& p = data.link[static_cast<std::size_t>(l)].p;
      for (int k = 0; k < 3; ++k)
        out.positions[(static_cast<std::size_t>(f) * static_cast<std::size_t>(nl) + static_cast<std::size_t>(l)) * 3 +
                      static_cast<std::size_t>(k)] = p[k];
    }
  }
  if (capture == nullptr) return out;
  if (capture->clip.numFrames() != result.numFrames()) {
    throw InvalidArgument(result.source + " has " + std::to_string(result.numFrames()) + " frames but the input " +
                          capture->clip.source + " has " + std::to_string(capture->clip.numFrames()) +
                          ": pass the capture the result was tracked from");
  }
  addInput(out, *capture, plan);
  if (plan != nullptr) addErrors(out, model, q, *capture, *plan);
  return out;
}

std::string dataScript(const ViewerData& data) {
  nlohmann::json head;
  head["model"] = {{"name", data.model_name}, {"links", namedTree(data.link_names, data.link_parent)}};
  head["result"] = std::filesystem::path(data.result).filename().string();
  std::string s = "window.KINETRACK_DATA = " + head.dump();
  s.pop_back();  // the closing brace: the big arrays follow
  s += ",\"times\":";
  appendNumbers(s, data.times, 6);
  s += ",\"gap\":";
  appendFlags(s, data.gap);
  s += ",\"positions\":";
  appendNumbers(s, data.positions, 4);
  if (!data.input.empty()) {
    nlohmann::json input = {{"source", std::filesystem::path(data.input).filename().string()},
                            {"segments", namedTree(data.segment_names, data.segment_parent)}};
    std::string text = input.dump();
    text.pop_back();
    s += ",\"input\":" + text + ",\"positions\":";
    appendNumbers(s, data.input_positions, 4);
    s += ",\"valid\":";
    appendFlags(s, data.input_valid);
    s += '}';
  }
  if (!data.errors.empty()) {
    s += ",\"error_unit\":" + nlohmann::json(data.error_unit).dump() + ",\"error_scale\":";
    appendNumber(s, data.error_scale, 1e3);
    s += ",\"errors\":";
    appendNumbers(s, data.errors, 2);
    s += ",\"frame_error\":";
    appendNumbers(s, data.frame_error, 3);
  }
  s += "};\n";
  return s;
}

void writeViewerDirectory(const std::string& dir, const ViewerData& data) {
  if (!bundled()) {
    throw InvalidArgument(
        "the browser viewer was not built into this kinetrack: install nodejs and npm (scripts/setup.sh), "
        "configure with -DKINETRACK_VIEWER=ON (the demo build turns it off) and rebuild (docs/viewer.md)");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) throw ParseError(dir, 0, "cannot create the output directory");
  for (const Asset& a : assets()) io::writeFileAtomically((std::filesystem::path(dir) / a.name).string(), a.text);
  io::writeFileAtomically((std::filesystem::path(dir) / "data.js").string(), dataScript(data));
}

}  // namespace kinetrack::viewer
