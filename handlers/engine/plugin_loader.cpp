// Plugin loading: dlopen, ABI check, registration with name checks.
#include "handlers/engine/plugin_loader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <optional>

#include <tiffany/handlers/plugin_api.hpp>

#include "handlers/internal/plugin_copy.hpp"
#include "handlers/internal/plugin_file.hpp"

namespace tiffany {
namespace {

using InitFunction = void (*)(PluginRegistrar&, unsigned);

bool is_valid_handler_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Registers a plugin's handlers, remembering which plugin each came from.
class RegistryRegistrar final : public PluginRegistrar {
 public:
  RegistryRegistrar(HandlerRegistry& registry, LoadedPlugin& plugin)
      : registry_(registry), origin_(plugin.path()), plugin_(plugin) {}

  void add_handler(const std::string& name, HandlerFactory factory) override {
    if (!is_valid_handler_name(name)) {
      throw std::invalid_argument("handler name \"" + name + "\" is not made of letters, digits, '.', '_', '-'");
    }
    if (registry_.find(name) != nullptr) {
      throw std::invalid_argument("handler \"" + name + "\" is already registered by " + registry_.origin(name));
    }
    registry_.add(name, std::move(factory), origin_, &plugin_);
  }

  void set_plugin(std::unique_ptr<Plugin> plugin) override { PluginHost::set_hooks(plugin_, std::move(plugin)); }

  void add_middleware(const std::string& name, MiddlewareFactory factory) override {
    if (!is_valid_handler_name(name)) {
      throw std::invalid_argument("middleware name \"" + name + "\" is not made of letters, digits, '.', '_', '-'");
    }
    MiddlewareRegistry& middleware = registry_.middleware();
    if (middleware.find(name) != nullptr) {
      throw std::invalid_argument("middleware \"" + name + "\" is already registered by " + middleware.origin(name));
    }
    middleware.add(name, std::move(factory), origin_, &plugin_);
  }

 private:
  HandlerRegistry& registry_;
  const std::string& origin_;
  LoadedPlugin& plugin_;
};

// Refuses, with a sentence, a plugin whose exported version stamp differs
// from ours: another ABI number, or other build flags.
void check_abi_version(const std::string& path, unsigned theirs) {
  const unsigned their_number = theirs & 0xffffu;
  if (their_number != kPluginAbiNumber) {
    throw PluginError("\"" + path + "\" was built for plugin ABI " + std::to_string(their_number) +
                      ", but this tiffany speaks plugin ABI " + std::to_string(kPluginAbiNumber) +
                      "; rebuild it against this tiffany's SDK");
  }
  if (theirs != kPluginAbiVersion) {
    throw PluginError("\"" + path + "\" was " +
                      detail::describe_build_flag_mismatch(theirs >> 16, kPluginAbiVersion >> 16) +
                      "; rebuild it with the SDK's settings (find_package(Tiffany) and tiffany_add_plugin add none of these)");
  }
}

}  // namespace

void load_plugin(const std::string& path, HandlerRegistry& registry, PluginHost& host) {
  if (::access(path.c_str(), R_OK) != 0) throw PluginError("cannot find plugin file \"" + path + "\"");
  // Why before dlopen: a plugin built with other flags may fail to load with
  // a bare mangled "undefined symbol", and its constructors would run first.
  const std::string file = plugin_path_to_load(path);  // a private copy when it changed since first loaded
  if (const std::optional<unsigned> stamp = read_plugin_abi_version(file)) check_abi_version(path, *stamp);
  // Why: RTLD_NOW finds missing symbols at start-up rather than mid-request;
  // RTLD_LOCAL keeps two plugins' own symbols from colliding.
  void* library = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = ::dlerror();
    throw PluginError("cannot load \"" + path + "\": " + (error ? error : "unknown dlopen error"));
  }
  const auto* version = static_cast<const unsigned*>(::dlsym(library, "tiffany_plugin_abi_version"));
  auto init = reinterpret_cast<InitFunction>(::dlsym(library, "tiffany_plugin_init"));
  if (version == nullptr || init == nullptr) {
    ::dlclose(library);
    throw PluginError("\"" + path + "\" is not a Tiffany plugin: it does not export " +
                      (version == nullptr ? "tiffany_plugin_abi_version" : "tiffany_plugin_init"));
  }
  try {
    check_abi_version(path, *version);  // again: the file may not have said (not ELF data we read)
  } catch (...) {
    ::dlclose(library);
    throw;
  }
  LoadedPlugin& plugin = host.add(path, library);
  RegistryRegistrar registrar(registry, plugin);
  try {
    init(registrar, kPluginAbiVersion);
  } catch (const std::exception& e) {
    throw PluginError("\"" + path + "\" refused to load: " + e.what());
  }
  // The library stays mapped for the life of the process (see PluginHost).
}

}  // namespace tiffany
