#pragma once
// Checks of a model's mass properties for dynamics (RNEA, CRBA, ABA), to be called once when a
// dynamics solver is set up, never per frame.
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// Throws InvalidArgument naming the first offending link unless the model's mass properties
/// make a well-posed dynamics problem:
///  - every link's inertial is physical: mass, COM and inertia finite and mass ≥ 0; inertia
///    symmetric and positive semi-definite, its principal moments obeying the triangle
///    inequality I₁ + I₂ ≥ I₃ (within a relative tolerance of 1e-9 of the trace, or 1e-12 kg m²);
///  - every moving chain ends in mass: beyond each joint (its child link and all links after it)
///    there is mass > 0, otherwise the joint's column of the mass matrix is zero and a forward-
///    dynamics solve would give NaN. The message names a massless link at the end of the chain
///    and the joint. A floating base needs a total mass > 0.
/// Massless links inside a chain that ends in mass (the human models' dummy links) are fine.
/// Links are checked in id order (parents before children), inertials before chains.
void checkMassProperties(const Model& model);

}  // namespace kinetrack
