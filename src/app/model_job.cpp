#include "kinetrack/app/model_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::app {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kRadToDeg = 180.0 / M_PI;

// --- formatting -----------------------------------------------------------------------------

Json limitOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string limitText(double v, bool angular) {
  if (!std::isfinite(v)) return "none";
  return angular ? fmt::format("{:+.4f} ({:+.1f} deg)", v, v * kRadToDeg) : fmt::format("{:+.4f}", v);
}

std::string axisText(const Vector3d& a) {
  auto c = [](double v) { return std::abs(v) < 1e-12 ? 0.0 : v; };  // hide round-off like 2.2e-16
  return fmt::format("({:.4g}, {:.4g}, {:.4g})", c(a.x()), c(a.y()), c(a.z()));
}

std::size_t maxWidth(const std::vector<std::string>& names, std::size_t at_least) {
  std::size_t w = at_least;
  for (const auto& n : names) w = std::max(w, n.size());
  return w;
}

Json infoJson(const io::LoadedModel& lm) {
  const Model& m = lm.model;
  Json j;
  j["name"] = m.name();
  j["source"] = lm.source;
  j["height"] = lm.height ? Json(*lm.height) : Json(nullptr);
  j["mass"] = lm.mass ? Json(*lm.mass) : Json(nullptr);
  j["total_mass"] = m.totalMass();
  j["base"] = toString(m.baseType());
  j["dof"] = m.numJoints();
  j["nv"] = m.nv();

  Json links = Json::array();
  for (int l = 0; l < m.numLinks(); ++l) {
    const LinkId parent = m.parent(LinkId(l));
    const Inertial& in = m.inertial(LinkId(l));
    const Matrix3d& I = in.inertia;
    links.push_back(
        {{"name", m.linkName(LinkId(l))},
         {"parent", parent.valid() ? Json(m.linkName(parent)) : Json(nullptr)},
         {"mass", in.mass},
         {"com", {in.com.x(), in.com.y(), in.com.z()}},
         {"inertia", {{I(0, 0), I(0, 1), I(0, 2)}, {I(1, 0), I(1, 1), I(1, 2)}, {I(2, 0), I(2, 1), I(2, 2)}}}});
  }
  j["links"] = std::move(links);

  Json joints = Json::array();
  for (int k = 0; k < m.numJoints(); ++k) {
    const JointId jid(k);
    const Vector3d& a = m.jointAxis(jid);
    joints.push_back({{"name", m.jointName(jid)},
                      {"type", toString(m.jointType(jid))},
                      {"parent", m.linkName(m.parentLink(jid))},
                      {"child", m.linkName(m.childLink(jid))},
                      {"axis", {a.x(), a.y(), a.z()}},
                      {"lower", limitOrNull(m.lowerPositionLimits()[k])},
                      {"upper", limitOrNull(m.upperPositionLimits()[k])},
                      {"velocity", limitOrNull(m.upperVelocityLimits()[k])},
                      {"effort", limitOrNull(m.effortLimits()[k])}});
  }
  j["joints"] = std::move(joints);

  Json frames = Json::array();
  for (int f = 0; f < m.numFrames(); ++f) {
    const FrameId fid(f);
    const Vector3d& p = m.framePlacement(fid).p;
    frames.push_back({{"name", m.frameName(fid)},
                      {"kind", toString(m.frameKind(fid))},
                      {"link", m.linkName(m.frameLink(fid))},
                      {"xyz", {p.x(), p.y(), p.z()}}});
  }
  j["frames"] = std::move(frames);

  Json constraints = Json::array();
  for (const LinearConstraint& c : m.linearConstraints()) {
    Json coeffs = Json::object();
    for (int k = 0; k < c.coefficients.size(); ++k)
      if (c.coefficients[k] != 0.0) coeffs[m.jointName(JointId(k))] = c.coefficients[k];
    constraints.push_back({{"name", c.name},
                           {"coefficients", std::move(coeffs)},
                           {"lower", limitOrNull(c.lower)},
                           {"upper", limitOrNull(c.upper)},
                           {"velocity_bound", limitOrNull(c.velocity_bound)}});
  }
  j["linear_constraints"] = std::move(constraints);

  Json mimics = Json::array();
  for (const Mimic& mm : m.mimics())
    mimics.push_back({{"joint", m.jointName(mm.joint)},
                      {"master", m.jointName(mm.master)},
                      {"multiplier", mm.multiplier},
                      {"offset", mm.offset}});
  j["mimics"] = std::move(mimics);
  return j;
}

