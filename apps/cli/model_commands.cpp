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
#include "kinetrack/app/model_job.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack::cli {

namespace {

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
  cmd.add_option("MODEL", spec.model, "built-in model (human66, human48), URDF, MJCF (.xml, .mjcf) or .osim file")
      ->required();
  cmd.add_option_function<double>(
      "--height", [&spec](const double& h) { spec.height = h; },
      "body height of a built-in model (m, 0.5 to 2.5; default 1.75)");
  cmd.add_option_function<double>(
      "--mass", [&spec](const double& m) { spec.mass = m; }, kMassHelp);
  if (with_fixed_base) cmd.add_flag("--fixed-base", spec.fixed_base, "fixed instead of floating base");
}

int runInfo(const InfoConfig& cfg) {
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  std::cout << (cfg.json ? app::modelInfoJson(lm) : app::modelInfoText(lm));
  return kExitOk;
}

int runExport(const ExportConfig& cfg) {
  const LoadedModel lm = loadModelAndWarn(cfg.model);
  app::exportUrdf(lm, cfg.out);
  fmt::print("wrote {} ({} DoF, {} links, {} frames) to {}\n", lm.model.name(), lm.model.numJoints(),
             lm.model.numLinks(), lm.model.numFrames(), cfg.out);
  return kExitOk;
}

int runFk(const FkConfig& cfg) {
  app::FkOptions o;
  o.model = cfg.model;
  o.frames = cfg.frames;
  for (const std::string& j : cfg.joints) o.joints.push_back(app::parseJointAssignment(j));
  const app::FkResult r = app::runFk(o, cliReporter(false));
  std::cout << (cfg.json ? app::fkJson(r) : app::fkText(r));
  return kExitOk;
}

}  // namespace

void addModelCommands(CLI::App& app, Action& action) {
  CLI::App* model =
      app.add_subcommand("model", "inspect, export and evaluate a model (built-in name, URDF, MJCF or .osim file)");
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
