// The libtorch side of models/torch_backend.h: defined in the loadable module
// (liblogsift_torch.so) only, and included by its translation units only.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "models/sentence_encoder.h"
#include "models/token_scorer.h"
#include "models/torch_runtime.h"
#include "models/weights_file.h"

namespace logsift::models::torch_side {

// The caching CPU allocator (once; the loaders call it before their first tensor).
void install_allocator();
void configure_threads(int intra_op_threads);
TorchAllocatorStats allocator_stats();
RuntimeInfo runtime_info();

std::unique_ptr<TokenScorer> load_scorer(const std::string& path, std::string_view blob, bool native);
std::unique_ptr<SentenceEncoder> load_encoder(const EncoderOptions& options, std::string_view blob);
std::string check_weights(std::string_view torchscript, const WeightsFile& weights, const std::string& origin);

}  // namespace logsift::models::torch_side
