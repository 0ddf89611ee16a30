// tiffany: the server binary. Parses the command line, loads the config, runs.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <tiffany/coro/offload_pool.hpp>
#include <tiffany/handlers/plugin_logger.hpp>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"
#include "server/build_protocols.hpp"
#include "server/load_handlers.hpp"
#include "server/log/error_log.hpp"
#include "server/pid_file.hpp"
#include "server/binary_upgrade.hpp"
#include "server/privileges.hpp"
#include "server/server.hpp"
#include "server/server_signals.hpp"
#include "server/socket_offers.hpp"
#include "server/systemd_notify.hpp"
#include "server/version.hpp"

namespace {

constexpr const char* kDefaultConfig = "conf/tiffany.json";

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // bad config, cannot listen, no I/O backend
constexpr int kExitUsage = 2;

// `--signal` names and the signals they send to the running server.
struct SignalCommand {
  std::string_view name;
  int signal;
};
constexpr SignalCommand kSignalCommands[] = {
    {"reload", SIGHUP}, {"reopen", SIGUSR1}, {"upgrade", SIGUSR2}, {"stop", SIGTERM}};

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "Usage: tiffany [--config FILE] [--check-config]\n"
               "       tiffany [--config FILE] --signal reload|reopen|upgrade|stop\n"
               "       tiffany --help | --version\n"
               "\n"
               "Serves the listeners described in FILE (default: %s) until SIGINT or SIGTERM;\n"
               "SIGHUP reloads FILE, SIGUSR1 reopens the log files, SIGUSR2 starts the binary\n"
               "installed at this one's path and hands it the listening sockets.\n"
               "\n"
               "  --config FILE    the JSON config to serve\n"
               "  --check-config   validate the config and exit (0 if valid)\n"
               "  --signal NAME    signal the server whose pid_file FILE names: reload (SIGHUP,\n"
               "                   after the checks of --check-config), reopen (SIGUSR1),\n"
               "                   upgrade (SIGUSR2), stop (SIGTERM)\n"
               "  --help           show this text\n"
               "  --version        show the version\n",
               kDefaultConfig);
}

// A reason not to start: always on standard error, and in the error log too
// when that is a file of its own.
void refuse(const char* kind, const char* what) {
  std::fprintf(stderr, "tiffany: %s: %s\n", kind, what);
  if (!tiffany::error_log().to_stderr()) tiffany::error_log().log(tiffany::LogLevel::crit, "%s: %s", kind, what);
}

// Plugins' Logger lines go to the error log, with its level and format.
class ErrorLogSink final : public tiffany::LogSink {
 public:
  bool enabled(tiffany::LogLevel level) const noexcept override { return tiffany::error_log().enabled(level); }
  void write(tiffany::LogLevel level, std::string_view line) noexcept override {
    tiffany::error_log().log(level, "%.*s", static_cast<int>(line.size()), line.data());
  }
};

// Validates what start-up would, without binding: certificates, plugins, routes and handler params.
void check_config(const tiffany::Config& config) {
  const std::unique_ptr<tiffany::LoadedHandlers> handlers = tiffany::load_handlers(config);
  (void)tiffany::build_protocols(config, handlers->registry, handlers->builtins_checking,
                                 tiffany::build_tls_contexts(config));
}

// The file name of the program at `path` (or a /proc/PID/exe link to it);
// "" when it cannot be read (another user's process).
std::string program_name(const std::filesystem::path& path) {
  std::error_code error;
  std::string target = path.string().starts_with("/proc/") ? std::filesystem::read_symlink(path, error).string()
                                                            : path.string();
  if (error) return "";
  constexpr std::string_view kDeleted = " (deleted)";  // the file was replaced since it started
  if (target.ends_with(kDeleted)) target.resize(target.size() - kDeleted.size());
  return std::filesystem::path(target).filename().string();
}

