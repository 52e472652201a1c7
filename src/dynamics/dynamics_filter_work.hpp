#pragma once
// The dynamics filter's preallocated scratch (dynamics_filter.cpp, dynamics_filter_measured.cpp):
// sized at construction, so that step() allocates nothing.
#include <Eigen/Cholesky>
#include <memory>
#include <vector>

#include "kinetrack/dynamics/dynamics_filter.hpp"

namespace kinetrack {

// Scratch of one filter, sized at construction (step() allocates nothing).
struct DynamicsFilter::Work {
  Work(const Model& m, int nu, int nc, int np)
      : dyn(m),
        dyn_ref(m),
        kin_ref(m),
        q(m),
        q_hold(m),
        v(VectorXd::Zero(m.nv())),
        v_hold(VectorXd::Zero(m.nv())),
        a_hold(VectorXd::Zero(m.nv())),
        h(VectorXd::Zero(m.nv())),
        diff(VectorXd::Zero(m.nv())),
        kp(VectorXd::Zero(m.nv())),
        kd(VectorXd::Zero(m.nv())),
        winv(VectorXd::Zero(m.nv())),
        winv_const(VectorXd::Zero(m.nv())),
        J_head(Matrix6Xd::Zero(6, m.nv())),
        J_head_ref(Matrix6Xd::Zero(6, m.nv())),
        J_c(static_cast<std::size_t>(nc), Matrix6Xd::Zero(6, m.nv())),
        J_c_ref(static_cast<std::size_t>(nc), Matrix6Xd::Zero(6, m.nv())),
        G(MatrixXd::Zero(nu + 6 * nc, m.nv())),
        GW(MatrixXd::Zero(nu + 6 * nc, m.nv())),
        K(MatrixXd::Zero(nu + 6 * nc, nu + 6 * nc)),
        llt(nu + 6 * nc),
        c(VectorXd::Zero(nu + 6 * nc)),
        lambda(VectorXd::Zero(nu + 6 * nc)),
        D(MatrixXd::Zero(nu + 6 * nc, 3 * np)),
        Dref(MatrixXd::Zero(nu, 3 * np)),
        P(MatrixXd::Zero(6 * nc, 3 * np)),
        w_meas(VectorXd::Zero(6 * nc)),
        tau_ref(VectorXd::Zero(nu)),
        problem(3 * np, 4 * np),
        before(3 * np, 4 * np),
        f(VectorXd::Zero(3 * np)),
        f_before(VectorXd::Zero(3 * np)),
        anchor(static_cast<std::size_t>(nc)),
        was_active(static_cast<std::size_t>(nc), 0),
        point_on(static_cast<std::size_t>(np), 0),
        point_was_on(static_cast<std::size_t>(np), 0),
        centroid(static_cast<std::size_t>(nc), Vector3d::Zero()),
        zero(VectorXd::Zero(m.nv())),
        ext(static_cast<std::size_t>(nc)) {}

  DynamicsData dyn, dyn_ref;  // at the filter's state; at the reference (residual_before)
  Data kin_ref;               // kinematics of the reference (detection, skyhook)
  Configuration q, q_hold;    // the filter's state q; the last valid reference
  VectorXd v, v_hold, a_hold, h, diff, kp, kd, winv;
  VectorXd winv_const;  // 1 / (weight_base or weight_joint); winv = that / M_ii with InertiaDiagonal
  bool has_hold = false;
  Matrix6Xd J_head, J_head_ref;
  std::vector<Matrix6Xd> J_c, J_c_ref;
  MatrixXd G, GW, K;
  Eigen::LLT<MatrixXd> llt;
  VectorXd c, lambda;
  MatrixXd D, Dref, P;
  VectorXd w_meas, tau_ref;
  qp::Problem problem, before;
  std::unique_ptr<qp::Solver> solver, solver_before;
  VectorXd f, f_before;
  Matrix3d T = Matrix3d::Identity();                 // ground frame: columns t1, t2, n
  std::vector<Transform> anchor;                     // weld: the link's pose; point: anchor.p the point's
  std::vector<std::uint8_t> was_active;              // per body: the last frame's mode (0, 3 or 6 rows)
  std::vector<std::uint8_t> point_on, point_was_on;  // per contact point: carries force
  std::vector<Vector3d> centroid;  // per body in point mode: the touching points' centroid (link frame)
  double mass = 0.0;
  double kp_c = 0.0, kd_c = 0.0;  // contact gains of this step (1/s², 1/s)
  // ContactForces::Measured: ν̇ = 0 for RNEA's h − Σ Jᵀ w, the measured wrenches on the contact
  // links (the last valid ones, held over invalid frames).
  VectorXd zero;
  std::vector<ExternalWrench> ext;
};

}  // namespace kinetrack
