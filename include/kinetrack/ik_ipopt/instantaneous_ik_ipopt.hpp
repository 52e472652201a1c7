#pragma once
// The Ipopt backend of the whole-body instantaneous IK (SPEC §3: "an IPOPT backend, as the
// paper used"). A separate library (kinetrack::ik_ipopt) so that kinetrack::ik does not link
// Ipopt; it plugs into InstantaneousIk through InstantaneousIkExternalSolver.
//
// The NLP is InstantaneousIkProblem in the chart around the previous state: variables x (nv),
// objective F of instantaneous_ik_problem.hpp with its exact gradient, the Gauss–Newton Hessian Σ JᵀWJ (or Ipopt's
// L-BFGS, IpoptHessian), the joint limits as variable bounds (bound_relax_factor 0: iterates
// never leave them) and the model's linear rows as linear constraints with a constant Jacobian.
// Each frame starts at x = 0 (the previous solution) with the previous frame's bound and row
// multipliers (warm_start_init_point). The solve stops as soon as an accepted iterate meets the
// pose-error tolerances (intermediate_callback), else on Ipopt's own tolerance
// (ipopt_tolerance, status Stationary) or max_iterations. solve() allocates (Ipopt does).
#include <memory>

#include "kinetrack/ik/instantaneous_ik.hpp"

namespace kinetrack {

/// A new Ipopt solver for InstantaneousIk (one per InstantaneousIk; not thread-safe).
std::unique_ptr<InstantaneousIkExternalSolver> makeIpoptInstantaneousIkSolver();

/// An InstantaneousIk with the backend options.backend names: Native, or Ipopt with the solver
/// above installed. Throws InvalidArgument as InstantaneousIk's constructor does.
InstantaneousIk makeInstantaneousIk(const Model& model, InstantaneousIkOptions options = {});
InstantaneousIk makeInstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options = {});

}  // namespace kinetrack
