#include "kinetrack/io/model/model_source.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::io {

LoadedModel loadModel(const ModelSpec& spec) {
  const auto& builtins = builtinModelNames();
  const bool builtin = std::find(builtins.begin(), builtins.end(), spec.model) != builtins.end();
  const BaseType base = spec.fixed_base ? BaseType::Fixed : BaseType::Floating;

  if (builtin) {
    const double h = spec.height.value_or(1.75);
    HumanModelOptions options;
    options.dimensions = HumanDimensions::fromHeight(h);  // throws InvalidArgument out of [0.5, 2.5] m
    options.base = base;
    options.mass = spec.mass.value_or(kDefaultBodyMass);  // throws InvalidArgument out of [20, 300] kg
    Model m = spec.model == "human66" ? makeHuman66(options) : makeHuman48(options);
    return {std::move(m), "built-in", h, options.mass, {}};
  }

  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(spec.model, ec);
  // A name that is no file and does not look like a path is a mistyped built-in name.
  const bool looks_like_path = spec.model.find_first_of("/.") != std::string::npos;
  if (!fs::exists(status) && !looks_like_path) {
    std::string valid;
    for (const auto& n : builtins) valid += (valid.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown model '" + spec.model + "': not a built-in model (" + valid + ") and no such file");
  }
  if (fs::is_directory(status)) throw ParseError(spec.model, 0, "is a directory, not a URDF file");
  if (spec.height && fs::exists(status))
    throw InvalidArgument("height applies only to built-in models, not to the URDF file '" + spec.model + "'");
  if (spec.mass && fs::exists(status))
    throw InvalidArgument("mass applies only to built-in models, not to the URDF file '" + spec.model + "'");

  LoadedModel loaded{Model(), spec.model, std::nullopt, std::nullopt, {}};
  // OpenSim models (.osim): always a fixed base at ground; what the reader ignored is a warning.
  if (spec.model.ends_with(".osim")) {
    OpenSimModel osim = readOpenSimModel(spec.model);
    loaded.model = *osim.model;
    loaded.warnings = std::move(osim.notices);
    return loaded;
  }
  // MJCF: ".mjcf", or any other name but ".urdf" whose first element is <mujoco> (".xml" is both
  // MuJoCo's and some URDFs' extension). The base comes from the file unless fixed_base.
  bool mjcf = spec.model.ends_with(".mjcf");
  if (!mjcf && !spec.model.ends_with(".urdf") && fs::is_regular_file(status)) {
    try {
      mjcf = looksLikeMjcf(detail::readTextFile(spec.model));
    } catch (const ParseError&) {
      // unreadable: loadUrdf reports it
    }
  }
  if (mjcf) {
    MjcfOptions options;
    if (spec.fixed_base) options.base = BaseType::Fixed;
    loaded.model = loadMjcf(spec.model, options, &loaded.warnings);
    return loaded;
  }
  UrdfOptions options;
  options.base = base;
  loaded.model = loadUrdf(spec.model, options, &loaded.warnings);
  return loaded;
}

}  // namespace kinetrack::io
