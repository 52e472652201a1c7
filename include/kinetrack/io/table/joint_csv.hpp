#pragma once
// Joint trajectory CSV, the output of `kinetrack track`: one row per frame with the time, the
// base pose and every joint coordinate of a model, and a gap flag (docs/formats.md):
//
//   time,base_x,base_y,base_z,base_qw,base_qx,base_qy,base_qz,<joint 0>,…,<joint n−1>,gap
//
// Units: s, m, and rad or m per joint; (base_qw, base_qx, base_qy, base_qz) is the unit
// quaternion (w, x, y, z) of R_WB with w ≥ 0. gap is 1 when the solver held its state because
// the input frame had missing or NaN data. The file never contains NaN.
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// A joint trajectory CSV in memory.
struct JointTrajectory {
  std::string source;                    ///< file it was read from
  std::vector<std::string> joint_names;  ///< joint columns, in file order
  std::vector<double> times;             ///< s, strictly increasing, one per frame
  std::vector<Transform> base;           ///< base pose (R_WB, p_WB in m) per frame
  Eigen::MatrixXd joints;                ///< (frames × joint_names.size()), rad or m
  std::vector<std::uint8_t> gap;         ///< per frame: 1 when the solver held its state

  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numJoints() const { return static_cast<int>(joint_names.size()); }
};

/// Reads a joint trajectory CSV (format above; blank lines and lines starting with '#' are
/// skipped, CRLF accepted, spaces around fields ignored). Throws ParseError(file, line,
/// "column 'name': …") for a missing file, a header that does not have the fixed columns above
/// or repeats a joint name, a row with the wrong number of columns, an empty, non-numeric, NaN
/// or infinite value, a time that does not increase, a base quaternion whose norm differs from
/// 1 by more than 1e-6 (it is normalised otherwise), or a gap value other than 0 or 1.
JointTrajectory readJointCsv(const std::string& path);
/// Same as readJointCsv for text in memory; `source` is used in error messages.
JointTrajectory parseJointCsv(const std::string& text, const std::string& source);

/// The frames of `trajectory` as configurations of `model`, matching columns to the model's
/// joints by name (any column order). Throws InvalidArgument listing the model joints missing
/// from the file and the file columns unknown to the model, when there are any.
std::vector<Configuration> toConfigurations(const JointTrajectory& trajectory, const Model& model);

/// Streaming writer of a joint trajectory CSV for one model. Rows go to "<path>.part", renamed to
/// `path` by commit(); destroying the writer without commit() removes the temporary file, so an
/// interrupted run never leaves a file that looks complete. Numbers are written with
/// std::to_chars (shortest representation that reads back to the same double).
///
///   io::JointCsvWriter out(model, "walk_q.csv");
///   for (…) out.write(t, q, gap);
///   out.commit();
class JointCsvWriter {
 public:
  /// Opens "<path>.part" and writes the header (joint columns named Model::jointName, in model
  /// order). Throws InvalidArgument when a joint name is empty, contains ',', '"' or a line break,
  /// or starts or ends with a space; ParseError(path, 0, …) when the file cannot be opened.
  JointCsvWriter(const Model& model, std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~JointCsvWriter();
  JointCsvWriter(const JointCsvWriter&) = delete;
  JointCsvWriter& operator=(const JointCsvWriter&) = delete;

  /// Appends one row. Does not allocate. Throws InvalidArgument when q has the wrong number of
  /// joints, time or any coordinate of q is NaN or infinite, time does not increase, or after
  /// commit(); ParseError(path, 0, …) on a write error.
  void write(double time, const Configuration& q, bool gap);
  /// Flushes, closes and renames "<path>.part" to `path` (replacing it). Throws ParseError on a
  /// write, close or rename error (the temporary file is then removed) and InvalidArgument when
  /// called twice.
  void commit();

  [[nodiscard]] const std::string& path() const { return path_; }
  /// Rows written so far.
  [[nodiscard]] long rows() const { return rows_; }

 private:
  void flushBuffer();

  std::string path_;
  AtomicFile file_;           // "<path>.part" until commit()
  std::vector<char> buffer_;  // rows waiting for fwrite
  std::size_t used_ = 0;      // bytes of buffer_ in use
  std::size_t max_row_ = 0;   // upper bound of one row's length
  int num_joints_ = 0;
  double last_time_ = 0.0;
  long rows_ = 0;
};

}  // namespace kinetrack::io
