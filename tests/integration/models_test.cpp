// libtorch only where it is needed: the shipped models run natively from
// their weights files, so a server on the defaults never maps libtorch;
// runtime "torchscript" loads the module and gives the same ids; a binary
// without the module still serves the defaults and says clearly what a
// TorchScript setting needs; `logsift models check` finds a weights file that
// is not its model's.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness.h"

namespace logsift_it {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool maps_libtorch(pid_t pid) { return read_text("/proc/" + std::to_string(pid) + "/maps").find("libtorch") != std::string::npos; }

const std::vector<std::string> kLines = {
    "SdkClientException: Unable to execute HTTP request: Connect to 10.0.0.1:443 failed",
    "Failed password for invalid user admin from 203.0.113.9 port 51234 ssh2",
    "PacketResponder 1 for block blk_-1608999687919862906 terminating",
    "Disk /dev/sda1 is full (98% used)"};

std::vector<std::string> ids_of(int port) {
  std::vector<std::string> ids;
  for (const auto& line : kLines) {
    HttpResponse r = post_infer(port, line);
    ids.push_back(r.status == 200 ? r.json_body().value("cluster_id", "") : "status " + std::to_string(r.status));
  }
  return ids;
}

TEST(LazyTorch, ShippedModelsServeWithoutLibtorchAndTorchScriptGivesTheSameIds) {
  TempDir a("logsift-lazy-a-"), b("logsift-lazy-b-");
  ServerOptions native_opts;
  native_opts.data_dir = a.path();
  ServerProcess native(native_opts);
  ASSERT_TRUE(native.start_ready()) << native.log_text();
  EXPECT_FALSE(maps_libtorch(native.pid())) << "a server on the shipped models mapped libtorch";
  json info = http_get(native.http_port(), "/info").json_body();
  EXPECT_EQ(info["torch"]["version"], "not loaded") << info["torch"];
  EXPECT_EQ(info["denoiser"]["runtime"], "native") << info["denoiser"];
  EXPECT_EQ(info["encoder"]["runtime"], "native") << info["encoder"];
  const auto native_ids = ids_of(native.http_port());
  EXPECT_FALSE(maps_libtorch(native.pid())) << "serving lines mapped libtorch";

  ServerOptions torch_opts;
  torch_opts.data_dir = b.path();
  torch_opts.args = {"--denoiser-runtime", "torchscript", "--encoder-runtime", "torchscript"};
  ServerProcess torch(torch_opts);
  ASSERT_TRUE(torch.start_ready()) << torch.log_text();
  EXPECT_TRUE(maps_libtorch(torch.pid())) << "runtime torchscript did not load libtorch";
  json tinfo = http_get(torch.http_port(), "/info").json_body();
  EXPECT_EQ(tinfo["torch"]["version"].get<std::string>().rfind("1.", 0), 0u) << tinfo["torch"];
  EXPECT_EQ(tinfo["denoiser"]["runtime"], "torchscript") << tinfo["denoiser"];
  EXPECT_EQ(tinfo["contract"]["digest"], info["contract"]["digest"]);
  EXPECT_TRUE(info["contract"]["digest"].is_string()) << info["contract"];
  EXPECT_EQ(ids_of(torch.http_port()), native_ids);
  for (const auto& id : native_ids) EXPECT_TRUE(is_hex16(id)) << id;
}

// The binary alone, without liblogsift_torch.so beside it: the defaults work;
// a TorchScript setting fails at start naming the module and how to point at it.
TEST(LazyTorch, BinaryWithoutTheModuleServesDefaultsAndExplainsTorchScript) {
  TempDir dir("logsift-lone-bin-");
  const std::string bin = dir.path() + "/logsift";
  fs::copy_file(binary_path(), bin);
  fs::permissions(bin, fs::perms::owner_all);
  RunResult ok = run_program({bin, "cluster", "-"}, kLines[0] + "\n" + kLines[1] + "\n", {{"LOGSIFT_TORCH_MODULE", ""}});
  ASSERT_EQ(ok.exit.code, 0) << ok.describe();
  EXPECT_NE(ok.out.find("\"cluster_id\""), std::string::npos) << ok.describe();
  RunResult bad = run_program({bin, "cluster", "--denoiser-runtime", "torchscript", "-"}, kLines[0] + "\n",
                              {{"LOGSIFT_TORCH_MODULE", ""}});
  EXPECT_NE(bad.exit.code, 0) << bad.describe();
  EXPECT_NE(bad.err.find("liblogsift_torch.so"), std::string::npos) << bad.describe();
  EXPECT_NE(bad.err.find("LOGSIFT_TORCH_MODULE"), std::string::npos) << bad.describe();
  // Pointed at the module, the same command works.
  RunResult pointed = run_program({bin, "cluster", "--denoiser-runtime", "torchscript", "-"}, kLines[0] + "\n",
                                  {{"LOGSIFT_TORCH_MODULE", LOGSIFT_TORCH_MODULE_FILE}});
  EXPECT_EQ(pointed.exit.code, 0) << pointed.describe();
  EXPECT_EQ(pointed.out.substr(0, pointed.out.find(',')), ok.out.substr(0, ok.out.find(','))) << pointed.describe();
}

TEST(ModelsCheck, BuiltinPairsHoldAndAForeignWeightsFileIsFound) {
  RunResult builtin = run_logsift({"models", "check"});
  ASSERT_EQ(builtin.exit.code, 0) << builtin.describe();
  std::istringstream rows(builtin.out);
  std::string row;
  int ok_rows = 0;
  while (std::getline(rows, row)) ok_rows += json::parse(row, nullptr, false).value("ok", false) ? 1 : 0;
  EXPECT_EQ(ok_rows, 2) << builtin.out;

  // The shipped pair copied: holds. Its weights file replaced by the encoder's: refused, and why.
  TempDir dir("logsift-models-check-");
  const std::string pt = dir.path() + "/denoiser.pt", weights = dir.path() + "/denoiser.weights";
  fs::copy_file(std::string(LOGSIFT_SOURCE_DIR) + "/models/denoiser-v2.pt", pt);
  fs::copy_file(std::string(LOGSIFT_SOURCE_DIR) + "/models/denoiser-v2.weights", weights);
  RunResult same = run_logsift({"models", "check", pt});
  EXPECT_EQ(same.exit.code, 0) << same.describe();
  fs::copy_file(std::string(LOGSIFT_SOURCE_DIR) + "/models/encoder-v1.weights", weights,
                fs::copy_options::overwrite_existing);
  RunResult foreign = run_logsift({"models", "check", pt});
  EXPECT_EQ(foreign.exit.code, 1) << foreign.describe();
  EXPECT_NE(foreign.out.find("source_sha256 differs"), std::string::npos) << foreign.describe();

  // A damaged weights file is refused by the server at start with its name.
  std::string bytes = read_text(std::string(LOGSIFT_SOURCE_DIR) + "/models/denoiser-v2.weights");
  bytes[bytes.size() - 5] ^= 0x5a;
  std::ofstream(weights, std::ios::binary | std::ios::trunc) << bytes;
  RunResult damaged = run_logsift({"cluster", "--denoiser-model", weights, "-"}, kLines[0] + "\n");
  EXPECT_NE(damaged.exit.code, 0) << damaged.describe();
  EXPECT_NE(damaged.err.find("damaged"), std::string::npos) << damaged.describe();
  EXPECT_NE(damaged.err.find(weights), std::string::npos) << damaged.describe();
}

}  // namespace
}  // namespace logsift_it
