// MIME types by file extension, for the static handler.
#pragma once

#include <string_view>

namespace tiffany {

/// The Content-Type for `file_name` by its extension; application/octet-stream if unknown.
std::string_view mime_type_for(std::string_view file_name) noexcept;

}  // namespace tiffany
