#include "kinetrack/model/mass_properties.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

namespace {

std::string linkText(const Model& m, int l) { return "link '" + m.linkName(LinkId(l)) + "'"; }

void checkInertial(const Model& m, int l) {
  const Inertial& in = m.inertial(LinkId(l));
  if (!std::isfinite(in.mass) || !in.com.allFinite() || !in.inertia.allFinite())
    throw InvalidArgument(linkText(m, l) + ": inertial has a non-finite value");
  if (in.mass < 0.0) throw InvalidArgument(linkText(m, l) + ": negative mass " + std::to_string(in.mass) + " kg");
  const Matrix3d& I = in.inertia;
  const double tol = std::max(1e-12, 1e-9 * I.cwiseAbs().maxCoeff());
  if ((I - I.transpose()).cwiseAbs().maxCoeff() > tol)
    throw InvalidArgument(linkText(m, l) + ": inertia matrix is not symmetric");
  const Vector3d p = Eigen::SelfAdjointEigenSolver<Matrix3d>(I, Eigen::EigenvaluesOnly).eigenvalues();  // ascending
  const double ptol = std::max(1e-12, 1e-9 * std::abs(p.sum()));
  if (p[0] < -ptol)
    throw InvalidArgument(linkText(m, l) + ": inertia is not positive semi-definite (principal moment " +
                          std::to_string(p[0]) + " kg m^2)");
  if (p[0] + p[1] < p[2] - ptol)
    throw InvalidArgument(linkText(m, l) + ": principal moments " + std::to_string(p[0]) + ", " + std::to_string(p[1]) +
                          ", " + std::to_string(p[2]) + " kg m^2 violate the triangle inequality I1 + I2 >= I3");
}

}  // namespace

void checkMassProperties(const Model& m) {
  const int n = m.numLinks();
  for (int l = 0; l < n; ++l) checkInertial(m, l);

  // Mass of each link's subtree (children come after their parents).
  std::vector<double> subtree(static_cast<std::size_t>(n), 0.0);
  for (int l = n - 1; l >= 0; --l) {
    subtree[l] += m.inertial(LinkId(l)).mass;
    const LinkId p = m.parent(LinkId(l));
    if (p.valid()) subtree[p.value] += subtree[l];
  }
  if (m.baseType() == BaseType::Floating && !(subtree[0] > 0.0))
    throw InvalidArgument("model '" + m.name() + "': the floating base (" + linkText(m, 0) +
                          ") and everything on it are massless; dynamics needs mass");
  for (int l = 1; l < n; ++l) {
    if (subtree[l] > 0.0) continue;
    // Name a massless link at the end of this chain: follow the first child down to a leaf.
    int leaf = l;
    for (bool found = true; found;) {
      found = false;
      for (int c = leaf + 1; c < n; ++c)
        if (m.parent(LinkId(c)).value == leaf) {
          leaf = c;
          found = true;
          break;
        }
    }
    throw InvalidArgument(linkText(m, leaf) + ": a moving chain ends without mass (nothing beyond joint '" +
                          m.jointName(m.jointOfLink(LinkId(l))) +
                          "' has mass, so dynamics would divide by zero); give the link an <inertial>");
  }
}

}  // namespace kinetrack
