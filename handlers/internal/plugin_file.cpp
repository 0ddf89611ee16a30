// Plugin file: the exported ABI version read from a plugin's ELF symbol table.
#include "handlers/internal/plugin_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany {
namespace {

constexpr std::string_view kSymbol = "tiffany_plugin_abi_version";

// Reads exactly `size` bytes at `offset`; false on a short or failed read.
bool read_at(int fd, void* into, std::size_t size, std::uint64_t offset) {
  auto* bytes = static_cast<char*>(into);
  while (size > 0) {
    const ssize_t n = ::pread(fd, bytes, size, static_cast<off_t>(offset));
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

template <class T>
bool read_table(int fd, const Elf64_Shdr& section, std::vector<T>& table) {
  if (section.sh_entsize != sizeof(T) || section.sh_size % sizeof(T) != 0 || section.sh_size > (64u << 20)) return false;
  table.resize(section.sh_size / sizeof(T));
  return read_at(fd, table.data(), section.sh_size, section.sh_offset);
}

}  // namespace

std::optional<unsigned> read_plugin_abi_version(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  Elf64_Ehdr header{};
  if (!read_at(fd.get(), &header, sizeof header, 0) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_type != ET_DYN || header.e_shentsize != sizeof(Elf64_Shdr)) {
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!read_at(fd.get(), sections.data(), sections.size() * sizeof(Elf64_Shdr), header.e_shoff)) return std::nullopt;

  for (const Elf64_Shdr& table : sections) {
    if (table.sh_type != SHT_DYNSYM || table.sh_link >= sections.size()) continue;
    std::vector<Elf64_Sym> symbols;
    std::vector<char> names;
    const Elf64_Shdr& strings = sections[table.sh_link];
    names.resize(strings.sh_size);
    if (!read_table(fd.get(), table, symbols) || strings.sh_size > (64u << 20) ||
        !read_at(fd.get(), names.data(), names.size(), strings.sh_offset)) {
      return std::nullopt;
    }
    for (const Elf64_Sym& symbol : symbols) {
      if (symbol.st_name >= names.size() || symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= sections.size()) continue;
      const char* name = names.data() + symbol.st_name;
      if (std::string_view(name, ::strnlen(name, names.size() - symbol.st_name)) != kSymbol) continue;
      // Why the section's data: a constant initialised at compile time sits
      // there as it will in memory (no relocation touches an unsigned).
      const Elf64_Shdr& holder = sections[symbol.st_shndx];
      if (symbol.st_size != sizeof(unsigned) || holder.sh_type != SHT_PROGBITS || symbol.st_value < holder.sh_addr ||
          symbol.st_value - holder.sh_addr + sizeof(unsigned) > holder.sh_size) {
        return std::nullopt;
      }
      unsigned version = 0;
      if (!read_at(fd.get(), &version, sizeof version, holder.sh_offset + (symbol.st_value - holder.sh_addr))) {
        return std::nullopt;
      }
      return version;
    }
  }
  return std::nullopt;
}

}  // namespace tiffany
