// OpenSim reader, XML helpers: text, numbers, booleans and functions of elements, with errors
// that name the file and the element's line.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io::detail::osim {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Function types OpenSim has that kinetrack cannot evaluate (named in the error).
constexpr const char* kUnsupportedFunctions[] = {"GCVSpline",
                                                 "PiecewiseLinearFunction",
                                                 "PiecewiseConstantFunction",
                                                 "StepFunction",
                                                 "Sine",
                                                 "LinearFunction2",
                                                 "FunctionAdapter",
                                                 "MultivariatePolynomialFunction",
                                                 "ExpressionBasedFunction",
                                                 "PolynomialFunction2",
                                                 "SigmoidFunction",
                                                 "ClutchedPathSpring"};
constexpr const char* kSupportedFunctions[] = {"Constant",   "LinearFunction",     "PolynomialFunction",
                                               "SimmSpline", "NaturalCubicSpline", "MultiplierFunction"};

}  // namespace

void Xml::fail(const XMLElement* e, const std::string& message) const {
  throw ParseError(source_, e ? e->GetLineNum() : 0, message);
}

std::string Xml::text(const XMLElement* e) {
  std::string s;
  if (!e) return s;
  for (const tinyxml2::XMLNode* n = e->FirstChild(); n; n = n->NextSibling())
    if (const tinyxml2::XMLText* t = n->ToText()) s += t->Value();
  std::size_t b = 0, end = s.size();
  while (b < end && space(s[b])) ++b;
  while (end > b && space(s[end - 1])) --end;
  return s.substr(b, end - b);
}

