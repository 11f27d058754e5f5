#include "models/builtin_models.h"

// The paths come from CMake (LOGSIFT_DENOISER_FILE, LOGSIFT_ENCODER_FILE);
// OBJECT_DEPENDS rebuilds this file when a model changes.
#define LOGSIFT_STR2(x) #x
#define LOGSIFT_STR(x) LOGSIFT_STR2(x)

// Embeds FILE as the read-only symbols NAME_begin / NAME_end.
#define LOGSIFT_INCBIN(NAME, FILE)          \
  __asm__(".section .rodata\n"             \
          ".balign 64\n"                    \
          ".global " #NAME "_begin\n" #NAME  \
          "_begin:\n"                       \
          ".incbin \"" FILE "\"\n"          \
          ".global " #NAME "_end\n" #NAME    \
          "_end:\n"                         \
          ".previous\n");                   \
  extern "C" const char NAME##_begin[];     \
  extern "C" const char NAME##_end[];

LOGSIFT_INCBIN(logsift_denoiser, LOGSIFT_STR(LOGSIFT_DENOISER_FILE))
#if LOGSIFT_HAVE_BUILTIN_ENCODER
LOGSIFT_INCBIN(logsift_encoder, LOGSIFT_STR(LOGSIFT_ENCODER_FILE))
#endif
#if LOGSIFT_HAVE_DENOISER_WEIGHTS
LOGSIFT_INCBIN(logsift_denoiser_weights, LOGSIFT_STR(LOGSIFT_DENOISER_WEIGHTS))
#endif
#if LOGSIFT_HAVE_ENCODER_WEIGHTS
LOGSIFT_INCBIN(logsift_encoder_weights, LOGSIFT_STR(LOGSIFT_ENCODER_WEIGHTS))
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

std::string_view builtin_denoiser_weights() {
#if LOGSIFT_HAVE_DENOISER_WEIGHTS
  return {logsift_denoiser_weights_begin,
          static_cast<size_t>(logsift_denoiser_weights_end - logsift_denoiser_weights_begin)};
#else
  return {};
#endif
}

std::string_view builtin_encoder_weights() {
#if LOGSIFT_HAVE_ENCODER_WEIGHTS
  return {logsift_encoder_weights_begin, static_cast<size_t>(logsift_encoder_weights_end - logsift_encoder_weights_begin)};
#else
  return {};
#endif
}

}  // namespace logsift::models
