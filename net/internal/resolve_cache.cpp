// ResolveCache: lookup with expiry, and a bound on the number of names.
#include "net/internal/resolve_cache.hpp"

#include <algorithm>
#include <cctype>

namespace tiffany::detail {

const ResolveResult* ResolveCache::find(const std::string& host, TimePoint now) const {
  const auto entry = entries_.find(host);
  if (entry == entries_.end() || entry->second.expires <= now) return nullptr;
  return &entry->second.result;
}

void ResolveCache::store(const std::string& host, ResolveResult result, TimePoint expires, TimePoint now) {
  if (expires <= now || max_entries_ == 0) return;
  if (entries_.size() >= max_entries_ && entries_.find(host) == entries_.end()) {
    std::erase_if(entries_, [now](const auto& entry) { return entry.second.expires <= now; });
    // Why all: a flood of distinct names must not grow the worker without bound.
    if (entries_.size() >= max_entries_) entries_.clear();
  }
  entries_.insert_or_assign(host, Entry{std::move(result), expires});
}

std::string ResolveCache::key(std::string host) {
  if (host.ends_with('.')) host.pop_back();
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return host;
}

}  // namespace tiffany::detail
