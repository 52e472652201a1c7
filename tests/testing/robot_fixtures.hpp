#pragma once
// Robots for the robot-map tests (issue 38): a URDF with every name made meaningless and its
// elements listed in another order, to prove that the automatic robot map reads the tree and the
// geometry, not the names.
#include <map>
#include <string>

namespace kinetrack::testing {

/// `urdf_text` with comments removed, every <link> and <joint> renamed ("l07", "j12": numbered in
/// an order shuffled with `seed`), the references to them (<parent link>, <child link>) renamed
/// alike, and the link and joint elements listed in reverse order (so every link's children come
/// in the other order). `renamed` receives old name → new name.
std::string renamedUrdf(std::string urdf_text, std::map<std::string, std::string>& renamed, unsigned seed = 38);

/// The text of a file (empty when it cannot be read).
std::string readText(const std::string& path);

}  // namespace kinetrack::testing
