// `kinetrack`: the command-line tool. Builds the CLI11 app from the subcommand modules, parses,
// then runs the chosen action under one error policy: every bad input (CLI11 parse errors,
// kinetrack::ParseError, kinetrack::InvalidArgument, UsageError) is one message on stderr and
// exit code 2; anything unexpected is reported as an internal error with exit code 1.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/version.hpp"

namespace {

int reportError(const char* kind, const char* what, int code) {
  std::fflush(stdout);
  std::cerr << "kinetrack: " << kind << what << '\n';
  return code;
}

/// When parsing stopped because a command group (kinetrack, kinetrack model) got a word that is
/// none of its subcommands, CLI11 only says "A subcommand is required"; name the word instead.
std::string unknownCommandMessage(const CLI::App& app) {
  const CLI::App* current = &app;
  std::string path = current->get_name();
  while (true) {
    const auto chosen = current->get_subcommands();
    if (chosen.empty()) break;
    current = chosen.front();
    path += " " + current->get_name();
  }
  const auto all = current->get_subcommands([](const CLI::App*) { return true; });
  if (all.empty()) return {};
  for (const std::string& word : current->remaining()) {
    if (word.empty() || word.front() == '-') continue;
    std::string valid;
    for (const CLI::App* sub : all) valid += (valid.empty() ? "" : ", ") + sub->get_name();
    return "unknown command '" + word + "' for '" + path + "'; valid commands: " + valid;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kinetrack::cli;

  CLI::App app{"kinetrack: real-time whole-body motion tracking by inverse kinematics", "kinetrack"};
  app.set_version_flag("--version", std::string("kinetrack ") + kinetrack::kVersion);
  app.require_subcommand(1);
  app.footer("Units: metres, radians, seconds; world frame Z up. Exit codes: 0 ok, 1 internal error, 2 bad input.");

  Action action;
  addModelCommands(app, action);
  addDemoCommand(app, action);
#ifdef KINETRACK_CLI_DEMO_ONLY
  app.footer(app.get_footer() +
             "\nThis is the demo build (scripts/demo.sh: KINETRACK_CLI_COMMANDS=demo), with the model and demo "
             "commands only; scripts/setup.sh builds every command.");
#else
  addTrackCommand(app, action);
  addRetargetCommand(app, action);
  addExperimentCommand(app, action);
  addDynamicsCommand(app, action);
  addSimulateCommand(app, action);
  addMarkersCommand(app, action);
  addHandCommand(app, action);
  addViewCommand(app, action);
  addServeCommands(app, action);
  addBatchCommand(app, action);
  addMusclesCommand(app, action);
  addC3dCommand(app, action);
  addEmgCommand(app, action);
  addGaitCommand(app, action);
  addScaleCommand(app, action);
  addImuCommand(app, action);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version: CLI11 prints them and reports success.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    if (const std::string unknown = unknownCommandMessage(app); !unknown.empty())
      return reportError("error: ", unknown.c_str(), kExitBadInput);
    std::cerr << "kinetrack: error: ";
    app.exit(e);  // prints the message and "Run with --help for more information." to stderr
    return kExitBadInput;
  }

  if (!action) return reportError("error: ", "no command given (see kinetrack --help)", kExitBadInput);
  try {
    return action();
  } catch (const kinetrack::ParseError& e) {
    return reportError("error: ", e.what(), kExitBadInput);
  } catch (const kinetrack::InvalidArgument& e) {
    return reportError("error: ", e.what(), kExitBadInput);
  } catch (const UsageError& e) {
    return reportError("error: ", e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return reportError("internal error: ", e.what(), kExitFailure);
  } catch (...) {
    return reportError("internal error: ", "unknown exception", kExitFailure);
  }
}
