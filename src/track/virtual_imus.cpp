#include "kinetrack/track/virtual_imus.hpp"

#include <cmath>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::track {

io::OrientationTable virtualImuTable(const Model& model, const std::vector<std::string>& frames,
                                     const std::vector<double>& times, const std::vector<Configuration>& configurations,
                                     const VirtualImuOptions& o) {
  if (times.size() != configurations.size())
    throw InvalidArgument("virtual IMUs: " + std::to_string(times.size()) + " times for " +
                          std::to_string(configurations.size()) + " configurations");
  for (std::size_t k = 1; k < times.size(); ++k)
    if (!(times[k] > times[k - 1])) throw InvalidArgument("virtual IMUs: times do not increase");
  std::vector<FrameId> ids;
  for (const std::string& f : frames) {
    if (!model.findFrame(f))
      throw InvalidArgument("virtual IMUs: model '" + model.name() + "' has no frame '" + f + "'");
    ids.push_back(model.frameId(f));
  }
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> rate(0.5, 1.5);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> rates;  // rad/s about the vertical
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const double r = rate(rng) * o.drift_deg_per_min * M_PI / 180.0 / 60.0;
    rates.push_back(sign(rng) ? r : -r);
  }
  std::normal_distribution<double> noise(0.0, o.noise_deg * M_PI / 180.0);
  io::OrientationTable t;
  t.source = "virtual IMUs on " + model.name();
  t.names = frames;
  t.times = times;
  t.data_rate = times.size() > 1 ? (times.size() - 1) / (times.back() - times.front()) : 0.0;
  t.orientations.reserve(times.size() * frames.size());
  Data d(model);
  const Vector3d up = model.up();
  for (std::size_t k = 0; k < times.size(); ++k) {
    framesForwardKinematics(model, d, configurations[k]);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      Matrix3d R = d.frame[static_cast<std::size_t>(ids[i].value)].R;
      if (o.drift_deg_per_min != 0.0)
        R = Eigen::AngleAxisd(rates[i] * (times[k] - times.front()), up).toRotationMatrix() * R;
      if (o.noise_deg > 0.0) R = so3::exp(randomVector3(noise, rng)) * R;
      t.orientations.emplace_back(o.world * R);
      t.orientations.back().normalize();
    }
  }
  return t;
}

std::vector<Configuration> openSimConfigurations(const io::OpenSimModel& model, const io::MotTable& motion) {
  const double to_rad = motion.in_degrees ? M_PI / 180.0 : 1.0;
  std::vector<int> column;
  int found = 0;
  for (const io::OpenSimCoordinate& c : model.coordinates) {
    int col = -1;
    for (std::size_t j = 0; j < motion.columns.size(); ++j)
      if (motion.columns[j] == c.name) col = static_cast<int>(j);
    column.push_back(col);
    found += col >= 0 ? 1 : 0;
  }
  if (found == 0) throw InvalidArgument("no column of the motion is a coordinate of " + model.source);
  std::vector<Configuration> out;
  out.reserve(motion.times.size());
  const Configuration base = model.defaultConfiguration();
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(motion.times.size()); ++k) {
    Configuration q = base;
    for (std::size_t c = 0; c < model.coordinates.size(); ++c) {
      if (column[c] < 0) continue;
      const io::OpenSimCoordinate& co = model.coordinates[c];
      q.joints[co.joint.value] = motion.values(k, column[c]) * (co.rotational ? to_rad : 1.0);
    }
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace kinetrack::track
