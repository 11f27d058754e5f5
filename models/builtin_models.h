// Model files shipped in models/ and embedded in the binary at build time
// (models/builtin_models.cpp, .incbin), so `logsift serve` needs no files.
#pragma once

#include <string_view>

namespace logsift::models {

std::string_view builtin_denoiser();
// The encoder (CMake LOGSIFT_ENCODER_FILE, default models/encoder-v1.pt); empty
// when that file did not exist at configure time (LOGSIFT_HAVE_BUILTIN_ENCODER=0).
std::string_view builtin_encoder();
// The weights files beside them (models/weights_file.h); empty when the build
// had none, and then the built-in models need libtorch.
std::string_view builtin_denoiser_weights();
std::string_view builtin_encoder_weights();

}  // namespace logsift::models