/// The links with mass: mass, COM in the link frame and the diagonal of the inertia about the COM
/// in the link axes.
void massTable(const Model& m, std::string& t) {
  std::vector<std::string> names;
  for (int l = 0; l < m.numLinks(); ++l)
    if (m.inertial(LinkId(l)).mass > 0.0) names.push_back(m.linkName(LinkId(l)));
  if (names.empty()) {
    t += fmt::format("\nmass: no link has mass (a kinematic model)\n");
    return;
  }
  const std::size_t w = maxWidth(names, 4);
  t += fmt::format(
      "\nmass properties of the {} links with mass (total {:.6g} kg; COM in the link frame, inertia about the "
      "COM in the link axes):\n",
      names.size(), m.totalMass());
  t += fmt::format("{:<{}}  {:>9}  {:>8} {:>8} {:>8}  {:>10} {:>10} {:>10}\n", "link", w, "mass [kg]", "com x", "com y",
                   "com z [m]", "Ixx", "Iyy", "Izz [kg m2]");
  for (const std::string& name : names) {
    const Inertial& in = m.inertial(m.linkId(name));
    // + 0.0 shows −0 (a mirrored zero) as 0.
    t += fmt::format("{:<{}}  {:>9.4f}  {:>8.4f} {:>8.4f} {:>8.4f}  {:>10.3e} {:>10.3e} {:>10.3e}\n", name, w, in.mass,
                     in.com.x() + 0.0, in.com.y() + 0.0, in.com.z() + 0.0, in.inertia(0, 0), in.inertia(1, 1),
                     in.inertia(2, 2));
  }
}

bool hasSegments(const Model& model) {
  return std::all_of(humanSegmentNames().begin(), humanSegmentNames().end(),
                     [&](const std::string& s) { return model.findLink(s).has_value(); });
}

}  // namespace

std::string modelInfoJson(const io::LoadedModel& model) { return infoJson(model).dump(2) + '\n'; }

