// Generalised-force CSV writer: header and one row per frame, invalid rows written as zeros, and
// never a NaN: a non-finite value in a valid row is an InvalidArgument and no file is left.
#include "kinetrack/io/table/force_csv.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

TEST(ForceCsv, RowsAndNeverNaN) {
  const Model m = makeHuman48();
  const std::string path =
      (fs::temp_directory_path() / ("kinetrack_" + std::to_string(::getpid()) + "_tau.csv")).string();
  std::vector<VectorXd> tau(3, VectorXd::Constant(m.nv(), 1.5));
  tau[1].setConstant(std::numeric_limits<double>::quiet_NaN());  // an invalid row: written as zeros
  writeForceCsv(path, m, {0.0, 0.1, 0.2}, tau, {1, 0, 1});
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(path);
  EXPECT_EQ(text.str().find("nan"), std::string::npos);
  EXPECT_NE(text.str().find("\n0.1,0,0,"), std::string::npos);
  tau[2][7] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(writeForceCsv(path, m, {0.0, 0.1, 0.2}, tau, {1, 0, 1}), InvalidArgument);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".part"));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