std::vector<std::string> Xml::words(const XMLElement* e) {
  std::vector<std::string> out;
  const std::string s = text(e);
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

const XMLElement* Xml::child(const XMLElement* e, const char* tag) { return e ? e->FirstChildElement(tag) : nullptr; }

std::string Xml::name(const XMLElement* e) {
  const char* n = e ? e->Attribute("name") : nullptr;
  return n ? n : "";
}

std::vector<double> Xml::numbers(const XMLElement* e, const std::string& owner, int count) const {
  std::vector<double> out;
  for (const std::string& w : words(e)) {
    double v = 0.0;
    if (!parseNumber(w, v)) {
      // Out of the double range ("1e400") is a number, just not a finite one.
      char* end = nullptr;
      const double huge = std::strtod(w.c_str(), &end);
      if (end && *end == '\0' && std::isinf(huge))
        fail(e, owner + ": " + e->Name() + ": '" + w + "' is not a finite number");
      fail(e, owner + ": " + e->Name() + ": '" + w + "' is not a number");
    }
    if (std::isnan(v)) fail(e, owner + ": " + e->Name() + ": '" + w + "' is not a number");
    if (!std::isfinite(v)) fail(e, owner + ": " + e->Name() + ": '" + w + "' is not a finite number");
    out.push_back(v);
  }
  if (count >= 0 && static_cast<int>(out.size()) != count)
    fail(e, owner + ": " + e->Name() + ": expected " + std::to_string(count) + " number" + (count == 1 ? "" : "s") +
                ", got " + std::to_string(out.size()) + " ('" + text(e) + "')");
  return out;
}

double Xml::number(const XMLElement* e, const std::string& owner) const { return numbers(e, owner, 1)[0]; }

Vector3d Xml::vector3(const XMLElement* e, const std::string& owner) const {
  const std::vector<double> v = numbers(e, owner, 3);
  return {v[0], v[1], v[2]};
}

bool Xml::boolean(const XMLElement* e, const std::string& owner) const {
  const std::string t = lower(text(e));
  if (t == "true" || t == "1") return true;
  if (t == "false" || t == "0") return false;
  fail(e, owner + ": " + e->Name() + ": '" + text(e) + "' is not true or false");
}

double Xml::number(const XMLElement* parent, const char* tag, const std::string& owner, double fallback) const {
  const XMLElement* e = child(parent, tag);
  return e ? number(e, owner) : fallback;
}

Vector3d Xml::vector3(const XMLElement* parent, const char* tag, const std::string& owner,
                      const Vector3d& fallback) const {
  const XMLElement* e = child(parent, tag);
  return e ? vector3(e, owner) : fallback;
}

bool Xml::boolean(const XMLElement* parent, const char* tag, const std::string& owner, bool fallback) const {
  const XMLElement* e = child(parent, tag);
  return e ? boolean(e, owner) : fallback;
}

bool Xml::isFunctionTag(const char* tag) {
  for (const char* t : kSupportedFunctions)
    if (std::strcmp(t, tag) == 0) return true;
  for (const char* t : kUnsupportedFunctions)
    if (std::strcmp(t, tag) == 0) return true;
  return false;
}

ScalarFunction Xml::function(const XMLElement* e, const std::string& owner) const {
  return functionElement(e, owner, 0);
}

ScalarFunction Xml::functionElement(const XMLElement* f, const std::string& owner, int depth) const {
  // Wrappers nest (MultiplierFunction of a MultiplierFunction …); a bound keeps a hostile file
  // from exhausting the stack.
  if (depth > 32) fail(f, owner + ": functions nested too deeply");
  const std::string tag = f->Name();
  if (!isFunctionTag(tag.c_str())) {
    // A wrapper (<function>, <coupled_coordinates_function>, <x_location>): exactly one function inside.
    const XMLElement* inner = f->FirstChildElement();
    if (!inner) fail(f, owner + ": <" + tag + "> holds no function");
    if (inner->NextSiblingElement())
      fail(inner->NextSiblingElement(), owner + ": <" + tag + "> holds more than one element");
    if (!isFunctionTag(inner->Name()))
      fail(inner, owner + ": unknown function type '" + inner->Name() +
                      "' (supported: Constant, LinearFunction, PolynomialFunction, SimmSpline, NaturalCubicSpline, "
                      "MultiplierFunction)");
    return functionElement(inner, owner, depth + 1);
  }
  const std::string what = owner + ": " + tag;
  try {
    if (tag == "Constant") return ScalarFunction::constant(number(f, "value", what, 0.0));
    if (tag == "LinearFunction") {
      const XMLElement* c = child(f, "coefficients");
      if (!c) return ScalarFunction::linear(1.0, 0.0);  // OpenSim's default
      const std::vector<double> k = numbers(c, what, 2);
      return ScalarFunction::linear(k[0], k[1]);
    }
    if (tag == "PolynomialFunction") {
      const XMLElement* c = child(f, "coefficients");
      if (!c) return ScalarFunction::polynomial({1.0});  // OpenSim's default: f = 1
      const std::vector<double> k = numbers(c, what, -1);
      if (k.empty()) fail(c, what + ": no coefficients");
      return ScalarFunction::polynomial(k);
    }
    if (tag == "SimmSpline" || tag == "NaturalCubicSpline") {
      const XMLElement* x = child(f, "x");
      const XMLElement* y = child(f, "y");
      if (!x || !y) fail(f, what + ": needs <x> and <y>");
      std::vector<double> xs = numbers(x, what, -1);
      std::vector<double> ys = numbers(y, what, -1);
      if (xs.size() != ys.size())
        fail(y, what + ": " + std::to_string(xs.size()) + " x values but " + std::to_string(ys.size()) + " y values");
      if (xs.size() < 2) fail(x, what + ": needs at least 2 knots, got " + std::to_string(xs.size()));
      for (std::size_t i = 1; i < xs.size(); ++i)
        if (!(xs[i] > xs[i - 1])) fail(x, what + ": x values are not strictly increasing");
      return tag == "SimmSpline" ? ScalarFunction::simmSpline(std::move(xs), std::move(ys))
                                 : ScalarFunction::naturalCubicSpline(std::move(xs), std::move(ys));
    }
    if (tag == "MultiplierFunction") {
      const XMLElement* inner = child(f, "function");
      if (!inner) fail(f, what + ": needs a <function>");
      const double scale = number(f, "scale", what, 1.0);
      return functionElement(inner, owner, depth + 1).scaled(scale);
    }
  } catch (const InvalidArgument& e) {
    fail(f, what + ": " + e.what());
  }
  fail(f, owner + ": function type '" + tag +
              "' is not supported (supported: Constant, LinearFunction, PolynomialFunction, SimmSpline, "
              "NaturalCubicSpline, MultiplierFunction)");
}

Matrix3d bodyFixedXyz(const Vector3d& a) { return so3::fromBodyXyz(a); }

}  // namespace kinetrack::io::detail::osim
