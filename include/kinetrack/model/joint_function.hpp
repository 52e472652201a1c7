#pragma once
// Functions of one joint coordinate, and the motion of a function-driven joint.
//
// OpenSim's CustomJoint moves its child by six functions of its coordinates (three rotations
// about given axes, applied in order, then three translations along given axes of the parent
// joint frame): gait2354's knee translates along splines of the knee angle. kinetrack models such
// a joint as JointType::Custom with a JointMotion (below): one coordinate s drives every axis,
//
//   M(s) = Trans(Σ_k t_k g_k(s)) · Rot(r_1, f_1(s)) · Rot(r_2, f_2(s)) · Rot(r_3, f_3(s)),
//
// (rotation axes r_k in the frame left by the previous rotations — a body-fixed sequence, as
// Simbody's FunctionBased mobilizer), so forward kinematics and Jacobians follow by the chain
// rule (kinematics/forward_kinematics.hpp). io/opensim_model.hpp splits a multi-coordinate
// CustomJoint into such joints, one per coordinate.
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack {

/// A smooth scalar function y = f(x) with first and second derivatives: the OpenSim Function
/// types a joint or a coupler constraint uses. Value type; evaluation does not allocate.
class ScalarFunction {
 public:
  enum class Kind : std::uint8_t {
    Constant,            ///< y = c
    Linear,              ///< y = a·x + b (OpenSim LinearFunction, coefficients "a b")
    Polynomial,          ///< y = Σ c_i x^(n−i), coefficients highest power first (OpenSim PolynomialFunction)
    SimmSpline,          ///< OpenSim SimmSpline: cubic spline with end conditions from third divided
                         ///< differences (Forsythe, Malcolm & Moler 1977), linear beyond the end knots
    NaturalCubicSpline,  ///< natural cubic spline (y'' = 0 at the end knots), linear beyond them
  };

  /// The zero function.
  ScalarFunction() = default;
  static ScalarFunction constant(double value);
  static ScalarFunction linear(double slope, double intercept);
  /// Throws InvalidArgument for no coefficients or a non-finite one.
  static ScalarFunction polynomial(std::vector<double> coefficients_highest_first);
  /// Knots x strictly increasing (≥ 2 of them), y the same size, all finite; throws
  /// InvalidArgument otherwise.
  static ScalarFunction simmSpline(std::vector<double> x, std::vector<double> y);
  static ScalarFunction naturalCubicSpline(std::vector<double> x, std::vector<double> y);

  /// k·f (OpenSim MultiplierFunction). Throws InvalidArgument for a non-finite k.
  [[nodiscard]] ScalarFunction scaled(double k) const;

  [[nodiscard]] Kind kind() const { return kind_; }
  /// True when f does not depend on x (a Constant, or a scale of 0).
  [[nodiscard]] bool isConstant() const;
  /// True when f(x) = x exactly (a Linear with slope 1, intercept 0, scale 1).
  [[nodiscard]] bool isIdentity() const;
  /// The slope a and intercept b of an affine f (Constant or Linear; scale folded in).
  [[nodiscard]] bool isAffine() const { return kind_ == Kind::Constant || kind_ == Kind::Linear; }
  [[nodiscard]] double slope() const;
  [[nodiscard]] double intercept() const;

  [[nodiscard]] double value(double x) const;
  /// f(x), f′(x) and f″(x).
  void evaluate(double x, double& f, double& df, double& ddf) const;

  /// A one-line description for messages ("SimmSpline with 12 knots").
  [[nodiscard]] std::string describe() const;

  [[nodiscard]] const std::vector<double>& knots() const { return x_; }
  [[nodiscard]] const std::vector<double>& knotValues() const { return y_; }
  [[nodiscard]] const std::vector<double>& coefficients() const { return coef_; }
  [[nodiscard]] double scale() const { return scale_; }

 private:
  static ScalarFunction spline(Kind kind, std::vector<double> x, std::vector<double> y);
  void evaluateUnscaled(double x, double& f, double& df, double& ddf) const;
  Kind kind_ = Kind::Constant;
  double scale_ = 1.0;
  std::vector<double> coef_ = {0.0};  // Constant: {c}; Linear: {a, b}; Polynomial: highest first
  std::vector<double> x_, y_;         // spline knots and values
  std::vector<double> b_, c_, d_;     // spline piece i: y_i + b_i h + c_i h² + d_i h³, h = x − x_i
};

/// One axis of a JointMotion: a unit axis in the joint frame and the function of the joint
/// coordinate that gives the rotation angle (rad) or translation (m) along it.
struct MotionAxis {
  Vector3d axis = Vector3d::UnitZ();
  ScalarFunction function;
};

/// The motion of a JointType::Custom joint (see the top of this file): up to three translations
/// (summed, in the joint frame) followed by up to three rotations (body-fixed sequence).
struct JointMotion {
  std::vector<MotionAxis> translations;
  std::vector<MotionAxis> rotations;
};

}  // namespace kinetrack
