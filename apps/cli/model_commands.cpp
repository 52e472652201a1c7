// `kinetrack model info | export | fk`: inspect, convert and evaluate a model given as a built-in
// name or a URDF path. Each subcommand parses into a typed config struct, then calls the library.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <system_error>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::cli {

namespace {

using Json = nlohmann::ordered_json;
constexpr double kRadToDeg = 180.0 / M_PI;

// --- typed configs --------------------------------------------------------------------------

struct InfoConfig {
  ModelSpec model;
  bool json = false;
};

struct ExportConfig {
  ModelSpec model;
  std::string out;
};

struct FkConfig {
  ModelSpec model;
  std::vector<std::string> frames;  ///< empty: the 23 segments, or every link
  std::vector<std::string> joints;  ///< NAME=VALUE (rad, or with a "deg" suffix)
  bool json = false;
};

void addModelArgument(CLI::App& cmd, ModelSpec& spec, bool with_fixed_base) {
  cmd.add_option("MODEL", spec.model, "built-in model (human66, human48) or URDF file")->required();
  cmd.add_option_function<double>(
      "--height", [&spec](const double& h) { spec.height = h; },
      "body height of a built-in model (m, 0.5 to 2.5; default 1.75)");
  cmd.add_option_function<double>(
      "--mass", [&spec](const double& m) { spec.mass = m; }, kMassHelp);
  if (with_fixed_base) cmd.add_flag("--fixed-base", spec.fixed_base, "fixed instead of floating base");
}

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

// --- info -----------------------------------------------------------------------------------

Json infoJson(const LoadedModel& lm) {
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
void printMassTable(const Model& m) {
  std::vector<std::string> names;
  for (int l = 0; l < m.numLinks(); ++l)
    if (m.inertial(LinkId(l)).mass > 0.0) names.push_back(m.linkName(LinkId(l)));
  if (names.empty()) {
    fmt::print("\nmass: no link has mass (a kinematic model)\n");
    return;
  }
  const std::size_t w = maxWidth(names, 4);
  fmt::print(
      "\nmass properties of the {} links with mass (total {:.6g} kg; COM in the link frame, inertia about the "
      "COM in the link axes):\n",
      names.size(), m.totalMass());
  fmt::print("{:<{}}  {:>9}  {:>8} {:>8} {:>8}  {:>10} {:>10} {:>10}\n", "link", w, "mass [kg]", "com x", "com y",
             "com z [m]", "Ixx", "Iyy", "Izz [kg m2]");
  for (const std::string& name : names) {
    const Inertial& in = m.inertial(m.linkId(name));
    // + 0.0 shows −0 (a mirrored zero) as 0.
    fmt::print("{:<{}}  {:>9.4f}  {:>8.4f} {:>8.4f} {:>8.4f}  {:>10.3e} {:>10.3e} {:>10.3e}\n", name, w, in.mass,
               in.com.x() + 0.0, in.com.y() + 0.0, in.com.z() + 0.0, in.inertia(0, 0), in.inertia(1, 1),
               in.inertia(2, 2));
  }
}

void printInfoText(const LoadedModel& lm) {
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

  fmt::print("model   {}\n", m.name());
  fmt::print("source  {}\n", source);
  fmt::print("base    {}\n", toString(m.baseType()));
  fmt::print("DoF     {}  (nv = {})\n", m.numJoints(), m.nv());
  fmt::print("links   {}\n", m.numLinks());
  fmt::print("joints  {}\n", m.numJoints());
  fmt::print("frames  {}  ({} link, {} fixed, {} user)\n", m.numFrames(), n_link, n_fixed, n_user);
  fmt::print("mass    {:.6g} kg\n", m.totalMass());

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
  fmt::print("\njoints (limits in rad, degrees in brackets; velocity in rad/s or m/s):\n");
  for (const auto& row : rows) {
    std::string text = fmt::format("{:>{}}", row[0], widths[0] + 2);
    for (std::size_t c = 1; c < row.size(); ++c)
      text += c + 1 == row.size() ? "  " + row[c] : fmt::format("  {:<{}}", row[c], widths[c]);
    fmt::print("{}\n", text);
  }

  // Frame list.
  const std::size_t wf = maxWidth(m.frameNames(), 4);
  fmt::print("\nframes:\n");
  fmt::print("{:>4}  {:<{}}  {:<5}  {}\n", "#", "name", wf, "kind", "link");
  for (int f = 0; f < m.numFrames(); ++f) {
    const FrameId fid(f);
    fmt::print("{:>4}  {:<{}}  {:<5}  {}\n", f, m.frameName(fid), wf, toString(m.frameKind(fid)),
               m.linkName(m.frameLink(fid)));
  }

  printMassTable(m);

  if (!m.linearConstraints().empty()) {
    fmt::print("\nlinear constraints (lower <= a.s <= upper):\n");
    for (const LinearConstraint& c : m.linearConstraints()) {
      std::string terms;
      for (int k = 0; k < c.coefficients.size(); ++k) {
        const double a = c.coefficients[k];
        if (a == 0.0) continue;
        terms += fmt::format("{}{:g}*{}", terms.empty() ? "" : " + ", a, m.jointName(JointId(k)));
      }
      fmt::print("  {}: {} <= {} <= {}\n", c.name, limitText(c.lower, false), terms.empty() ? "0" : terms,
                 limitText(c.upper, false));
    }
  }
  if (!m.mimics().empty()) {
    fmt::print("\nmimics (joint = multiplier * master + offset):\n");
    for (const Mimic& mm : m.mimics())
      fmt::print("  {} = {:g} * {} + {:g}\n", m.jointName(mm.joint), mm.multiplier, m.jointName(mm.master), mm.offset);
  }
}

int runInfo(const InfoConfig& cfg) {
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  if (cfg.json)
    std::cout << infoJson(lm).dump(2) << '\n';
  else
    printInfoText(lm);
  return kExitOk;
}

// --- export ---------------------------------------------------------------------------------

int runExport(const ExportConfig& cfg) {
  namespace fs = std::filesystem;
  const LoadedModel lm = loadModelAndWarn(cfg.model);

  const fs::path out(cfg.out);
  std::error_code ec;
  if (cfg.out.empty()) throw UsageError("--out: empty file name");
  if (fs::is_directory(out, ec)) throw ParseError(cfg.out, 0, "is a directory; --out needs a file name");
  const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw ParseError(cfg.out, 0, "cannot write: directory '" + dir.string() + "' does not exist");

  io::writeFileAtomically(cfg.out, io::toUrdf(lm.model));  // never leaves a partial output file
  fmt::print("wrote {} ({} DoF, {} links, {} frames) to {}\n", lm.model.name(), lm.model.numJoints(),
             lm.model.numLinks(), lm.model.numFrames(), cfg.out);
  return kExitOk;
}

// --- fk -------------------------------------------------------------------------------------

/// Parses "NAME=VALUE" (VALUE in rad, or in degrees with a "deg" suffix) and stores it in q.
void applyJointAssignment(const Model& model, const std::string& text, Configuration& q) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--joint '" + text + "': expected NAME=VALUE (radians, or e.g. 90deg)");
  const std::string name = text.substr(0, eq);
  std::string_view value = std::string_view(text).substr(eq + 1);
  double scale = 1.0;
  if (value.size() > 3 && value.substr(value.size() - 3) == "deg") {
    value.remove_suffix(3);
    scale = M_PI / 180.0;
  }
  const JointId j = model.jointId(name);  // throws InvalidArgument listing the valid joint names
  const double v = parseFiniteDouble(value, "--joint " + name) * scale;
  q.joints[j.value] = v;
  const double lo = model.lowerPositionLimits()[j.value], hi = model.upperPositionLimits()[j.value];
  if (v < lo || v > hi)
    std::cerr << fmt::format("kinetrack: warning: --joint {}: {:g} is outside the position limits [{:g}, {:g}]\n", name,
                             v, lo, hi);
}

int runFk(const FkConfig& cfg) {
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  const Model& m = lm.model;

  Configuration q(m);
  for (const auto& assignment : cfg.joints) applyJointAssignment(m, assignment, q);

  std::vector<FrameId> frames;
  if (!cfg.frames.empty()) {
    for (const auto& name : cfg.frames) frames.push_back(m.frameId(name));  // throws on unknown names
  } else if (hasSegments(m)) {
    for (const auto& s : segmentNames()) frames.push_back(m.linkFrame(m.linkId(s)));
  } else {
    for (int l = 0; l < m.numLinks(); ++l) frames.push_back(m.linkFrame(LinkId(l)));
  }

  Data data(m);
  framesForwardKinematics(m, data, q);

  if (cfg.json) {
    Json j;
    j["model"] = m.name();
    Json joints = Json::object();
    for (int k = 0; k < m.numJoints(); ++k)
      if (q.joints[k] != 0.0) joints[m.jointName(JointId(k))] = q.joints[k];
    j["joints"] = std::move(joints);
    Json out = Json::array();
    for (FrameId f : frames) {
      const Transform& T = data.frame[f.value];
      const Eigen::Vector4d qw = so3::toQuaternionWxyz(T.R);
      out.push_back({{"name", m.frameName(f)},
                     {"link", m.linkName(m.frameLink(f))},
                     {"position", {T.p.x(), T.p.y(), T.p.z()}},
                     {"quaternion_wxyz", {qw[0], qw[1], qw[2], qw[3]}}});
    }
    j["frames"] = std::move(out);
    std::cout << j.dump(2) << '\n';
    return kExitOk;
  }

  int nonzero = 0;
  for (int k = 0; k < m.numJoints(); ++k) nonzero += q.joints[k] != 0.0;
  fmt::print("model {}: world placement of {} frame(s), base at the origin, {} of {} joints non-zero\n", m.name(),
             frames.size(), nonzero, m.numJoints());
  std::vector<std::string> names;
  for (FrameId f : frames) names.push_back(m.frameName(f));
  const std::size_t w = maxWidth(names, 5);
  fmt::print("{:<{}}  {:>9} {:>9} {:>9}   {:>8} {:>8} {:>8} {:>8}\n", "frame", w, "x [m]", "y [m]", "z [m]", "qw", "qx",
             "qy", "qz");
  for (FrameId f : frames) {
    const Transform& T = data.frame[f.value];
    const Eigen::Vector4d qw = so3::toQuaternionWxyz(T.R);
    fmt::print("{:<{}}  {:>9.4f} {:>9.4f} {:>9.4f}   {:>8.4f} {:>8.4f} {:>8.4f} {:>8.4f}\n", m.frameName(f), w, T.p.x(),
               T.p.y(), T.p.z(), qw[0], qw[1], qw[2], qw[3]);
  }
  return kExitOk;
}

}  // namespace

