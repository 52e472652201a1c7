#include "testing/robot_fixtures.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <vector>

namespace kinetrack::testing {

std::string renamedUrdf(std::string urdf_text, std::map<std::string, std::string>& renamed, unsigned seed) {
  urdf_text = std::regex_replace(urdf_text, std::regex(R"(<!--[\s\S]*?-->)"), "");
  const std::regex element(R"((<link\b[^>]*?/>|<link\b[\s\S]*?</link>|<joint\b[\s\S]*?</joint>))");
  std::vector<std::string> elements;
  std::string head;
  std::size_t end = 0;
  for (auto it = std::sregex_iterator(urdf_text.begin(), urdf_text.end(), element); it != std::sregex_iterator();
       ++it) {
    if (elements.empty()) head = urdf_text.substr(0, static_cast<std::size_t>(it->position()));
    elements.push_back(it->str());
    end = static_cast<std::size_t>(it->position() + it->length());
  }
  const std::string tail = urdf_text.substr(end);
  std::vector<std::string> links, joints;
  const std::regex name_attr(R"re(^<(link|joint)\s+name="([^"]+)")re");
  for (const std::string& e : elements) {
    std::smatch m;
    if (std::regex_search(e, m, name_attr)) (m[1] == "link" ? links : joints).push_back(m[2]);
  }
  std::mt19937 rng(seed);
  std::shuffle(links.begin(), links.end(), rng);
  std::shuffle(joints.begin(), joints.end(), rng);
  char buf[32];
  for (std::size_t i = 0; i < links.size(); ++i) std::snprintf(buf, sizeof buf, "l%02zu", i), renamed[links[i]] = buf;
  for (std::size_t i = 0; i < joints.size(); ++i) std::snprintf(buf, sizeof buf, "j%02zu", i), renamed[joints[i]] = buf;
  const std::regex ref(R"re(((?:<link|<joint)\s+name|\slink)="([^"]+)")re");
  std::string out = head;
  for (auto e = elements.rbegin(); e != elements.rend(); ++e) {
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(e->begin(), e->end(), ref); it != std::sregex_iterator(); ++it) {
      const std::smatch& m = *it;
      out += e->substr(last, static_cast<std::size_t>(m.position()) - last);
      const auto found = renamed.find(m[2]);
      out += m[1].str() + "=\"" + (found != renamed.end() ? found->second : m[2].str()) + "\"";
      last = static_cast<std::size_t>(m.position() + m.length());
    }
    out += e->substr(last) + "\n  ";
  }
  return out + tail;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kinetrack::testing