std::string modelInfoText(const io::LoadedModel& lm) {
  std::string t;
  const Model& m = lm.model;
  int n_link = 0, n_fixed = 0, n_user = 0;
  for (int f = 0; f < m.numFrames(); ++f) {
    switch (m.frameKind(FrameId(f))) {
      case FrameKind::Link: ++n_link; break;
      case FrameKind::Fixed: ++n_fixed; break;
      case FrameKind::User: ++n_user; break;
    }
  }
  std::string source = lm.source;
  if (lm.height) source += fmt::format(" (body height {:.3g} m, mass {:.4g} kg)", *lm.height, lm.mass.value_or(0.0));

  t += fmt::format("model   {}\n", m.name());
  t += fmt::format("source  {}\n", source);
  t += fmt::format("base    {}\n", toString(m.baseType()));
  t += fmt::format("DoF     {}  (nv = {})\n", m.numJoints(), m.nv());
  t += fmt::format("links   {}\n", m.numLinks());
  t += fmt::format("joints  {}\n", m.numJoints());
  t += fmt::format("frames  {}  ({} link, {} fixed, {} user)\n", m.numFrames(), n_link, n_fixed, n_user);
  t += fmt::format("mass    {:.6g} kg\n", m.totalMass());

  // Joint table, columns sized to their widest entry.
  std::vector<std::vector<std::string>> rows = {
      {"#", "name", "type", "parent -> child", "axis", "lower", "upper", "velocity"}};
  for (int k = 0; k < m.numJoints(); ++k) {
    const JointId jid(k);
    const bool angular = m.jointType(jid) != JointType::Prismatic;
    rows.push_back({std::to_string(k), m.jointName(jid), toString(m.jointType(jid)),
                    m.linkName(m.parentLink(jid)) + " -> " + m.linkName(m.childLink(jid)), axisText(m.jointAxis(jid)),
                    limitText(m.lowerPositionLimits()[k], angular), limitText(m.upperPositionLimits()[k], angular),
                    limitText(m.upperVelocityLimits()[k], false)});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  t += fmt::format("\njoints (limits in rad, degrees in brackets; velocity in rad/s or m/s):\n");
  for (const auto& row : rows) {
    std::string text = fmt::format("{:>{}}", row[0], widths[0] + 2);
    for (std::size_t c = 1; c < row.size(); ++c)
      text += c + 1 == row.size() ? "  " + row[c] : fmt::format("  {:<{}}", row[c], widths[c]);
    t += fmt::format("{}\n", text);
  }

  // Frame list.
  const std::size_t wf = maxWidth(m.frameNames(), 4);
  t += fmt::format("\nframes:\n");
  t += fmt::format("{:>4}  {:<{}}  {:<5}  {}\n", "#", "name", wf, "kind", "link");
  for (int f = 0; f < m.numFrames(); ++f) {
    const FrameId fid(f);
    t += fmt::format("{:>4}  {:<{}}  {:<5}  {}\n", f, m.frameName(fid), wf, toString(m.frameKind(fid)),
                     m.linkName(m.frameLink(fid)));
  }

  massTable(m, t);

  if (!m.linearConstraints().empty()) {
    t += fmt::format("\nlinear constraints (lower <= a.s <= upper):\n");
    for (const LinearConstraint& c : m.linearConstraints()) {
      std::string terms;
      for (int k = 0; k < c.coefficients.size(); ++k) {
        const double a = c.coefficients[k];
        if (a == 0.0) continue;
        terms += fmt::format("{}{:g}*{}", terms.empty() ? "" : " + ", a, m.jointName(JointId(k)));
      }
      t += fmt::format("  {}: {} <= {} <= {}\n", c.name, limitText(c.lower, false), terms.empty() ? "0" : terms,
                       limitText(c.upper, false));
    }
  }
  if (!m.mimics().empty()) {
    t += fmt::format("\nmimics (joint = multiplier * master + offset):\n");
    for (const Mimic& mm : m.mimics())
      t += fmt::format("  {} = {:g} * {} + {:g}\n", m.jointName(mm.joint), mm.multiplier, m.jointName(mm.master),
                       mm.offset);
  }
  return t;
}

void exportUrdf(const io::LoadedModel& lm, const std::string& out_path) {
  namespace fs = std::filesystem;
  const fs::path out(out_path);
  std::error_code ec;
  if (out_path.empty()) throw InvalidArgument("--out: empty file name");
  if (fs::is_directory(out, ec)) throw ParseError(out_path, 0, "is a directory; --out needs a file name");
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw ParseError(out_path, 0, "cannot write: directory '" + dir.string() + "' does not exist");
  io::writeFileAtomically(out_path, io::toUrdf(lm.model));  // never leaves a partial output file
}

std::pair<std::string, double> parseJointAssignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InvalidArgument("--joint '" + text + "': expected NAME=VALUE (radians, or e.g. 90deg)");
  const std::string name = text.substr(0, eq);
  std::string_view value = std::string_view(text).substr(eq + 1);
  double scale = 1.0;
  if (value.size() > 3 && value.substr(value.size() - 3) == "deg") {
    value.remove_suffix(3);
    scale = M_PI / 180.0;
  }
  if (!value.empty() && value.front() == '+') value.remove_prefix(1);  // from_chars rejects a leading '+'
  double v = 0.0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size())
    throw InvalidArgument("--joint " + name + ": '" + std::string(value) + "' is not a number");
  if (!std::isfinite(v))
    throw InvalidArgument("--joint " + name + ": '" + std::string(value) + "' is not a finite number");
  return {name, v * scale};
}