void addModelCommands(CLI::App& app, Action& action) {
  CLI::App* model = app.add_subcommand("model", "inspect, export and evaluate a model (built-in name or URDF file)");
  model->require_subcommand(1);

  auto info = std::make_shared<InfoConfig>();
  CLI::App* info_cmd = model->add_subcommand("info", "print a model's links, joints, limits and frames");
  addModelArgument(*info_cmd, info->model, true);
  info_cmd->add_flag("--json", info->json, "print one JSON object instead of tables");
  info_cmd->callback([&action, info] { action = [info] { return runInfo(*info); }; });

  auto exp = std::make_shared<ExportConfig>();
  CLI::App* exp_cmd = model->add_subcommand("export", "write a model as URDF");
  addModelArgument(*exp_cmd, exp->model, false);
  exp_cmd->add_option("--out", exp->out, "output URDF file")->required();
  exp_cmd->callback([&action, exp] { action = [exp] { return runExport(*exp); }; });

  auto fk = std::make_shared<FkConfig>();
  CLI::App* fk_cmd = model->add_subcommand("fk", "forward kinematics: world position and orientation of frames");
  addModelArgument(*fk_cmd, fk->model, false);
  fk_cmd->add_option("--frame", fk->frames, "frame name(s) (default: the 23 segments, else every link)")
      ->delimiter(',');
  fk_cmd->add_option("--joint", fk->joints, "joint value NAME=VALUE in rad (or NAME=90deg); repeatable, default 0");
  fk_cmd->add_flag("--json", fk->json, "print JSON instead of a table");
  fk_cmd->callback([&action, fk] { action = [fk] { return runFk(*fk); }; });
}

}  // namespace kinetrack::cli
