#include "lab/step_marker.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lab/subprocess.h"

// The marker's source is always embedded (for a run-time compile); the
// object only when CMake found clang (CCREPLAY_STEP_MARKER_OBJECT).
#define CCREPLAY_INCBIN(symbol, path)                                  \
  asm(".pushsection .rodata\n.balign 8\n.global " #symbol "\n" #symbol \
      ":\n.incbin \"" path "\"\n.global " #symbol "_end\n" #symbol     \
      "_end:\n.byte 0\n.popsection\n")

CCREPLAY_INCBIN(ccreplay_step_marker_source, CCREPLAY_STEP_MARKER_SOURCE);
extern "C" const char ccreplay_step_marker_source[];
extern "C" const char ccreplay_step_marker_source_end[];
#ifdef CCREPLAY_STEP_MARKER_OBJECT
CCREPLAY_INCBIN(ccreplay_step_marker_object, CCREPLAY_STEP_MARKER_OBJECT);
extern "C" const char ccreplay_step_marker_object[];
extern "C" const char ccreplay_step_marker_object_end[];
#endif

namespace ccreplay::lab {
namespace {

constexpr char kRateSymbol[] = "step_marker_rate_bits_per_s";
constexpr char kThresholdSymbol[] = "step_marker_threshold_bytes";

absl::Status ElfError(size_t offset, absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat("step marker object, offset ", offset, ": ", reason));
}

template <typename T>
absl::StatusOr<T> ReadAt(const std::string& elf, size_t offset,
                         absl::string_view what) {
  if (offset > elf.size() || elf.size() - offset < sizeof(T)) {
    return ElfError(offset,
                    absl::StrCat(what, " lies beyond the end of the file"));
  }
  T value;
  std::memcpy(&value, elf.data() + offset, sizeof(T));
  return value;
}

// File offset of the 8-byte variable `symbol`, which must be in .rodata.
// long: one walk of the ELF symbol tables, every read bounds-checked.
absl::StatusOr<size_t> RodataOffset(const std::string& elf,
                                    absl::string_view symbol) {
  absl::StatusOr<Elf64_Ehdr> header = ReadAt<Elf64_Ehdr>(elf, 0, "ELF header");
  if (!header.ok()) return header.status();
  if (std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS64) {
    return ElfError(0, "not an ELF64 object");
  }
  auto section = [&](size_t index) {
    return ReadAt<Elf64_Shdr>(elf, header->e_shoff + index * sizeof(Elf64_Shdr),
                              "section header");
  };
  if (header->e_shstrndx >= header->e_shnum)
    return ElfError(0, "bad e_shstrndx");
  absl::StatusOr<Elf64_Shdr> names = section(header->e_shstrndx);
  if (!names.ok()) return names.status();
  auto c_string = [&](size_t offset) -> absl::StatusOr<absl::string_view> {
    if (offset >= elf.size())
      return ElfError(offset, "string beyond the end of the file");
    const char* start = elf.data() + offset;
    size_t length = strnlen(start, elf.size() - offset);
    return absl::string_view(start, length);
  };
  for (size_t i = 0; i < header->e_shnum; ++i) {
    absl::StatusOr<Elf64_Shdr> symtab = section(i);
    if (!symtab.ok()) return symtab.status();
    if (symtab->sh_type != SHT_SYMTAB) continue;
    absl::StatusOr<Elf64_Shdr> strtab = section(symtab->sh_link);
    if (!strtab.ok()) return strtab.status();
    for (size_t s = 0; s * sizeof(Elf64_Sym) < symtab->sh_size; ++s) {
      size_t sym_offset = symtab->sh_offset + s * sizeof(Elf64_Sym);
      absl::StatusOr<Elf64_Sym> sym =
          ReadAt<Elf64_Sym>(elf, sym_offset, "symbol");
      if (!sym.ok()) return sym.status();
      absl::StatusOr<absl::string_view> name =
          c_string(strtab->sh_offset + sym->st_name);
      if (!name.ok()) return name.status();
      if (*name != symbol) continue;
      if (sym->st_shndx >= header->e_shnum || sym->st_size != 8) {
        return ElfError(
            sym_offset,
            absl::StrCat(symbol, " is not an 8-byte section variable"));
      }
      absl::StatusOr<Elf64_Shdr> home = section(sym->st_shndx);
      if (!home.ok()) return home.status();
      absl::StatusOr<absl::string_view> home_name =
          c_string(names->sh_offset + home->sh_name);
      if (!home_name.ok()) return home_name.status();
      if (*home_name != ".rodata") {
        return ElfError(sym_offset, absl::StrCat(symbol, " is in ", *home_name,
                                                 ", not .rodata"));
      }
      size_t offset = home->sh_offset + sym->st_value;
      if (sym->st_value + 8 > home->sh_size || offset + 8 > elf.size()) {
        return ElfError(offset, absl::StrCat(symbol, " lies outside .rodata"));
      }
      return offset;
    }
  }
  return ElfError(0, absl::StrCat("no symbol ", symbol));
}

#ifndef CCREPLAY_STEP_MARKER_OBJECT
absl::StatusOr<std::string> CompileNow(absl::string_view work_dir) {
  std::string clang = FindProgram("clang");
  if (clang.empty()) {
    return absl::FailedPreconditionError(
        "the step marker needs clang with the BPF target (not found in PATH, "
        "and this "
        "binary was built without clang)");
  }
  std::string source_path = absl::StrCat(work_dir, "/step_marker.bpf.c");
  std::string object_path = absl::StrCat(work_dir, "/step_marker.bpf.o");
  {
    std::ofstream source(source_path, std::ios::binary);
    source.write(ccreplay_step_marker_source,
                 ccreplay_step_marker_source_end - ccreplay_step_marker_source);
    if (!source)
      return absl::InternalError(absl::StrCat("cannot write ", source_path));
  }
  absl::StatusOr<std::string> output =
      RunProgram({clang, "-O2", "-g", "-target", "bpf",
                  "-I/usr/include/" CCREPLAY_MULTIARCH, "-c", source_path, "-o",
                  object_path});
  if (!output.ok()) return output.status();
  std::ifstream object(object_path, std::ios::binary);
  std::stringstream bytes;
  bytes << object.rdbuf();
  return bytes.str();
}
#endif

}  // namespace