// --signal: finds the server by the config's pid file and signals it.
int send_signal_command(const SignalCommand& command, const tiffany::Config& config) {
  if (config.pid_file.empty()) {
    throw tiffany::ConfigError(config.file, "$.pid_file",
                               "missing: --signal finds the running server by its pid file");
  }
  if (command.signal == SIGHUP) check_config(config);  // a reload of a bad config would be refused anyway
  const pid_t pid = tiffany::read_pid_file(config.pid_file);
  // Why look: a pid file a killed server left behind may name another program by now.
  const std::string running = program_name(std::filesystem::path("/proc/" + std::to_string(pid) + "/exe"));
  const std::string ours = program_name(tiffany::executable_path());
  if (!running.empty() && !ours.empty() && running != ours) {
    throw std::runtime_error("process " + std::to_string(pid) + " (from " + config.pid_file + ") runs " + running +
                             ", not " + ours + ": the pid file is stale");
  }
  if (::kill(pid, command.signal) != 0) {
    throw std::runtime_error("cannot signal process " + std::to_string(pid) + " (from " + config.pid_file +
                             "): " + std::strerror(errno));
  }
  std::printf("tiffany: sent %s to process %d\n", tiffany::signal_name(command.signal), static_cast<int>(pid));
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path = kDefaultConfig;
  bool check_only = false;
  const SignalCommand* signal_command = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      return kExitOk;
    }
    if (arg == "--version") {
      std::printf("tiffany %s\n", tiffany::kVersion);
      return kExitOk;
    }
    if (arg == "--check-config") {
      check_only = true;
    } else if (arg == "--signal" && i + 1 < argc) {
      const std::string_view name = argv[++i];
      for (const SignalCommand& command : kSignalCommands) {
        if (command.name == name) signal_command = &command;
      }
      if (signal_command == nullptr) {
        std::fprintf(stderr, "tiffany: unknown --signal '%s'\n", argv[i]);
        print_usage(stderr);
        return kExitUsage;
      }
    } else if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (arg.starts_with("--config=")) {
      config_path = std::string(arg.substr(std::strlen("--config=")));
    } else {
      std::fprintf(stderr, "tiffany: unknown or incomplete argument '%s'\n", argv[i]);
      print_usage(stderr);
      return kExitUsage;
    }
  }

  // Why first: both read what the process started with (its environment,
  // its binary's path) before threads start or a package replaces the file.
  tiffany::UpgradeReadyPipe predecessor;
  const tiffany::UpgradeContext upgrade{tiffany::executable_path(), std::vector<std::string>(argv, argv + argc),
                                        &predecessor};
  try {
    tiffany::Config config = tiffany::load_config(config_path);
    if (signal_command != nullptr) return send_signal_command(*signal_command, config);
    const std::optional<tiffany::RunAs> run_as = tiffany::resolve_run_as(config);  // a missing user refuses here
    // Why: --check-config only reads; opening the log would create its file.
    if (!check_only) tiffany::open_error_log(config);
    // Why this early: a thread started before the mask (a plugin's, the offload
    // pool's) could take SIGHUP or SIGUSR1 and die of its default action.
    tiffany::UniqueFd signals;
    if (!check_only) signals = tiffany::block_server_signals();
    static ErrorLogSink plugin_log_sink;  // Why static: plugins may log until the process exits
    tiffany::set_log_sink(&plugin_log_sink);
    if (check_only) {
      // Certificates, routes and handler params, without binding.
      check_config(config);
      for (const std::string& warning : config.warnings) std::fprintf(stderr, "tiffany: warning: %s\n", warning.c_str());
      std::printf("tiffany: %s is valid (%zu listeners)\n", config_path.c_str(), config.listeners.size());
      return kExitOk;
    }
    const tiffany::SystemdNotify notify;  // Why before the privilege drop: the socket may be root's
    if (config.offload_threads != 0) tiffany::OffloadPool::configure_default(config.offload_threads);
    const std::vector<tiffany::PluginConfig> plugins = config.plugins;
    const std::vector<std::string> warnings = config.warnings;
    tiffany::Server server(std::move(config), tiffany::take_inherited_sockets());
    // Every listener is bound: nothing left that needs root.
    if (run_as) {
      tiffany::drop_privileges(*run_as);
      tiffany::error_log().log(tiffany::LogLevel::notice, "running as user %s (uid %u), group %s (gid %u)",
                               run_as->user.c_str(), static_cast<unsigned>(run_as->uid), run_as->group.c_str(),
                               static_cast<unsigned>(run_as->gid));
    }
    // Why: only once everything is checked, so a refusal stays one line.
    for (const tiffany::PluginConfig& plugin : plugins) {
      tiffany::error_log().log(tiffany::LogLevel::info, "loaded plugin %s", plugin.path.c_str());
    }
    for (const std::string& warning : warnings) tiffany::error_log().log(tiffany::LogLevel::warn, "%s", warning.c_str());
    return server.run(signals.get(), notify, upgrade);
  } catch (const tiffany::ConfigError& e) {
    refuse("config error", e.what());
  } catch (const std::system_error& e) {
    refuse("cannot start", e.what());
  } catch (const std::exception& e) {
    refuse("fatal", e.what());
  }
  return kExitFailure;
}
