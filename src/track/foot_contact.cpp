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

FootContacts detectFootContacts(const io::MotionClip& clip, const std::vector<FootPoints>& feet,
                                const FootContactOptions& o) {
  checkFootContactOptions(o);
  const int n = clip.numFrames();
  FootContacts out;
  out.frames = n;
  out.contact.assign(static_cast<std::size_t>(n) * feet.size(), 0);
  for (const FootPoints& foot : feet) {
    out.feet.push_back(foot.name);
    if (foot.segments.empty()) throw InvalidArgument("foot contacts: foot '" + foot.name + "' has no segment");
    for (const int s : foot.segments)
      if (s < 0 || s >= clip.numSegments())
        throw InvalidArgument("foot contacts: foot '" + foot.name + "': segment index " + std::to_string(s) +
                              " out of range");
  }
  for (std::size_t k = 0; k < feet.size(); ++k) {
    const FootPoints& foot = feet[k];
    // Each point's own ground level, then a hysteresis state per point.
    std::vector<double> level(foot.segments.size());
    for (std::size_t i = 0; i < foot.segments.size(); ++i) {
      std::vector<double> z;
      z.reserve(static_cast<std::size_t>(n));
      for (int f = 0; f < n; ++f)
        if (clip.isValid(f, foot.segments[i])) z.push_back(clip.pose(f, foot.segments[i]).p.z());
      level[i] = quantile(std::move(z), o.ground_percentile);
    }
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
        const double h = clip.pose(f, s).p.z() - level[i];
        const double v = horizontalSpeed(clip, f, s);
        if (state[i] != 0)
          state[i] = (h <= o.height_off && v <= o.speed_off) ? 1 : 0;
        else
          state[i] = (h <= o.height_on && v <= o.speed_on) ? 1 : 0;
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
