// Model files shipped in models/ and embedded in the binary at build time
// (models/builtin_models.cpp, .incbin), so `logsift serve` needs no files.
#pragma once

#include <string_view>

namespace logsift::models {

std::string_view builtin_denoiser();

}  // namespace logsift::models
