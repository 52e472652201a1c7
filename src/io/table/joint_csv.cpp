// Joint trajectory CSV: a streaming writer that formats rows with std::to_chars into a buffer
// sized at construction (no allocation per row), and a reader with file:line:column errors.
#include "kinetrack/io/table/joint_csv.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "text_util.hpp"

namespace kinetrack::io {

using detail::splitFields;

namespace {

// The fixed columns before the joints; "gap" follows them.
constexpr const char* kBaseColumns[] = {"time",    "base_x",  "base_y",  "base_z",
                                        "base_qw", "base_qx", "base_qy", "base_qz"};
constexpr int kNumBase = 8;

// Longest std::to_chars output for a double ("-2.2250738585072014e-308") plus the separator.
constexpr std::size_t kMaxField = 25;

void checkColumnName(const std::string& name) {
  const bool bad =
      name.empty() || name.find_first_of(",\"\r\n") != std::string::npos || name.front() == ' ' || name.back() == ' ';
  if (bad) throw InvalidArgument("JointCsvWriter: joint name '" + name + "' cannot be a CSV column name");
}

std::string formatNumber(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writer

JointCsvWriter::JointCsvWriter(const Model& model, std::string path)
    : path_(std::move(path)), num_joints_(model.numJoints()) {
  std::string header;
  for (const char* c : kBaseColumns) header.append(c).push_back(',');
  for (const std::string& n : model.jointNames()) {
    checkColumnName(n);
    header.append(n).push_back(',');
  }
  header.append("gap\n");
  max_row_ = static_cast<std::size_t>(kNumBase + num_joints_) * kMaxField + 4;
  buffer_.resize(std::max<std::size_t>(std::size_t{1} << 20, 4 * max_row_));
  file_ = AtomicFile(path_);
  file_.write(header);  // on failure the destructor of file_ removes the temporary file
}

JointCsvWriter::~JointCsvWriter() = default;  // file_ removes the temporary file unless committed

void JointCsvWriter::flushBuffer() {
  if (used_ == 0) return;
  file_.write(std::string_view(buffer_.data(), used_));
  used_ = 0;
}

void JointCsvWriter::write(double time, const Configuration& q, bool gap) {
  if (!file_.isOpen()) throw InvalidArgument("JointCsvWriter::write: '" + path_ + "' is already committed or failed");
  if (q.joints.size() != num_joints_)
    throw InvalidArgument("JointCsvWriter::write: expected " + std::to_string(num_joints_) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
  if (!std::isfinite(time)) throw InvalidArgument("JointCsvWriter::write: time is not finite");
  if (rows_ > 0 && !(time > last_time_))
    throw InvalidArgument("JointCsvWriter::write: time " + formatNumber(time) + " does not increase (previous " +
                          formatNumber(last_time_) + ")");
  if (!q.base_position.allFinite() || !q.base_rotation.allFinite() || !q.joints.allFinite())
    throw InvalidArgument("JointCsvWriter::write: configuration at time " + formatNumber(time) +
                          " has a NaN or infinite coordinate (the joint CSV never holds NaN)");
  const Eigen::Vector4d quat = so3::toQuaternionWxyz(q.base_rotation);  // w ≥ 0
  if (used_ + max_row_ > buffer_.size()) flushBuffer();
  char* p = buffer_.data() + used_;
  char* const end = buffer_.data() + buffer_.size();
  const auto put = [&](double v) {
    p = std::to_chars(p, end, v).ptr;
    *p++ = ',';
  };
  put(time);
  for (int k = 0; k < 3; ++k) put(q.base_position[k]);
  for (int k = 0; k < 4; ++k) put(quat[k]);
  for (Eigen::Index j = 0; j < q.joints.size(); ++j) put(q.joints[j]);
  *p++ = gap ? '1' : '0';
  *p++ = '\n';
  used_ = static_cast<std::size_t>(p - buffer_.data());
  last_time_ = time;
  ++rows_;
}

void JointCsvWriter::commit() {
  if (!file_.isOpen()) throw InvalidArgument("JointCsvWriter::commit: '" + path_ + "' is already committed or failed");
  try {
    flushBuffer();
  } catch (...) {
    file_.discard();
    throw;
  }
  file_.commit();  // removes the temporary file when it fails
}

// ---------------------------------------------------------------------------------------------
// Reader

JointTrajectory parseJointCsv(const std::string& text, const std::string& source) {
  JointTrajectory t;
  t.source = source;
  std::vector<std::string> columns;  // all columns, for messages
  std::vector<std::string_view> fields;
  std::vector<double> values;  // joint values, row-major
  std::size_t pos = 0;
  int line_number = 0;
  bool have_header = false;
  auto fail = [&](const std::string& msg) { return ParseError(source, line_number, msg); };
  auto columnError = [&](std::size_t c, const std::string& msg) { return fail("column '" + columns[c] + "': " + msg); };
  std::string_view line;
  while (detail::nextDataLine(text, pos, line_number, line)) {
    splitFields(line, fields);
    if (!have_header) {
      have_header = true;
      const int n = static_cast<int>(fields.size());
      for (int c = 0; c < kNumBase && c < n; ++c)
        if (fields[static_cast<std::size_t>(c)] != kBaseColumns[c])
          throw fail("header: column " + std::to_string(c + 1) + " must be '" + kBaseColumns[c] + "', found '" +
                     std::string(fields[static_cast<std::size_t>(c)]) + "'");
      if (n < kNumBase + 1 || fields.back() != "gap")
        throw fail("header: expected time,base_x,base_y,base_z,base_qw,base_qx,base_qy,base_qz,<joints…>,gap");
      std::unordered_map<std::string_view, int> seen;
      for (int c = kNumBase; c < n - 1; ++c) {
        const std::string_view name = fields[static_cast<std::size_t>(c)];
        if (name.empty()) throw fail("header: column " + std::to_string(c + 1) + " has no name");
        if (!seen.emplace(name, c).second) throw fail("header: duplicate joint column '" + std::string(name) + "'");
        t.joint_names.emplace_back(name);
      }
      for (const std::string_view f : fields) columns.emplace_back(f);
      continue;
    }
    if (fields.size() != columns.size())
      throw fail("expected " + std::to_string(columns.size()) + " columns, got " + std::to_string(fields.size()));
    double row[kNumBase];
    const auto number = [&](std::size_t c) {
      const std::string_view f = fields[c];
      double v = 0.0;
      if (f.empty()) throw columnError(c, "empty field");
      if (!detail::parseNumber(f, v)) throw columnError(c, "'" + std::string(f) + "' is not a number");
      if (!std::isfinite(v)) throw columnError(c, "'" + std::string(f) + "' is not finite (NaN is not allowed)");
      return v;
    };
    for (int c = 0; c < kNumBase; ++c) row[c] = number(static_cast<std::size_t>(c));
    if (!t.times.empty() && !(row[0] > t.times.back()))
      throw columnError(0, formatNumber(row[0]) + " does not increase (previous " + formatNumber(t.times.back()) + ")");
    const Eigen::Vector4d quat(row[4], row[5], row[6], row[7]);
    if (std::abs(quat.norm() - 1.0) > 1e-6)
      throw columnError(4, "quaternion (base_qw, base_qx, base_qy, base_qz) has norm " + formatNumber(quat.norm()) +
                               ", expected 1 within 1e-6");
    for (std::size_t c = kNumBase; c + 1 < fields.size(); ++c) values.push_back(number(c));
    const std::string_view g = fields.back();
    if (g != "0" && g != "1") throw columnError(fields.size() - 1, "expected 0 or 1, got '" + std::string(g) + "'");
    t.times.push_back(row[0]);
    t.base.push_back({so3::fromQuaternionWxyz(quat), Vector3d(row[1], row[2], row[3])});
    t.gap.push_back(g == "1" ? 1 : 0);
  }
  if (!have_header) throw ParseError(source, line_number, "empty file: no header line");
  t.joints = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      values.data(), static_cast<Eigen::Index>(t.times.size()), static_cast<Eigen::Index>(t.joint_names.size()));
  return t;
}

JointTrajectory readJointCsv(const std::string& path) { return parseJointCsv(detail::readTextFile(path), path); }

std::vector<Configuration> toConfigurations(const JointTrajectory& trajectory, const Model& model) {
  std::unordered_map<std::string_view, int> column;
  for (int c = 0; c < trajectory.numJoints(); ++c)
    column.emplace(trajectory.joint_names[static_cast<std::size_t>(c)], c);
  std::vector<int> source_column(static_cast<std::size_t>(model.numJoints()), -1);
  std::string missing, unknown;
  for (int j = 0; j < model.numJoints(); ++j) {
    const auto it = column.find(model.jointName(JointId(j)));
    if (it == column.end())
      missing += (missing.empty() ? "" : ", ") + model.jointName(JointId(j));
    else
      source_column[static_cast<std::size_t>(j)] = it->second;
  }
  for (const std::string& n : trajectory.joint_names)
    if (!model.findJoint(n)) unknown += (unknown.empty() ? "" : ", ") + n;
  if (!missing.empty() || !unknown.empty())
    throw InvalidArgument("joint trajectory '" + trajectory.source + "' does not match model '" + model.name() +
                          "': model joints missing from the file: [" + missing +
                          "]; file columns unknown to the model: [" + unknown + "]");
  if (trajectory.joints.rows() != trajectory.numFrames() || trajectory.joints.cols() != trajectory.numJoints() ||
      trajectory.base.size() != trajectory.times.size())
    throw InvalidArgument("toConfigurations: joints must be (frames × joint_names) and base one pose per frame");
  std::vector<Configuration> out(trajectory.times.size(), Configuration(model));
  for (int f = 0; f < trajectory.numFrames(); ++f) {
    Configuration& q = out[static_cast<std::size_t>(f)];
    q.base_position = trajectory.base[static_cast<std::size_t>(f)].p;
    q.base_rotation = trajectory.base[static_cast<std::size_t>(f)].R;
    for (int j = 0; j < model.numJoints(); ++j)
      q.joints[j] = trajectory.joints(f, source_column[static_cast<std::size_t>(j)]);
  }
  return out;
}

}  // namespace kinetrack::io
