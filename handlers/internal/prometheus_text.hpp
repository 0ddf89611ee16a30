// prometheus_text: what every /metrics family writes: its HELP and TYPE, samples, and sums over workers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tiffany::prometheus {

/// "# HELP name help" and "# TYPE name type".
inline void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
  out.append(type).append("\n");
}

/// "name{labels} value", `name_and_labels` already joined.
inline void sample(std::string& out, std::string_view name_and_labels, std::uint64_t value) {
  out.append(name_and_labels).append(" ").append(std::to_string(value)).append("\n");
}
inline void sample(std::string& out, std::string_view name_and_labels, double value) {
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", value);
  out.append(name_and_labels).append(" ").append(number).append("\n");
}

/// A counter written by one worker, read by the thread rendering.
inline std::uint64_t read(const std::atomic<std::uint64_t>& counter) {
  return counter.load(std::memory_order_relaxed);
}

/// Adds up `entries` (one per worker and listener, or server...) by their
/// label set, `labels_of(entry)`, keeping the order each set first appears:
/// `add(sum, entry)` for each.
template <class Sum, class Entries, class LabelsOf, class Add>
std::vector<std::pair<std::string, Sum>> sums_by_labels(const Entries& entries, LabelsOf labels_of, Add add) {
  std::vector<std::pair<std::string, Sum>> sums;
  for (const auto& entry : entries) {
    std::string labels = labels_of(entry);
    auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& known) { return known.first == labels; });
    if (it == sums.end()) it = sums.insert(sums.end(), {std::move(labels), Sum{}});
    add(it->second, entry);
  }
  return sums;
}

}  // namespace tiffany::prometheus
