#include "kinetrack/io/table/force_csv.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::io {

namespace {

void append(std::string& out, double v) {
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace

void writeForceCsv(const std::string& path, const Model& model, const std::vector<double>& times,
                   const std::vector<VectorXd>& forces, const std::vector<std::uint8_t>& valid) {
  if (forces.size() != times.size() || valid.size() != times.size())
    throw InvalidArgument("writeForceCsv: " + std::to_string(times.size()) + " times, " +
                          std::to_string(forces.size()) + " rows and " + std::to_string(valid.size()) + " valid flags");
  std::string text = "time";
  if (model.nvBase() == 6) text += ",base_fx,base_fy,base_fz,base_mx,base_my,base_mz";
  for (const std::string& name : model.jointNames()) text += "," + name;
  text += ",valid\n";
  for (std::size_t k = 0; k < times.size(); ++k) {
    if (forces[k].size() != model.nv())
      throw InvalidArgument("writeForceCsv: row " + std::to_string(k) + " has " + std::to_string(forces[k].size()) +
                            " values, the model " + std::to_string(model.nv()));
    if (valid[k] && (!forces[k].allFinite() || !std::isfinite(times[k])))
      throw InvalidArgument("writeForceCsv: row " + std::to_string(k) + " (time " + std::to_string(times[k]) +
                            " s) has a NaN or infinite value; the file never holds NaN");
    append(text, times[k]);
    for (Eigen::Index i = 0; i < forces[k].size(); ++i) {
      text += ',';
      append(text, valid[k] ? forces[k][i] : 0.0);
    }
    text += valid[k] ? ",1\n" : ",0\n";
  }
  writeFileAtomically(path, text);
}

}  // namespace kinetrack::io
