// FABRIK solver: backward (inward) and forward (outward) reaching over a joint tree, with the
// constraints applied while the forward pass places each bone (FAB Algorithm 1; sub-bases at the
// centroid of their children's proposals, Aristidou & Lasenby 2011). See docs/fabrik.md.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/fabrik/fabrik.hpp"

namespace kinetrack::fabrik {
namespace {

// Nearest value of the interval [lo, hi] to the angle θ, angles compared modulo 2π.
double clampAngle(double theta, double lo, double hi) {
  if (theta >= lo && theta <= hi) return theta;
  auto dist = [](double a, double b) {
    double d = std::fmod(std::abs(a - b), 2.0 * kPi);
    return d > kPi ? 2.0 * kPi - d : d;
  };
  return dist(theta, lo) <= dist(theta, hi) ? lo : hi;
}

// The rotation taking unit vector a onto unit vector b by the shortest arc.
Matrix3d minimalRotation(const Vector3d& a, const Vector3d& b) {
  return Eigen::Quaterniond::FromTwoVectors(a, b).toRotationMatrix();
}

// The rotation by θ about the unit axis h, from cos θ and sin θ: c I + s [h]× + (1 − c) h hᵀ.
Matrix3d hingeRotation(const Vector3d& h, double c, double s) {
  Matrix3d R = (1.0 - c) * h * h.transpose();
  R.diagonal().array() += c;
  R(0, 1) -= s * h.z(), R(1, 0) += s * h.z();
  R(0, 2) += s * h.y(), R(2, 0) -= s * h.y();
  R(1, 2) -= s * h.x(), R(2, 1) += s * h.x();
  return R;
}

// v rotated by the shortest-arc rotation taking unit a onto unit b (Rodrigues with k = a × b,
// R = I + [k]x + [k]x² / (1 + a·b)); no quaternion, two cross products.
Vector3d rotateMinimal(const Vector3d& a, const Vector3d& b, const Vector3d& v) {
  const double c = a.dot(b);
  if (c < -1.0 + 1e-9) return Eigen::Quaterniond::FromTwoVectors(a, b) * v;
  const Vector3d k = a.cross(b);
  const Vector3d kv = k.cross(v);
  return v + kv + k.cross(kv) / (1.0 + c);
}

// The frame with z = unit d whose x is x projected onto the plane ⟂ d.
Matrix3d frameFromX(const Vector3d& x, const Vector3d& d) {
  Vector3d xp = x - x.dot(d) * d;
  const double n2 = xp.squaredNorm();
  xp = n2 < 1e-18 ? Vector3d(d.unitOrthogonal()) : Vector3d(xp / std::sqrt(n2));
  Matrix3d R;
  R.col(0) = xp;
  R.col(1) = d.cross(xp);
  R.col(2) = d;
  return R;
}

// Re-orthonormalises F so that its z is exactly the unit vector d (x, y follow F's x; F's y × d
// when F's x is along d).
Matrix3d alignedFrame(const Matrix3d& F, const Vector3d& d) {
  const Vector3d x = F.col(0) - F.col(0).dot(d) * d;
  return frameFromX(x.norm() < 1e-9 ? Vector3d(F.col(1).cross(d)) : x, d);
}

}  // namespace

Solver::Solver(Skeleton skeleton) : skeleton_(std::move(skeleton)) {
  const auto n = static_cast<std::size_t>(skeleton_.size());
  frame_.assign(n, Matrix3d::Identity());
  rel_.assign(n, Matrix3d::Identity());
  angle_.assign(n, 0.0);
  target_.assign(n, Vector3d::Zero());
  has_target_.assign(n, 0);
  active_.assign(n, 0);
  saved_active_.assign(n, 0);
  sum_.assign(n, Vector3d::Zero());
  count_.assign(n, 0);
  reach_.assign(n, 0.0);
  coupled_child_.assign(n, -1);
  best_p_.resize(3, static_cast<Eigen::Index>(n));
  best_frame_ = frame_;
  best_angle_ = angle_;
  hinge_bounds_.assign(n, {1.0, 0.0, 1.0, 0.0});
  twist_.assign(n, TwistLimit{});
  plain_offset_.assign(n, 0);
  pair_.assign(n, CoupledPair{});
  for (int j = 1; j < skeleton_.size(); ++j) {
    const auto js = static_cast<std::size_t>(j);
    const JointConstraint& c = skeleton_.constraint(j);
    hinge_bounds_[js] = {std::cos(c.min_angle), std::sin(c.min_angle), std::cos(c.max_angle), std::sin(c.max_angle)};
    TwistLimit& t = twist_[js];
    t.limited = c.type == ConstraintType::Ball && (c.min_twist > -kPi || c.max_twist < kPi);
    const double mid = 0.5 * (c.min_twist + c.max_twist), half = 0.5 * (c.max_twist - c.min_twist);
    t.mid = {std::cos(mid), std::sin(mid)};
    t.lo = {std::cos(c.min_twist), std::sin(c.min_twist)};
    t.hi = {std::cos(c.max_twist), std::sin(c.max_twist)};
    t.cos_half = std::cos(half);
    plain_offset_[js] = c.R_offset == Matrix3d::Identity() ? 1 : 0;
    const int par = skeleton_.parent(j);
    const double k = skeleton_.coupling(j);
    if (k != 0.0) {
      coupled_child_[static_cast<std::size_t>(par)] = j;
      CoupledPair& g = pair_[static_cast<std::size_t>(par)];
      const JointConstraint& cj = skeleton_.constraint(par);
      g.h = cj.hinge_axis;
      g.yj = g.h.cross(Vector3d::UnitZ());
      g.zc = c.R_offset.col(2);
      g.yc = c.R_offset * c.hinge_axis.cross(Vector3d::UnitZ());
      g.k = k, g.lj = skeleton_.length(par), g.lc = skeleton_.length(j);
      const double step = (cj.max_angle - cj.min_angle) / static_cast<double>(g.t.size() - 1);
      for (std::size_t i = 0; i < g.t.size(); ++i) {
        g.t[i] = cj.min_angle + step * static_cast<double>(i);
        g.point[i] = g.position(g.t[i]);
      }
    }
    reach_[js] = reach_[static_cast<std::size_t>(par)] + skeleton_.length(j);
  }
}

void Solver::setTarget(int j, const Vector3d& target) {
  if (j < 0 || j >= skeleton_.size()) throw InvalidArgument("fabrik::Solver::setTarget: joint out of range");
  if (!target.allFinite()) throw InvalidArgument("fabrik::Solver::setTarget: non-finite target");
  target_[static_cast<std::size_t>(j)] = target;
  has_target_[static_cast<std::size_t>(j)] = 1;
}

void Solver::clearTarget(int j) {
  if (j < 0 || j >= skeleton_.size()) throw InvalidArgument("fabrik::Solver::clearTarget: joint out of range");
  has_target_[static_cast<std::size_t>(j)] = 0;
}

void Solver::setBaseFrame(const Matrix3d& R) {
  skeleton_.setBaseFrame(R);
  frames_valid_ = false;
}

void Solver::clearTargets() { std::fill(has_target_.begin(), has_target_.end(), 0); }

Matrix3d Solver::constraintFrame(int j) const {
  const Matrix3d& parent = frame_[static_cast<std::size_t>(skeleton_.parent(j))];
  if (plain_offset_[static_cast<std::size_t>(j)]) return parent;
  return parent * skeleton_.constraint(j).R_offset;
}

void Solver::resetFrames(const Eigen::Ref<const Matrix3Xd>& p) {
  if (p.cols() != skeleton_.size()) throw InvalidArgument("fabrik::Solver::resetFrames: wrong number of joints");
  frame_[0] = skeleton_.baseFrame();
  for (int j = 1; j < skeleton_.size(); ++j) {
    const auto js = static_cast<std::size_t>(j);
    const Matrix3d C = constraintFrame(j);
    const JointConstraint& c = skeleton_.constraint(j);
    Vector3d d = p.col(j) - p.col(skeleton_.parent(j));
    d = d.norm() > 0 ? Vector3d(d.normalized()) : Vector3d(C.col(2));
    if (c.type == ConstraintType::Hinge) {
      const Vector3d u = C.transpose() * d;
      const double t = std::atan2(c.hinge_axis.dot(Vector3d::UnitZ().cross(u)), u.z());
      angle_[js] = clampAngle(t, c.min_angle, c.max_angle);
      frame_[js] = C * Eigen::AngleAxisd(angle_[js], c.hinge_axis).toRotationMatrix();
    } else {
      frame_[js] = alignedFrame(minimalRotation(C.col(2), d) * C, d);
      angle_[js] = 0.0;
    }
    rel_[js] = C.transpose() * frame_[js];
  }
  frames_valid_ = true;
}

// R(t) v for the hinge h ⟂ z by Rodrigues' formula on vectors (no rotation matrix):
// R(t) v = v cos t + (h × v) sin t + h (h·v)(1 − cos t); it turns z into cos t z + sin t (h × z).
Vector3d Solver::CoupledPair::rotate(const Vector3d& v, double ct, double st) const {
  return ct * v + st * h.cross(v) + (1.0 - ct) * h.dot(v) * h;
}

// Joint c relative to joint j's parent: l_j d_j(t) + l_c R(t) w(kt), w(s) = cos s z_c + sin s y_c.
Vector3d Solver::CoupledPair::position(double t) const {
  const double ct = std::cos(t), st = std::sin(t);
  return lj * (ct * Vector3d::UnitZ() + st * yj) + lc * rotate(std::cos(k * t) * zc + std::sin(k * t) * yc, ct, st);
}

// f(t) = |position(t) − target|² and its first two derivatives in closed form
// (d/dt R w = h × R w + R w', d_j'' = −d_j, w'' = −k² w).
void Solver::CoupledPair::cost(HingeTrig& trig, const Vector3d& target, double& f, double& d1, double& d2) const {
  const Vector3d z = Vector3d::UnitZ();
  const double t = trig.t;
  trig.ct = std::cos(t), trig.st = std::sin(t), trig.ck = std::cos(k * t), trig.sk = std::sin(k * t);
  const double ct = trig.ct, st = trig.st, ck = trig.ck, sk = trig.sk;
  const Vector3d w = ck * zc + sk * yc, dw = k * (ck * yc - sk * zc);
  const Vector3d Rw = rotate(w, ct, st), Rdw = rotate(dw, ct, st);
  const Vector3d dj = ct * z + st * yj, ddj = ct * yj - st * z;
  const Vector3d dRw = h.cross(Rw) + Rdw;
  const Vector3d ddRw = h.cross(h.cross(Rw)) + 2.0 * h.cross(Rdw) - k * k * Rw;
  const Vector3d g = lj * dj + lc * Rw - target, g1 = lj * ddj + lc * dRw, g2 = -lj * dj + lc * ddRw;
  f = g.squaredNorm();
  d1 = 2.0 * g.dot(g1);
  d2 = 2.0 * (g1.squaredNorm() + g.dot(g2));
}

Solver::HingeTrig Solver::coupledAngle(const Eigen::Ref<const Matrix3Xd>& p, int j, const Vector3d& q) const {
  // The pair (j, c) moves as one: θ_c = k·θ_j, so choose t = θ_j putting joint c nearest to q.
  // Start from the best of the last angle and the precomputed grid, then a safeguarded Newton
  // iteration on f(t) inside one grid step around it: 2–4 sin/cos pairs a call. The sines and
  // cosines of t and kt are returned for the two hinge frames.
  const CoupledPair& pair = pair_[static_cast<std::size_t>(j)];
  const Vector3d target = constraintFrame(j).transpose() * (q - p.col(skeleton_.parent(j)));
  HingeTrig cur;
  cur.t = std::clamp(angle_[static_cast<std::size_t>(j)], pair.t.front(), pair.t.back());
  double f = 0.0, d1 = 0.0, d2 = 0.0;
  pair.cost(cur, target, f, d1, d2);
  int best = -1;
  for (std::size_t i = 0; i < pair.t.size(); ++i) {
    const double v = (pair.point[i] - target).squaredNorm();
    if (v < f) best = static_cast<int>(i), f = v;
  }
  if (best >= 0) {
    cur.t = pair.t[static_cast<std::size_t>(best)];
    pair.cost(cur, target, f, d1, d2);
  }
  // A step that does not reduce f is halved back towards the current point; a Newton step below
  // 1e-9 rad is taken without another evaluation (the next would be ~1e-18), its sines and
  // cosines by the first-order update (error ~1e-18).
  const double step = pair.t[1] - pair.t[0];
  const double a = std::max(pair.t.front(), cur.t - step), b = std::min(pair.t.back(), cur.t + step);
  for (int it = 0; it < 12; ++it) {
    const double dt = d2 > 0.0 ? -d1 / d2 : (d1 > 0.0 ? a - cur.t : b - cur.t);
    if (d2 > 0.0 && std::abs(dt) < 1e-9) {
      const double h = std::clamp(cur.t + dt, a, b) - cur.t, kh = pair.k * h;
      return {cur.t + h, cur.ct - cur.st * h, cur.st + cur.ct * h, cur.ck - cur.sk * kh, cur.sk + cur.ck * kh};
    }
    HingeTrig next = cur;
    next.t = std::clamp(cur.t + dt, a, b);
    double fn = 0.0, n1 = 0.0, n2 = 0.0;
    pair.cost(next, target, fn, n1, n2);
    for (int half = 0; half < 20 && fn > f; ++half) {
      next.t = 0.5 * (cur.t + next.t);
      pair.cost(next, target, fn, n1, n2);
    }
    if (fn > f) break;
    const double moved = std::abs(next.t - cur.t);
    cur = next, f = fn, d1 = n1, d2 = n2;
    if (moved < 1e-10) break;
  }
  return cur;
}

void Solver::placeBone(Eigen::Ref<Matrix3Xd> p, int j, const Vector3d& desired) {
  const auto js = static_cast<std::size_t>(j);
  const int par = skeleton_.parent(j);
  const JointConstraint& c = skeleton_.constraint(j);
  const Matrix3d C = constraintFrame(j);
  const double n = desired.norm();
  const bool carry = !active_[js] || !(n > 1e-12);
  Matrix3d F;
  if (c.type == ConstraintType::Hinge) {
    // θ with its cosine and sine where they come for free (an unclamped direction, a bound, the
    // coupled pair's search); sin/cos only otherwise.
    double theta = angle_[js], ct = 0.0, st = 0.0;
    bool have_trig = false;
    const int cc = coupled_child_[js];
    const std::array<double, 4>& bound = hinge_bounds_[js];
    auto atBound = [&](double t) {
      if (t == c.min_angle) ct = bound[0], st = bound[1], have_trig = true;
      if (t == c.max_angle) ct = bound[2], st = bound[3], have_trig = true;
    };
    if (skeleton_.coupling(j) != 0.0) {
      const double raw = skeleton_.coupling(j) * angle_[static_cast<std::size_t>(par)];
      theta = clampAngle(raw, c.min_angle, c.max_angle);
      if (theta == raw && coupled_joint_ == par && coupled_.t == angle_[static_cast<std::size_t>(par)]) {
        ct = coupled_.ck, st = coupled_.sk, have_trig = true;
      } else {
        atBound(theta);
      }
    } else if (!carry && cc >= 0 && active_[static_cast<std::size_t>(cc)]) {
      coupled_ = coupledAngle(p, j, p.col(cc));
      coupled_joint_ = j;
      theta = coupled_.t, ct = coupled_.ct, st = coupled_.st, have_trig = true;
    } else if (!carry) {
      // Project onto the hinge plane first, then clamp the angle in that plane.
      const Vector3d u = C.transpose() * (desired / n);
      const Vector3d in_plane = u - u.dot(c.hinge_axis) * c.hinge_axis;
      const double m = in_plane.norm();
      if (m > 1e-9) {
        const double y = c.hinge_axis.dot(Vector3d::UnitZ().cross(in_plane));
        theta = std::atan2(y, in_plane.z());
        ct = in_plane.z() / m, st = y / m, have_trig = true;
      }
      const double clamped = clampAngle(theta, c.min_angle, c.max_angle);
      if (clamped != theta || !have_trig) {
        theta = clamped;
        have_trig = false;
        atBound(theta);
      }
    }
    if (!have_trig) ct = std::cos(theta), st = std::sin(theta);
    angle_[js] = theta;
    F = C * hingeRotation(c.hinge_axis, ct, st);
  } else if (carry) {
    F = C * rel_[js];
  } else {
    Vector3d d = desired / n;
    const TwistLimit& tw = twist_[js];
    Vector3d u;  // d in C_j, when a ball limit needs it
    if (c.type == ConstraintType::Ball && (c.cone_angle < kPi || tw.limited)) u = C.transpose() * d;
    if (c.type == ConstraintType::Ball && c.cone_angle < kPi) {
      const double cmin = skeleton_.coneCos(j);
      if (u.z() < cmin) {
        // Back onto the cone, in the plane through z and u (nearest direction on the cone).
        Eigen::Vector2d xy(u.x(), u.y());
        const double r = xy.norm();
        xy = r > 1e-12 ? Eigen::Vector2d(xy / r) : Eigen::Vector2d(1.0, 0.0);
        const double s = std::sqrt(std::max(0.0, 1.0 - cmin * cmin));  // sin of the cone angle
        u = Vector3d(s * xy.x(), s * xy.y(), cmin);
        d = C * u;
      }
    }
    // Transport the previous frame onto the new direction (its twist is inherited).
    const Matrix3d& old = frame_[js];
    F = frameFromX(rotateMinimal(old.col(2), d, old.col(0)), d);
    if (tw.limited) {
      // Swing-twist split of C^T F about z: τ is the angle of x = swing⁻¹ · x_F in the xy plane.
      // τ is in range iff x is within the half-width of the range's middle direction (no atan2);
      // outside, the bound whose direction is nearer (larger dot product) replaces it.
      const Vector3d x = rotateMinimal(u, Vector3d::UnitZ(), C.transpose() * F.col(0));
      const double n_xy = std::sqrt(x.x() * x.x() + x.y() * x.y());
      if (x.x() * tw.mid[0] + x.y() * tw.mid[1] < tw.cos_half * n_xy) {
        const bool low = x.x() * tw.lo[0] + x.y() * tw.lo[1] >= x.x() * tw.hi[0] + x.y() * tw.hi[1];
        const std::array<double, 2>& b = low ? tw.lo : tw.hi;
        F = frameFromX(C * rotateMinimal(Vector3d::UnitZ(), u, Vector3d(b[0], b[1], 0.0)), d);
      }
    }
  }
  frame_[js] = F;  // rel_ (C^T F) is refreshed once per solve, in updateRelative()
  p.col(j) = p.col(par) + skeleton_.length(j) * F.col(2);
}

void Solver::backward(Eigen::Ref<Matrix3Xd> p, bool free_root) {
  // sum_ and count_ are zero on entry (constructor) and each is zeroed again once read.
  for (int j = skeleton_.size() - 1; j >= 1; --j) {
    const auto js = static_cast<std::size_t>(j);
    if (!active_[js]) continue;
    // A targeted joint goes to its target; a sub-base to the centroid of its children's proposals.
    const Vector3d pos = has_target_[js] ? target_[js] : Vector3d(sum_[js] / count_[js]);
    sum_[js].setZero();
    count_[js] = 0;
    p.col(j) = pos;
    const int par = skeleton_.parent(j);
    Vector3d dir = p.col(par) - pos;
    const double n = dir.norm();
    dir = n > 1e-12 ? Vector3d(dir * (skeleton_.length(j) / n)) : Vector3d(-skeleton_.length(j) * frame_[js].col(2));
    sum_[static_cast<std::size_t>(par)] += pos + dir;
    ++count_[static_cast<std::size_t>(par)];
  }
  if (free_root && !has_target_[0] && count_[0] > 0) p.col(0) = sum_[0] / count_[0];
  sum_[0].setZero();
  count_[0] = 0;
}

void Solver::forward(Eigen::Ref<Matrix3Xd> p, const Vector3d& root) {
  p.col(0) = root;
  frame_[0] = skeleton_.baseFrame();
  for (int j = 1; j < skeleton_.size(); ++j) placeBone(p, j, p.col(j) - p.col(skeleton_.parent(j)));
}

double Solver::error(const Eigen::Ref<const Matrix3Xd>& p) const {
  double e = 0.0;
  for (int j = 0; j < skeleton_.size(); ++j) {
    if (has_target_[static_cast<std::size_t>(j)])
      e = std::max(e, (p.col(j) - target_[static_cast<std::size_t>(j)]).norm());
  }
  return e;
}

void Solver::updateRelative() {
  for (int j = 1; j < skeleton_.size(); ++j) {
    rel_[static_cast<std::size_t>(j)] = constraintFrame(j).transpose() * frame_[static_cast<std::size_t>(j)];
  }
}

void Solver::restartPose(Eigen::Ref<Matrix3Xd> p, double fraction) {
  updateRelative();
  for (int j = 1; j < skeleton_.size(); ++j) {
    const JointConstraint& c = skeleton_.constraint(j);
    if (c.type == ConstraintType::Ball && fraction < 0.0) {
      const double tau = std::clamp(0.0, c.min_twist, c.max_twist);
      rel_[static_cast<std::size_t>(j)] = Eigen::AngleAxisd(tau, Vector3d::UnitZ()).toRotationMatrix();
    }
    if (c.type != ConstraintType::Hinge) continue;
    // fraction < 0: the neutral pose (the in-range angle nearest 0, i.e. straight when allowed).
    angle_[static_cast<std::size_t>(j)] = fraction < 0.0 ? std::clamp(0.0, c.min_angle, c.max_angle)
                                                         : c.min_angle + fraction * (c.max_angle - c.min_angle);
  }
  // Every bone carried rigidly: hinges take their restart angle, the others keep C^T F.
  saved_active_ = active_;  // same size: no allocation
  std::fill(active_.begin() + 1, active_.end(), 0);
  forward(p, p.col(0));
  active_ = saved_active_;
}

Result Solver::solve(Eigen::Ref<Matrix3Xd> p, const Options& options) {
  const int n = skeleton_.size();
  if (p.cols() != n) {
    throw InvalidArgument("fabrik::Solver::solve: expected " + std::to_string(n) + " joint positions, got " +
                          std::to_string(p.cols()));
  }
  if (!frames_valid_) resetFrames(p);
  // Joints with a target in their subtree take part in the backward pass.
  for (int j = n - 1; j >= 0; --j) active_[static_cast<std::size_t>(j)] = has_target_[static_cast<std::size_t>(j)];
  for (int j = n - 1; j >= 1; --j) {
    if (active_[static_cast<std::size_t>(j)]) active_[static_cast<std::size_t>(skeleton_.parent(j))] = 1;
  }
  const bool free_root = options.root == RootMode::Free;
  const Vector3d base = has_target_[0] ? target_[0] : Vector3d(p.col(0));

  // Reachability (Algorithm 1, line 1.4), only meaningful with the root held.
  bool unreachable = false;
  int n_targets = 0, last_target = -1;
  for (int j = 1; j < n; ++j) {
    const auto js = static_cast<std::size_t>(j);
    if (!has_target_[js]) continue;
    ++n_targets;
    last_target = j;
    if (!free_root && (target_[js] - base).norm() > reach_[js]) unreachable = true;
  }
  Result result;
  result.unreachable = unreachable;
  if (unreachable && n_targets == 1) {
    // A single unreachable target: stretch its path straight towards it (as far as constraints let).
    // Every joint of the path is put at the target (a coupled pair's end included): the forward
    // pass then aims each of their bones at it.
    for (int j = last_target; j > 0; j = skeleton_.parent(j)) p.col(j) = target_[static_cast<std::size_t>(last_target)];
    forward(p, base);
    updateRelative();
    result.status = ik::Status::Stationary;
    result.iterations = 1;
    result.error = error(p);
    return result;
  }
  double err = 0.0, prev = std::numeric_limits<double>::infinity();
  double best_err = std::numeric_limits<double>::infinity();
  int restarts = options.restarts;
  for (int it = 0; it < options.max_iterations; ++it) {
    backward(p, free_root);
    forward(p, free_root && !has_target_[0] ? Vector3d(p.col(0)) : base);
    result.iterations = it + 1;
    err = error(p);
    if (err <= options.tolerance) break;
    const bool stalled = err > options.stall_ratio * prev;
    if (stalled && restarts == 0 && options.stop_when_stalled) {
      result.status = ik::Status::Stationary;
      result.stalled = true;
      break;
    }
    if (restarts > 0 && stalled) {
      // Stalled away from the targets (typically a one-sided hinge locked at a bound): restart
      // from the hinges inside their ranges, other joints as they are.
      // Restart k puts the hinges at fraction k of Options::restart_fractions (by default their
      // neutral angle, then 1/2, 1/4, 3/4 of their ranges). The pose it leaves is kept if no later one comes closer.
      if (err < best_err) {
        best_err = err;
        best_p_ = p;
        best_frame_ = frame_;
        best_angle_ = angle_;
      }
      const auto k = static_cast<std::size_t>(options.restarts - restarts) % options.restart_fractions.size();
      restartPose(p, options.restart_fractions[k]);
      --restarts;
      prev = std::numeric_limits<double>::infinity();
      continue;
    }
    prev = err;
  }
  err = error(p);  // a restart on the last iteration leaves its starting pose, not the last iterate
  if (best_err < err) {
    p = best_p_;
    frame_ = best_frame_;  // same sizes: no allocation
    angle_ = best_angle_;
    err = best_err;
  }
  updateRelative();
  result.error = err;
  if (result.stalled) return result;
  result.status = err <= options.tolerance ? ik::Status::Converged
                  : unreachable            ? ik::Status::Stationary  // out of reach: stretched towards it
                                           : ik::Status::IterationLimit;
  return result;
}

}  // namespace kinetrack::fabrik
