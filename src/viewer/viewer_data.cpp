// The data of a tracked result for the browser viewer: forward kinematics of every row, the input
// capture in the model's world, per-link target errors; and data.js, the script that carries it
// (a JSON header and the arrays as one base64 binary blob).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "blob.hpp"
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

nlohmann::json namedTree(const std::vector<std::string>& names, const std::vector<int>& parent) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < names.size(); ++i) list.push_back({{"name", names[i]}, {"parent", parent[i]}});
  return list;
}

/// The header's model: name, links, up (no −0) and sliding links.
nlohmann::json modelJson(const ViewerData& d) {
  return {{"name", d.model_name},
          {"links", namedTree(d.link_names, d.link_parent)},
          {"up", {d.up[0] + 0.0, d.up[1] + 0.0, d.up[2] + 0.0}},
          {"slides", d.slides}};
}

}  // namespace

Motion motionOf(const io::JointTrajectory& result, const Model& model) {
  Motion motion;
  try {
    motion.configurations = io::toConfigurations(result, model);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(result.source + ": the result does not match model '" + model.name() + "': " + e.what());
  }
  motion.source = result.source;
  motion.times = result.times;
  motion.gap = result.gap;
  return motion;
}

ViewerData buildViewerData(const Model& model, const io::JointTrajectory& result, const track::Capture* capture,
                           const track::Retargeting* plan, double mesh_cell) {
  return buildViewerData(model, motionOf(result, model), capture, plan, mesh_cell);
}

ViewerData buildViewerData(const Model& model, const Motion& motion, const track::Capture* capture,
                           const track::Retargeting* plan, double mesh_cell) {
  const auto frames = static_cast<int>(motion.times.size());
  if (motion.configurations.size() != motion.times.size())
    throw InvalidArgument(motion.source + ": " + std::to_string(motion.configurations.size()) + " configurations for " +
                          std::to_string(frames) + " frame times");
  ViewerData out;
  out.model_name = model.name();
  out.result = motion.source;
  out.up = model.up();
  out.link_names = model.linkNames();
  for (int l = 0; l < model.numLinks(); ++l) out.link_parent.push_back(l == 0 ? -1 : model.parent(LinkId(l)).value);
  for (int j = 0; j < model.numJoints(); ++j)
    if (model.jointType(JointId(j)) == JointType::Prismatic) out.slides.push_back(j + 1);
  out.times = motion.times;
  out.gap = motion.gap.empty() ? std::vector<std::uint8_t>(motion.times.size(), 0) : motion.gap;
  const auto nl = static_cast<std::size_t>(model.numLinks());
  out.positions.resize(static_cast<std::size_t>(frames) * nl * 3);
  out.orientations.resize(static_cast<std::size_t>(frames) * nl * 4);
  Data data(model);
  for (int f = 0; f < frames; ++f) {
    forwardKinematics(model, data, motion.configurations[static_cast<std::size_t>(f)]);
    for (std::size_t l = 0; l < nl; ++l) {
      const std::size_t i = static_cast<std::size_t>(f) * nl + l;
      const Transform& X = data.link[l];
      const Eigen::Vector4d wxyz = so3::toQuaternionWxyz(X.R);
      for (int k = 0; k < 3; ++k) out.positions[i * 3 + static_cast<std::size_t>(k)] = X.p[k];
      for (int k = 0; k < 3; ++k) out.orientations[i * 4 + static_cast<std::size_t>(k)] = wxyz[k + 1];
      out.orientations[i * 4 + 3] = wxyz[0];
    }
  }
  out.joint_names = model.jointNames();
  const auto nj = static_cast<std::size_t>(model.numJoints());
  std::vector<double> unit_scale(nj);  // rad → deg, m as it is
  for (std::size_t j = 0; j < nj; ++j) {
    const bool slide = model.jointType(JointId(static_cast<int>(j))) == JointType::Prismatic;
    out.joint_units.emplace_back(slide ? "m" : "deg");
    unit_scale[j] = slide ? 1.0 : kRadToDeg;
  }
  out.joint_values.resize(static_cast<std::size_t>(frames) * nj);
  for (std::size_t f = 0; f < static_cast<std::size_t>(frames); ++f)
    for (std::size_t j = 0; j < nj; ++j)
      out.joint_values[f * nj + j] = motion.configurations[f].joints[static_cast<Eigen::Index>(j)] * unit_scale[j];
  out.geometry = viewerGeometry(model, mesh_cell);
  if (capture == nullptr) return out;
  if (capture->clip.numFrames() != frames) {
    throw InvalidArgument(motion.source + " has " + std::to_string(frames) + " frames but the input " +
                          capture->clip.source + " has " + std::to_string(capture->clip.numFrames()) +
                          ": pass the capture the result was tracked from");
  }
  addInput(out, *capture, plan);
  if (plan != nullptr) addErrors(out, model, motion.configurations, *capture, *plan);
  return out;
}

