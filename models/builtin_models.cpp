#include "models/builtin_models.h"

// The paths come from CMake (LOGSIFT_DENOISER_FILE); OBJECT_DEPENDS rebuilds
// this file when a model changes.
#define LOGSIFT_STR2(x) #x
#define LOGSIFT_STR(x) LOGSIFT_STR2(x)

__asm__(
    ".section .rodata\n"
    ".balign 64\n"
    ".global logsift_denoiser_begin\n"
    "logsift_denoiser_begin:\n"
    ".incbin \"" LOGSIFT_STR(LOGSIFT_DENOISER_FILE) "\"\n"
    ".global logsift_denoiser_end\n"
    "logsift_denoiser_end:\n"
    ".previous\n");

extern "C" const char logsift_denoiser_begin[];
extern "C" const char logsift_denoiser_end[];

namespace logsift::models {

std::string_view builtin_denoiser() {
  return {logsift_denoiser_begin, static_cast<size_t>(logsift_denoiser_end - logsift_denoiser_begin)};
}

}  // namespace logsift::models