absl::StatusOr<StepMarkerObject> LoadStepMarkerObject(
    absl::string_view work_dir) {
#ifdef CCREPLAY_STEP_MARKER_OBJECT
  (void)work_dir;
  return StepMarkerObject{
      std::string(ccreplay_step_marker_object, ccreplay_step_marker_object_end -
                                                   ccreplay_step_marker_object),
      "build-time"};
#else
  absl::StatusOr<std::string> elf = CompileNow(work_dir);
  if (!elf.ok()) return elf.status();
  return StepMarkerObject{*std::move(elf), "run-time"};
#endif
}

absl::Status PatchRodataU64(std::string& elf, absl::string_view symbol,
                            uint64_t value) {
  absl::StatusOr<size_t> offset = RodataOffset(elf, symbol);
  if (!offset.ok()) return offset.status();
  std::memcpy(elf.data() + *offset, &value,
              sizeof(value));  // BPF target = host order
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReadRodataU64(const std::string& elf,
                                       absl::string_view symbol) {
  absl::StatusOr<size_t> offset = RodataOffset(elf, symbol);
  if (!offset.ok()) return offset.status();
  return ReadAt<uint64_t>(elf, *offset, symbol);
}

absl::Status ConfigureStepMarker(std::string& elf, int64_t rate_bits_per_s,
                                 int64_t threshold_bytes) {
  if (rate_bits_per_s <= 0 || threshold_bytes <= 0) {
    return absl::InvalidArgumentError(
        "step marker needs a positive rate and threshold");
  }
  absl::Status status = PatchRodataU64(elf, kRateSymbol, rate_bits_per_s);
  if (!status.ok()) return status;
  return PatchRodataU64(elf, kThresholdSymbol, threshold_bytes);
}

}  // namespace ccreplay::lab