FkResult runFk(const FkOptions& o, const Reporter& reporter) {
  FkResult r;
  auto model = std::make_shared<const Model>(loadModel(o.model, reporter).model);
  r.model = model;
  const Model& m = *model;
  r.q = Configuration(m);
  for (const auto& [name, v] : o.joints) {
    const JointId j = m.jointId(name);  // throws InvalidArgument listing the valid joint names
    r.q.joints[j.value] = v;
    const double lo = m.lowerPositionLimits()[j.value], hi = m.upperPositionLimits()[j.value];
    if (v < lo || v > hi)
      reporter.warn(fmt::format("--joint {}: {:g} is outside the position limits [{:g}, {:g}]", name, v, lo, hi));
  }
  if (!o.frames.empty()) {
    for (const auto& name : o.frames) r.frames.push_back(m.frameId(name));  // throws on unknown names
  } else if (hasSegments(m)) {
    for (const auto& s : humanSegmentNames()) r.frames.push_back(m.linkFrame(m.linkId(s)));
  } else {
    for (int l = 0; l < m.numLinks(); ++l) r.frames.push_back(m.linkFrame(LinkId(l)));
  }
  Data data(m);
  framesForwardKinematics(m, data, r.q);
  for (FrameId f : r.frames) r.placements.push_back(data.frame[f.value]);
  return r;
}

std::string fkJson(const FkResult& r) {
  const Model& m = *r.model;
  Json j;
  j["model"] = m.name();
  Json joints = Json::object();
  for (int k = 0; k < m.numJoints(); ++k)
    if (r.q.joints[k] != 0.0) joints[m.jointName(JointId(k))] = r.q.joints[k];
  j["joints"] = std::move(joints);
  Json out = Json::array();
  for (std::size_t i = 0; i < r.frames.size(); ++i) {
    const FrameId f = r.frames[i];
    const Transform& T = r.placements[i];
    const Eigen::Vector4d qw = so3::toQuaternionWxyz(T.R);
    out.push_back({{"name", m.frameName(f)},
                   {"link", m.linkName(m.frameLink(f))},
                   {"position", {T.p.x(), T.p.y(), T.p.z()}},
                   {"quaternion_wxyz", {qw[0], qw[1], qw[2], qw[3]}}});
  }
  j["frames"] = std::move(out);
  return j.dump(2) + '\n';
}

std::string fkText(const FkResult& r) {
  const Model& m = *r.model;
  int nonzero = 0;
  for (int k = 0; k < m.numJoints(); ++k) nonzero += r.q.joints[k] != 0.0;
  std::string t =
      fmt::format("model {}: world placement of {} frame(s), base at the origin, {} of {} joints non-zero\n", m.name(),
                  r.frames.size(), nonzero, m.numJoints());
  std::vector<std::string> names;
  for (FrameId f : r.frames) names.push_back(m.frameName(f));
  const std::size_t w = maxWidth(names, 5);
  t += fmt::format("{:<{}}  {:>9} {:>9} {:>9}   {:>8} {:>8} {:>8} {:>8}\n", "frame", w, "x [m]", "y [m]", "z [m]", "qw",
                   "qx", "qy", "qz");
  for (std::size_t i = 0; i < r.frames.size(); ++i) {
    const Transform& T = r.placements[i];
    const Eigen::Vector4d qw = so3::toQuaternionWxyz(T.R);
    t += fmt::format("{:<{}}  {:>9.4f} {:>9.4f} {:>9.4f}   {:>8.4f} {:>8.4f} {:>8.4f} {:>8.4f}\n",
                     m.frameName(r.frames[i]), w, T.p.x(), T.p.y(), T.p.z(), qw[0], qw[1], qw[2], qw[3]);
  }
  return t;
}

}  // namespace kinetrack::app
