#pragma once
// Fixed-size Eigen aliases and typed ids used across kinetrack.
#include <Eigen/Core>
#include <cstdint>
#include <functional>

namespace kinetrack {

using Vector3d = Eigen::Vector3d;
using Vector4d = Eigen::Vector4d;
using Matrix3d = Eigen::Matrix3d;
using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;
using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using VectorXd = Eigen::VectorXd;
using MatrixXd = Eigen::MatrixXd;

/// A strongly typed index into one of a Model's flat arrays. Ids are resolved from names once,
/// at set-up; hot paths take ids, never strings. A default-constructed id is invalid.
template <class Tag>
struct Id {
  std::int32_t value = -1;
  constexpr Id() = default;
  constexpr explicit Id(std::int32_t v) : value(v) {}
  [[nodiscard]] constexpr bool valid() const { return value >= 0; }
  constexpr auto operator<=>(const Id&) const = default;
};

using LinkId = Id<struct LinkTag>;
using JointId = Id<struct JointTag>;
using FrameId = Id<struct FrameTag>;

}  // namespace kinetrack

template <class Tag>
struct std::hash<kinetrack::Id<Tag>> {
  std::size_t operator()(kinetrack::Id<Tag> id) const noexcept { return std::hash<std::int32_t>{}(id.value); }
};
