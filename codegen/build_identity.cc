#include "codegen/build_identity.h"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/llvm_pipeline.h"
#include "ir/status_macros.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/xxhash.h"

namespace mxla {
namespace {

struct Search {
  uintptr_t address = 0;
  std::string identity;
  bool found = false;
};

// The build ID note among one binary's notes, as hex; empty if none.
std::string BuildIdNote(const dl_phdr_info& info, const ElfW(Phdr) & note) {
  const char* at = reinterpret_cast<const char*>(info.dlpi_addr + note.p_vaddr);
  const char* end = at + note.p_memsz;
  auto aligned = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (at + sizeof(ElfW(Nhdr)) <= end) {
    const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(at);
    const char* name = at + sizeof(ElfW(Nhdr));
    const unsigned char* desc = reinterpret_cast<const unsigned char*>(
        name + aligned(header->n_namesz));
    if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
        std::memcmp(name, "GNU", 4) == 0) {
      std::string hex;
      for (size_t i = 0; i < header->n_descsz; ++i) {
        absl::StrAppendFormat(&hex, "%02x", desc[i]);
      }
      return hex;
    }
    at = reinterpret_cast<const char*>(desc) + aligned(header->n_descsz);
  }
  return "";
}

int VisitBinary(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    contains = segment.p_type == PT_LOAD && search->address >= start &&
               search->address < start + segment.p_memsz;
  }
  if (!contains) return 0;
  search->found = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_NOTE) continue;
    std::string id = BuildIdNote(*info, info->dlpi_phdr[i]);
    if (!id.empty()) {
      search->identity = absl::StrCat("build-id ", id);
      return 1;
    }
  }
  // No build ID: the file as it is on disk.
  const char* path = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0'
                         ? info->dlpi_name
                         : "/proc/self/exe";
  struct stat status;
  if (stat(path, &status) == 0) {
    search->identity =
        absl::StrCat("file ", path, " size ", status.st_size, " mtime ",
                     status.st_mtim.tv_sec, ".", status.st_mtim.tv_nsec);
  } else {
    search->identity = absl::StrCat("file ", path);
  }
  return 1;
}

}  // namespace

std::string BinaryIdentity(const void* address) {
  Search search;
  search.address = reinterpret_cast<uintptr_t>(address);
  dl_iterate_phdr(VisitBinary, &search);
  return search.found ? search.identity : "";
}

absl::StatusOr<std::string> BackendIdentity() {
  static const absl::StatusOr<std::string>* identity = [] {
    auto compute = []() -> absl::StatusOr<std::string> {
      ASSIGN_OR_RETURN(std::string target, codegen::HostTargetDescription());
      // An LLVM function's address finds LLVM's binary (libLLVM, or this
      // one when LLVM is linked statically).
      const void* llvm_code = reinterpret_cast<const void*>(
          static_cast<uint64_t (*)(llvm::ArrayRef<uint8_t>)>(
              &llvm::xxh3_64bits));
      return absl::StrCat("llvm ", LLVM_VERSION_STRING, " (",
                          BinaryIdentity(llvm_code), ") target ", target);
    };
    return new absl::StatusOr<std::string>(compute());
  }();
  return *identity;
}

std::string ContentHash(absl::string_view bytes) {
  const llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return absl::StrFormat("%016x%016x", hash.high64, hash.low64);
}

}  // namespace mxla
