// The dynamics filter with measured contact loads (ContactForces::Measured, docs/dynamics_filter.md
// "Measured loads"): the force plates' wrenches enter the equation of motion as known external
// loads, M ν̇ + h = Sᵀτ + Σ J_kᵀ w_meas,k, and the acceleration change only balances the unactuated
// rows — OpenSim RRA's kinematic adjustment with the measured forces kept. The rest of the step
// (feedback, skyhook, the weighted least change, integration) is dynamics_filter.cpp's.
#include <Eigen/Geometry>

#include "dynamics_filter_work.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"

namespace kinetrack {

DynamicsFilterOptions DynamicsFilterOptions::measuredLoads() {
  DynamicsFilterOptions o;
  o.contact_forces = ContactForces::Measured;
  o.contact_source = ContactSource::Given;
  o.kp_joint = 900.0;
  o.kd_joint = 60.0;
  o.kp_base = 10.0;
  o.kd_base = 6.0;
  o.residual_softness = 0.03;
  return o;
}

// h − Σ J_kᵀ w_meas,k at the filter's state (RNEA with ν̇ = 0 and the measured wrenches on the
// contact links), into w.h; the wrenches of an invalid frame are the last valid ones.
void DynamicsFilter::applyMeasured(std::span<const ExternalWrench> measured, bool valid) {
  Work& w = *work_;
  if (valid)
    for (std::size_t b = 0; b < contacts_.size(); ++b) {
      w.ext[b].force = measured[b].force;
      w.ext[b].point = measured[b].point;
      w.ext[b].moment = measured[b].moment;
    }
  w.h = rnea(*model_, w.dyn, w.q, w.v, w.zero, w.ext, options_.gravity);
}

// The reference's residual with the measured loads: its unactuated generalised forces by RNEA (what
// `kinetrack dynamics id --loads` reports for the input motion at the filter's frames).
void DynamicsFilter::residualBeforeMeasured(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref) {
  Work& w = *work_;
  const VectorXd& tau = rnea(*model_, w.dyn_ref, q_ref, v_ref, a_ref, w.ext, options_.gravity);
  for (std::size_t i = 0; i < unactuated_.size(); ++i)
    frame_.residual_before[static_cast<Eigen::Index>(i)] = tau[unactuated_[i]];
  if (!frame_.residual_before.allFinite()) frame_.residual_before.setZero();
}

// The applied wrenches reported per contact body at its link origin (force; moment about the
// origin); no point forces (the plates give one wrench per foot).
void DynamicsFilter::finishMeasured() {
  Work& w = *work_;
  DynamicsFilterFrame& fr = frame_;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    const Vector3d& o = w.dyn.kinematics.link[static_cast<std::size_t>(contacts_[b].link.value)].p;
    ExternalWrench& e = fr.wrenches[b];
    e.point = o;
    e.force = w.ext[b].force;
    e.moment = w.ext[b].moment + (w.ext[b].point - o).cross(w.ext[b].force);
  }
  for (Vector3d& f : fr.point_forces) f.setZero();
}

}  // namespace kinetrack
