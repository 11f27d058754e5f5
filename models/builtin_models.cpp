#include "models/builtin_models.h"

// The paths come from CMake (LOGSIFT_DENOISER_FILE, LOGSIFT_ENCODER_FILE);
// OBJECT_DEPENDS rebuilds this file when a model changes.
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

#if LOGSIFT_HAVE_BUILTIN_ENCODER
__asm__(
    ".section .rodata\n"
    ".balign 64\n"
    ".global logsift_encoder_begin\n"
    "logsift_encoder_begin:\n"
    ".incbin \"" LOGSIFT_STR(LOGSIFT_ENCODER_FILE) "\"\n"
    ".global logsift_encoder_end\n"
    "logsift_encoder_end:\n"
    ".previous\n");

extern "C" const char logsift_encoder_begin[];
extern "C" const char logsift_encoder_end[];
#endif

namespace logsift::models {

std::string_view builtin_denoiser() {
  return {logsift_denoiser_begin, static_cast<size_t>(logsift_denoiser_end - logsift_denoiser_begin)};
}

std::string_view builtin_encoder() {
#if LOGSIFT_HAVE_BUILTIN_ENCODER
  return {logsift_encoder_begin, static_cast<size_t>(logsift_encoder_end - logsift_encoder_begin)};
#else
  return {};
#endif
}

}  // namespace logsift::models
