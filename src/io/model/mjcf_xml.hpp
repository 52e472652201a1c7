#pragma once
// Private to the MJCF reader (mjcf_reader.cpp): the XML layer. Documents with <include> expanded
// (each element keeps its own file and line for errors), <default> classes, attribute lookup
// through an element's class, typed values (numbers, booleans, integers) that fail with
// ParseError(file, line, "<owner>: <attribute>: …"), and MuJoCo's orientation forms.
#include <tinyxml2.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::io::mjcf {

using Element = tinyxml2::XMLElement;

/// <compiler> settings that change how numbers are read.
struct Compiler {
  bool degree = true;             ///< angle="degree" (MuJoCo's default) or "radian"
  std::string eulerseq = "xyz";   ///< lowercase: axes that move with the frame; uppercase: fixed
  bool autolimits = true;         ///< MuJoCo ≥ 2.3's default
  std::string meshdir, assetdir;  ///< relative to the model's folder unless absolute
  bool strippath = false;         ///< keep only the file name of asset paths
  std::string inertiafromgeom = "auto";
  /// An angle of the file in radians.
  [[nodiscard]] double angle(double v) const;
};

/// An attribute's text and the element it was written on (the element itself or a default).
struct Value {
  std::string text;
  const Element* where = nullptr;
};

/// The loaded documents (the main one and the <include>d ones) and the default classes.
class Xml {
 public:
  /// Parses the main document; throws ParseError for malformed XML, a root other than <mujoco>
  /// or a second top-level element.
  Xml(const std::string& text, std::string source_name);
  Xml(const Xml&) = delete;
  Xml& operator=(const Xml&) = delete;

  [[nodiscard]] const Element* root() const { return main_->RootElement(); }
  [[nodiscard]] const std::string& sourceName() const { return source_; }
  /// The file an element was read from.
  [[nodiscard]] const std::string& fileOf(const Element* e) const;
  [[noreturn]] void fail(const Element* e, const std::string& message) const;

  /// The child elements of `e` in order, each <include file="…"> replaced by the children of the
  /// included file's <mujoco> (recursively; the file is relative to the main file's folder).
  std::vector<const Element*> children(const Element* e);

  /// Reads a top-level <default> (class "main") and its nested classes.
  void readDefaults(const Element* e);
  /// The class named by attribute `attr` ("class" or "childclass") of `e`, or `inherited` when
  /// absent. Throws ParseError for an unknown class.
  [[nodiscard]] int classOf(const Element* e, const char* attr, int inherited) const;
  /// The "main" class (every element's class when nothing else applies).
  [[nodiscard]] static int mainClass() { return 0; }
  /// Attribute `name` of an element of kind `kind` ("joint", "geom", "site", "mesh",
  /// "actuator"): its own (none when e is null), else its class's (with inheritance), else none.
  [[nodiscard]] std::optional<Value> lookup(const Element* e, int cls, const std::string& kind, const char* name) const;
  /// True when `name` is given on the element or in its class.
  [[nodiscard]] bool classHas(int cls, const std::string& kind, const char* name) const;

 private:
  struct DefaultClass {
    std::string name;
    std::map<std::string, std::map<std::string, Value>> attributes;  // kind → name → value
  };
  void readClass(const Element* e, int parent);
  const tinyxml2::XMLDocument* load(const std::string& path, const Element* include);
  void expand(const Element* e, std::vector<const Element*>& out, int depth);

  std::string source_;
  std::unique_ptr<tinyxml2::XMLDocument> main_;
  std::map<std::string, std::unique_ptr<tinyxml2::XMLDocument>> included_;  // by path
  std::map<const tinyxml2::XMLDocument*, std::string> files_;
  std::vector<std::string> include_stack_;
  std::vector<DefaultClass> classes_;
  std::map<std::string, int> class_index_;
};

/// The attributes of one element, looked up through its class, read as typed values. `owner`
/// names the element in messages ("joint 'knee'").
class Attrs {
 public:
  Attrs(const Xml& xml, const Element* e, int cls, std::string kind, std::string owner)
      : xml_(xml), e_(e), cls_(cls), kind_(std::move(kind)), owner_(std::move(owner)) {}

  [[nodiscard]] const Element* element() const { return e_; }
  [[nodiscard]] const std::string& owner() const { return owner_; }
  [[nodiscard]] std::optional<Value> get(const char* name) const { return xml_.lookup(e_, cls_, kind_, name); }
  [[nodiscard]] bool has(const char* name) const { return get(name).has_value(); }
  /// Fails at the line where attribute `name` was written (the element's when absent).
  [[noreturn]] void fail(const char* name, const std::string& message) const;

  [[nodiscard]] std::string text(const char* name, const std::string& fallback = {}) const;
  /// Between `min` and `max` finite numbers; empty when absent.
  [[nodiscard]] std::vector<double> numbers(const char* name, int min, int max) const;
  /// Up to `max` numbers; when the element gives fewer, the rest come from its class's value
  /// (MuJoCo reads `size` over the default's: size="0.02" on a default "0.03 0.1" is 0.02 0.1).
  [[nodiscard]] std::vector<double> numbersOverClass(const char* name, int max) const;
  [[nodiscard]] double number(const char* name, double fallback) const;
  [[nodiscard]] Vector3d vec3(const char* name, const Vector3d& fallback) const;
  /// "true" or "false".
  [[nodiscard]] bool boolean(const char* name, bool fallback) const;
  /// "true", "false" or "auto" (MuJoCo's limited, ctrllimited, …): auto → `when_auto`.
  [[nodiscard]] bool tristate(const char* name, bool when_auto) const;
  [[nodiscard]] long integer(const char* name, long fallback, long min, long max) const;
  /// The element's rotation from quat, axisangle, euler, xyaxes or zaxis (identity when none);
  /// throws ParseError when the element gives more than one or a degenerate one.
  [[nodiscard]] Matrix3d orientation(const Compiler& compiler) const;

 private:
  std::vector<double> parse(const Value& v, const char* name, int min, int max) const;
  const Xml& xml_;
  const Element* e_;
  int cls_;
  std::string kind_;
  std::string owner_;
};

/// MuJoCo's rotation taking +z to the direction v (the shortest arc; π about x for −z).
Matrix3d zAxisRotation(const Vector3d& v);

}  // namespace kinetrack::io::mjcf
