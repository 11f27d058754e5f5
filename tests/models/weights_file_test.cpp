// The weights files the native runtimes read instead of TorchScript: the
// shipped ones name the shipped TorchScript files; a damaged or malformed one
// is refused with its name and why; a stale one beside a model is not used.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/builtin_models.h"
#include "models/token_scorer.h"
#include "models/torch_backend.h"
#include "models/weights_file.h"

namespace logsift::models {
namespace {

std::string slurp(const std::string& path) {
  auto bytes = read_model_file(path);
  EXPECT_TRUE(bytes) << path;
  return bytes.value_or("");
}

std::string error_of(std::string_view bytes) {
  try {
    parse_weights(bytes, "t.weights");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(WeightsFile, ShippedFilesNameTheShippedModelsAndAreEmbedded) {
  for (const char* stem : {"denoiser-v2", "encoder-v1"}) {
    const std::string dir = LOGSIFT_SOURCE_DIR "/models/";
    const std::string pt = slurp(dir + stem + ".pt"), w = slurp(dir + stem + ".weights");
    const WeightsFile f = parse_weights(w, stem);
    EXPECT_EQ(f.source_sha256, sha256_hex(pt)) << stem << ": write it again with models/training/weights_file.py";
    ASSERT_TRUE(native_weights_for(dir + stem + ".pt", pt).has_value()) << stem;
  }
  EXPECT_EQ(builtin_denoiser_weights(), slurp(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.weights"));
  EXPECT_EQ(builtin_encoder_weights(), slurp(LOGSIFT_SOURCE_DIR "/models/encoder-v1.weights"));
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(WeightsFile, MalformedOrDamagedFilesAreRefusedWithWhy) {
  const std::string good = slurp(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.weights");
  EXPECT_NE(error_of("PK\x03\x04 a zip").find("no LSWEIGHTS1 magic"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, 14)).find("truncated header length"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, 200)).find("header longer than the file"), std::string::npos);
  std::string damaged = good;
  damaged[damaged.size() - 3] ^= 1;
  EXPECT_NE(error_of(damaged).find("damaged"), std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 4)).find("damaged"), std::string::npos);
  std::string bad_json = good;
  bad_json[kWeightsMagic.size() + 8] = '[';
  EXPECT_NE(error_of(bad_json).find("t.weights"), std::string::npos);
  EXPECT_NO_THROW(parse_weights(good, "good"));
}

TEST(WeightsFile, TheCheckFindsEveryDifference) {
  const std::string pt = slurp(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.pt");
  const WeightsFile good = parse_weights(slurp(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.weights"), "d");
  const TorchBackend& torch = torch_backend();
  EXPECT_EQ(torch.check_weights(pt, good, "denoiser-v2.pt"), "");
  WeightsFile one_bit = good;
  auto& t = one_bit.tensors.at("fc1.weight").f32;
  t[7] = std::nextafter(t[7], 1.0f);
  EXPECT_NE(torch.check_weights(pt, one_bit, "d").find("tensor fc1.weight differs"), std::string::npos);
  WeightsFile attr = good;
  attr.attributes["version"] = "denoiser-v3";
  EXPECT_NE(torch.check_weights(pt, attr, "d").find("attribute version differs"), std::string::npos);
  WeightsFile other = good;
  other.source_sha256 = sha256_hex("another file");
  EXPECT_NE(torch.check_weights(pt, other, "d").find("source_sha256 differs"), std::string::npos);
}

TEST(WeightsFile, AStaleWeightsFileBesideAModelIsNotUsed) {
  const auto dir = std::filesystem::temp_directory_path() / ("logsift-weights-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string pt = (dir / "d.pt").string();
  std::filesystem::copy_file(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.pt", pt);
  // The encoder's weights file beside the denoiser: names another file.
  std::filesystem::copy_file(LOGSIFT_SOURCE_DIR "/models/encoder-v1.weights", dir / "d.weights");
  EXPECT_FALSE(native_weights_for(pt, slurp(pt)).has_value());
  auto scorer = load_token_scorer(pt, true);
  EXPECT_EQ(scorer->runtime(), "native");  // the module's own check still takes the native pass
  EXPECT_NE(loaded_torch_backend(), nullptr);
  // A weights file given directly runs natively; "torchscript" needs the .pt.
  const std::string w = LOGSIFT_SOURCE_DIR "/models/denoiser-v2.weights";
  EXPECT_EQ(load_token_scorer(w, true)->info().version, "denoiser-v2");
  EXPECT_THROW(load_token_scorer(w, false), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace logsift::models
