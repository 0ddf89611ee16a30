// allowed_changes: a phase enum's may_follow table as the set of (from, to) names, for table tests.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>

namespace tiffany::testing {

/// Every (from, to) pair of `all` that may_follow(from, to) allows, by name().
template <class Phase, std::size_t N>
std::set<std::pair<std::string, std::string>> allowed_changes(const Phase (&all)[N]) {
  std::set<std::pair<std::string, std::string>> allowed;
  for (const Phase from : all) {
    for (const Phase to : all) {
      if (may_follow(from, to)) allowed.emplace(name(from), name(to));
    }
  }
  return allowed;
}

}  // namespace tiffany::testing
