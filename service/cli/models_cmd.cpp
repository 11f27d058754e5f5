// logsift models check: each weights file is exactly its TorchScript source.
#include <iostream>

#include <nlohmann/json.hpp>

#include "models/builtin_models.h"
#include "models/torch_backend.h"
#include "models/weights_file.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

// One pair: the verdict as a JSON line; false when it does not hold.
bool check_pair(const std::string& name, std::string_view torchscript, std::string_view weights_bytes,
                const std::string& weights_origin) {
  json row = {{"model", name}, {"weights", weights_origin}};
  bool ok = false;
  try {
    const auto weights = models::parse_weights(weights_bytes, weights_origin);
    row["architecture"] = weights.architecture;
    row["source_sha256"] = weights.source_sha256;
    const std::string diff = models::torch_backend().check_weights(torchscript, weights, name);
    ok = diff.empty();
    if (!ok) row["error"] = diff;
  } catch (const std::exception& e) {
    row["error"] = e.what();
  }
  row["ok"] = ok;
  std::cout << row.dump() << "\n";
  return ok;
}

int cmd_models(const Args& a) {
  if (a.positional.empty() || a.positional[0] != "check") {
    std::cerr << "logsift models: the only subcommand is `check` (see --help)\n";
    return 2;
  }
  bool ok = true;
  if (a.positional.size() == 1) {
    if (models::builtin_denoiser_weights().empty() || models::builtin_encoder_weights().empty()) {
      std::cerr << "logsift models check: this build embeds no weights file for a built-in model\n";
      return 1;
    }
    ok &= check_pair("builtin denoiser", models::builtin_denoiser(), models::builtin_denoiser_weights(), "builtin");
    ok &= check_pair("builtin encoder", models::builtin_encoder(), models::builtin_encoder_weights(), "builtin");
    return ok ? 0 : 1;
  }
  for (size_t i = 1; i < a.positional.size(); ++i) {
    const std::string& pt = a.positional[i];
    const std::string weights = models::weights_path_for(pt);
    auto pt_bytes = models::read_model_file(pt);
    auto w_bytes = models::read_model_file(weights);
    if (!pt_bytes || !w_bytes) {
      std::cout << json{{"model", pt}, {"weights", weights}, {"ok", false},
                        {"error", std::string("cannot read ") + (pt_bytes ? weights : pt)}}
                       .dump()
                << "\n";
      ok = false;
      continue;
    }
    ok &= check_pair(pt, *pt_bytes, *w_bytes, weights);
  }
  return ok ? 0 : 1;
}

}  // namespace

const Command kModels = {"models", "check that each weights file is exactly its TorchScript model (loads libtorch)",
    "usage: logsift models check [MODEL.pt ...]\n"
    "\nThe shipped models run natively from weights files (MODEL.weights beside MODEL.pt,\n"
    "written by models/training/weights_file.py), without libtorch. This command loads\n"
    "libtorch and checks each pair: the weights file names the TorchScript file's SHA-256,\n"
    "holds its parameters and attributes bit for bit, and the native pass agrees with the\n"
    "module's forward on check rows. Without arguments it checks the built-in models.\n"
    "Prints one JSON line per model; exits 1 when any pair differs.\n",
    false, {}, {}, cmd_models};

}  // namespace logsift::cli
