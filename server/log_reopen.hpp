// Log reopening (SIGUSR1, for logrotate): the error and access log files are opened again by path.
#pragma once

#include <string>

namespace tiffany {

struct Config;

/// Opens `path` for appending (creating it 0644) and puts the new file in
/// place of `fd` with dup3: threads writing to `fd` at that moment finish
/// their write in the old file, every later write goes to the new one, so no
/// line is lost, split or written twice. Returns "" on success, else why not
/// (then `fd` is left as it was).
std::string reopen_onto(int fd, const std::string& path);

/// Reopens the error log (when it is a file) and the access log (when
/// `access_log_fd` >= 0 and it is a file, not standard output), then logs
/// one notice line in the new error log naming them; a file that cannot be
/// opened is logged as an error and its old file stays in use. Main thread.
/// Lines a worker had buffered but not yet written (up to a second's worth)
/// go to the new access log.
void reopen_logs(const Config& config, int access_log_fd);

}  // namespace tiffany
