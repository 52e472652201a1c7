#include "kinetrack/track/foot_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::track {
namespace {

void requirePositive(double v, const char* field) {
  if (!(std::isfinite(v) && v > 0.0))
    throw InvalidArgument(std::string("foot contacts: ") + field + " must be finite and > 0, got " + std::to_string(v));
}

/// The p-quantile of the valid heights (nearest rank); NaN when none.
double quantile(std::vector<double> v, double p) {
  if (v.empty()) return std::nan("");
  const auto k = static_cast<std::size_t>(std::floor(p * static_cast<double>(v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

/// Horizontal speed of segment s at frame f (central difference over the valid neighbours).
double horizontalSpeed(const io::MotionClip& clip, int f, int s) {
  const int n = clip.numFrames();
  int a = f, b = f;
  if (f > 0 && clip.isValid(f - 1, s)) a = f - 1;
  if (f + 1 < n && clip.isValid(f + 1, s)) b = f + 1;
  if (a == b) return 0.0;
  const double dt = clip.times[static_cast<std::size_t>(b)] - clip.times[static_cast<std::size_t>(a)];
  const Vector3d d = clip.pose(b, s).p - clip.pose(a, s).p;
  return std::hypot(d.x(), d.y()) / dt;
}

/// One point's hysteresis: in contact → stays while below height_off and slower than speed_off;
/// out → enters when below height_on and slower than speed_on.
bool pointInContact(bool was, double height, double speed, const FootContactOptions& o) {
  return was ? (height <= o.height_off && speed <= o.speed_off) : (height <= o.height_on && speed <= o.speed_on);
}

void checkFeet(const std::vector<FootPoints>& feet, int num_segments) {
  for (const FootPoints& foot : feet) {
    if (foot.segments.empty()) throw InvalidArgument("foot contacts: foot '" + foot.name + "' has no segment");
    for (const int s : foot.segments)
      if (s < 0 || (num_segments >= 0 && s >= num_segments))
        throw InvalidArgument("foot contacts: foot '" + foot.name + "': segment index " + std::to_string(s) +
                              " out of range");
  }
}

}  // namespace

int FootContacts::count(int foot) const {
  int c = 0;
  for (int f = 0; f < frames; ++f) c += inContact(f, foot) ? 1 : 0;
  return c;
}

void checkFootContactOptions(const FootContactOptions& o) {
  requirePositive(o.height_on, "height_on");
  requirePositive(o.height_off, "height_off");
  requirePositive(o.speed_on, "speed_on");
  requirePositive(o.speed_off, "speed_off");
  if (o.height_off < o.height_on) throw InvalidArgument("foot contacts: height_off must be ≥ height_on");
  if (o.speed_off < o.speed_on) throw InvalidArgument("foot contacts: speed_off must be ≥ speed_on");
  if (!(o.ground_percentile > 0.0 && o.ground_percentile < 0.5))
    throw InvalidArgument("foot contacts: ground_percentile must be in (0, 0.5)");
  if (!(std::isfinite(o.min_duration) && o.min_duration >= 0.0))
    throw InvalidArgument("foot contacts: min_duration must be finite and ≥ 0");
}

std::vector<std::vector<double>> pointGroundLevels(const io::MotionClip& clip, const std::vector<FootPoints>& feet,
                                                   double percentile) {
  checkFeet(feet, clip.numSegments());
  std::vector<std::vector<double>> levels;
  for (const FootPoints& foot : feet) {
    std::vector<double>& level = levels.emplace_back();
    for (const int s : foot.segments) {
      std::vector<double> z;
      z.reserve(static_cast<std::size_t>(clip.numFrames()));
      for (int f = 0; f < clip.numFrames(); ++f)
        if (clip.isValid(f, s)) z.push_back(clip.pose(f, s).p.z());
      level.push_back(quantile(std::move(z), percentile));
    }
  }
  return levels;
}

FootContacts detectFootContacts(const io::MotionClip& clip, const std::vector<FootPoints>& feet,
                                const FootContactOptions& o) {
  checkFootContactOptions(o);
  const int n = clip.numFrames();
  FootContacts out;
  out.point_levels = pointGroundLevels(clip, feet, o.ground_percentile);
  const std::vector<std::vector<double>>& levels = out.point_levels;
  out.frames = n;
  out.contact.assign(static_cast<std::size_t>(n) * feet.size(), 0);
  for (const FootPoints& foot : feet) out.feet.push_back(foot.name);
  for (std::size_t k = 0; k < feet.size(); ++k) {
    const FootPoints& foot = feet[k];
    const std::vector<double>& level = levels[k];
    double lowest = std::numeric_limits<double>::infinity();
    for (const double l : level)
      if (std::isfinite(l)) lowest = std::min(lowest, l);
    out.ground_level.push_back(std::isfinite(lowest) ? lowest : std::nan(""));
    std::vector<std::uint8_t> state(foot.segments.size(), 0);
    for (int f = 0; f < n; ++f) {
      bool any = false;
      for (std::size_t i = 0; i < foot.segments.size(); ++i) {
        const int s = foot.segments[i];
        if (!clip.isValid(f, s)) {
          state[i] = 0;
          continue;
        }
        state[i] = pointInContact(state[i] != 0, clip.pose(f, s).p.z() - level[i], horizontalSpeed(clip, f, s), o);
        any = any || state[i] != 0;
      }
      out.contact[static_cast<std::size_t>(f) * feet.size() + k] = any ? 1 : 0;
    }
    // Drop contacts shorter than min_duration (a heel brushing the floor mid-swing).
    for (int f = 0; f < n;) {
      if (!out.inContact(f, static_cast<int>(k))) {
        ++f;
        continue;
      }
      int e = f;
      while (e + 1 < n && out.inContact(e + 1, static_cast<int>(k))) ++e;
      const double span = clip.times[static_cast<std::size_t>(e)] - clip.times[static_cast<std::size_t>(f)];
      if (span < o.min_duration && !(f == 0 && e == n - 1))
        for (int g = f; g <= e; ++g) out.contact[static_cast<std::size_t>(g) * feet.size() + k] = 0;
      f = e + 1;
    }
  }
  return out;
}

FootContactTracker::FootContactTracker(std::vector<FootPoints> feet, std::vector<std::vector<double>> levels,
                                       const FootContactOptions& options)
    : feet_(std::move(feet)), level_(std::move(levels)), options_(options) {
  checkFootContactOptions(options_);
  checkFeet(feet_, -1);
  if (level_.size() != feet_.size())
    throw InvalidArgument("foot contacts: " + std::to_string(level_.size()) + " ground levels for " +
                          std::to_string(feet_.size()) + " feet");
  for (std::size_t k = 0; k < feet_.size(); ++k) {
    if (level_[k].size() != feet_[k].segments.size())
      throw InvalidArgument("foot contacts: foot '" + feet_[k].name + "' has " +
                            std::to_string(feet_[k].segments.size()) + " points and " +
                            std::to_string(level_[k].size()) + " ground levels");
    last_.emplace_back(feet_[k].segments.size(), Vector3d::Zero());
    last_t_.emplace_back(feet_[k].segments.size(), std::nan(""));
    state_.emplace_back(feet_[k].segments.size(), 0);
  }
}

void FootContactTracker::update(double t, const io::MotionClip& clip, int f, std::span<std::uint8_t> contact) {
  for (std::size_t k = 0; k < feet_.size(); ++k) {
    bool any = false;
    for (std::size_t i = 0; i < feet_[k].segments.size(); ++i) {
      const int s = feet_[k].segments[i];
      if (s >= clip.numSegments() || !clip.isValid(f, s)) {
        state_[k][i] = 0;
        continue;
      }
      const Vector3d& x = clip.pose(f, s).p;
      double speed = 0.0;
      if (std::isfinite(last_t_[k][i]) && t > last_t_[k][i])
        speed = std::hypot(x.x() - last_[k][i].x(), x.y() - last_[k][i].y()) / (t - last_t_[k][i]);
      last_[k][i] = x;
      last_t_[k][i] = t;
      double& level = level_[k][i];
      if (!std::isfinite(level) || x.z() < level) level = x.z();
      state_[k][i] = pointInContact(state_[k][i] != 0, x.z() - level, speed, options_) ? 1 : 0;
      any = any || state_[k][i] != 0;
    }
    contact[k] = any ? 1 : 0;
  }
}

std::vector<FootPoints> canonicalFeet(const std::vector<std::string>& role_of, const std::vector<std::string>& only) {
  std::vector<FootPoints> feet;
  for (const char* side : {"Left", "Right"}) {
    FootPoints foot;
    foot.name = std::string(side) + "Foot";
    if (!only.empty() && std::find(only.begin(), only.end(), foot.name) == only.end()) continue;
    int toe = -1;
    for (std::size_t s = 0; s < role_of.size(); ++s) {
      if (role_of[s] == foot.name) foot.segments.insert(foot.segments.begin(), static_cast<int>(s));
      if (role_of[s] == std::string(side) + "Toe") toe = static_cast<int>(s);
    }
    if (foot.segments.empty()) continue;
    if (toe >= 0) foot.segments.push_back(toe);
    feet.push_back(std::move(foot));
  }
  return feet;
}

}  // namespace kinetrack::track