std::string dataScript(const ViewerData& data) {
  detail::Blob blob;
  nlohmann::json head;
  head["format"] = 2;
  head["model"] = modelJson(data);
  head["result"] = std::filesystem::path(data.result).filename().string();
  head["frames"] = data.numFrames();
  head["joints"] = {{"names", data.joint_names}, {"units", data.joint_units}};
  blob.addFloats("joints.values", data.joint_values);
  blob.add<double>("times", data.times);
  blob.add<std::uint8_t>("gap", data.gap);
  blob.addFloats("positions", data.positions);
  blob.addFloats("orientations", data.orientations);
  if (!data.input.empty()) {
    head["input"] = {{"source", std::filesystem::path(data.input).filename().string()},
                     {"segments", namedTree(data.segment_names, data.segment_parent)}};
    blob.addFloats("input.positions", data.input_positions);
    blob.add<std::uint8_t>("input.valid", data.input_valid);
  }
  if (!data.errors.empty()) {
    head["error_unit"] = data.error_unit;
    head["error_scale"] = data.error_scale;
    blob.addFloats("errors", data.errors);
    blob.addFloats("frame_error", data.frame_error);
  }
  const auto file = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  if (const MuscleLayer& m = data.muscles; !m.empty()) {
    head["muscles"] = {
        {"names", m.names},      {"slots", m.slots},     {"first", m.first},       {"capacity", m.capacity},
        {"value", m.value_name}, {"unit", m.value_unit}, {"scale", m.value_scale}, {"source", file(m.value_source)}};
    blob.addFloats("muscles.points", m.points);
    blob.add<std::uint16_t>("muscles.count", m.count);
    if (!m.values.empty()) blob.addFloats("muscles.values", m.values);
  }
  if (const MarkerLayer& m = data.markers; !m.empty()) {
    head["markers"] = {{"names", m.names},
                       {"source", file(m.source)},
                       {"matched", m.matched},
                       {"rms_error", m.rms_error},
                       {"max_error", m.max_error}};
    blob.addFloats("markers.measured", m.measured);
    blob.addFloats("markers.model", m.model);
  }
  if (const ForceLayer& f = data.forces; !f.empty()) {
    head["forces"] = {{"names", f.names}, {"link", f.link}, {"max_force", f.max_force}, {"source", file(f.source)}};
    blob.addFloats("forces.point", f.point);
    blob.addFloats("forces.force", f.force);
  }
  if (const BodyLayer& b = data.body; !b.com.empty() || !b.feet.empty()) {
    head["body"] = {{"feet", b.feet}, {"contact_rule", b.contact_rule}, {"com", !b.com.empty()}};
    if (!b.com.empty()) blob.addFloats("body.com", b.com);
    blob.add<std::uint8_t>("body.contact", b.contact);
  }
  nlohmann::json companions = nlohmann::json::array();
  for (std::size_t c = 0; c < data.companions.size(); ++c) {
    const ViewerData& d = *data.companions[c].data;
    if (d.numFrames() != data.numFrames())
      throw InvalidArgument("viewer: companion '" + data.companions[c].label + "' has " +
                            std::to_string(d.numFrames()) + " frames, the scene " + std::to_string(data.numFrames()));
    const std::string key = "c" + std::to_string(c);
    const Vector3d& o = data.companions[c].offset;
    companions.push_back({{"label", data.companions[c].label},
                          {"offset", {o[0], o[1], o[2]}},
                          {"arrays", key},
                          {"model", modelJson(d)}});
    blob.addFloats(key + ".positions", d.positions);  // drawn as a skeleton: positions only
  }
  if (!companions.empty()) head["companions"] = companions;
  return blob.script("KINETRACK_DATA", std::move(head), "KINETRACK_BLOB");
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
  io::writeFileAtomically((std::filesystem::path(dir) / "meshes.js").string(), geometryScript(data.geometry));
}

}  // namespace kinetrack::viewer
