#include "models/weights_file.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <openssl/evp.h>

namespace logsift::models {

int64_t WeightsTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr)) throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += hex[md[i] >> 4];
    s += hex[md[i] & 15];
  }
  return s;
}

std::string weights_path_for(const std::string& torchscript_path) {
  const size_t slash = torchscript_path.find_last_of('/');
  const size_t dot = torchscript_path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_ext ? torchscript_path.substr(0, dot) : torchscript_path) + ".weights";
}

std::optional<std::string> read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return s.str();
}

std::optional<WeightsFile> native_weights_for(const std::string& path, const std::string& bytes) {
  if (is_weights_file(bytes)) return parse_weights(bytes, path);
  const std::string sibling = weights_path_for(path);
  std::error_code ec;
  if (sibling == path || !std::filesystem::is_regular_file(sibling, ec)) return std::nullopt;
  auto sib = read_model_file(sibling);
  if (!sib || !is_weights_file(*sib)) return std::nullopt;
  WeightsFile f = parse_weights(*sib, sibling);
  // A weights file written from another version of the model is not this one.
  if (f.source_sha256 != sha256_hex(bytes)) return std::nullopt;
  return f;
}

namespace {

// A region [offset, offset + bytes) of the data part, checked against its size.
std::string_view region(std::string_view data, const nlohmann::json& e, const std::string& what) {
  if (!e.is_object() || !e.contains("offset") || !e.contains("bytes") || !e["offset"].is_number_unsigned() ||
      !e["bytes"].is_number_unsigned())
    throw std::runtime_error(what + ": offset and bytes must be unsigned integers");
  const uint64_t off = e["offset"], n = e["bytes"];
  if (off > data.size() || n > data.size() - off) throw std::runtime_error(what + ": outside the file");
  return data.substr(off, n);
}

}  // namespace

WeightsFile parse_weights(std::string_view bytes, const std::string& origin) {
  auto fail = [&](const std::string& what) { return std::runtime_error("weights file " + origin + ": " + what); };
  if (!is_weights_file(bytes)) throw fail("not a logsift weights file (no LSWEIGHTS1 magic)");
  bytes.remove_prefix(kWeightsMagic.size());
  uint64_t hlen = 0;
  if (bytes.size() < sizeof hlen) throw fail("truncated header length");
  for (size_t i = 0; i < sizeof hlen; ++i) hlen |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  bytes.remove_prefix(sizeof hlen);
  if (hlen > bytes.size()) throw fail("header longer than the file");
  nlohmann::json h = nlohmann::json::parse(bytes.substr(0, hlen), nullptr, false);
  if (!h.is_object()) throw fail("the header is not a JSON object");
  const std::string_view data = bytes.substr(hlen);
  if (h.value("format", 0) != 1) throw fail("unknown format (this build reads format 1)");
  WeightsFile f;
  try {
    f.architecture = h.at("architecture").get<std::string>();
    f.source_sha256 = h.at("source_sha256").get<std::string>();
    if (sha256_hex(data) != h.at("data_sha256").get<std::string>()) throw fail("data digest mismatch (damaged file)");
    f.attributes = h.at("attributes");
    if (!f.attributes.is_object()) throw fail("attributes must be an object");
    for (const auto& [name, e] : h.at("tensors").items()) {
      const std::string what = "tensor " + name;
      std::string_view raw = region(data, e, what);
      WeightsTensor t;
      for (const auto& d : e.at("shape")) {
        if (!d.is_number_unsigned() || d.get<uint64_t>() > (1u << 30)) throw fail(what + ": bad shape");
        t.shape.push_back(d.get<int64_t>());
      }
      const std::string dtype = e.at("dtype").get<std::string>();
      const size_t elem = dtype == "f32" ? 4 : dtype == "u8" ? 1 : 0;
      if (!elem) throw fail(what + ": unknown dtype '" + dtype + "'");
      if (raw.size() != static_cast<size_t>(t.numel()) * elem) throw fail(what + ": size does not match its shape");
      if (elem == 4) {
        t.f32.resize(static_cast<size_t>(t.numel()));
        if (!raw.empty()) std::memcpy(t.f32.data(), raw.data(), raw.size());  // little-endian, as written
      } else {
        t.u8.assign(raw.begin(), raw.end());
      }
      f.tensors.emplace(name, std::move(t));
    }
    if (h.contains("files"))
      for (const auto& [name, e] : h["files"].items()) f.files.emplace(name, std::string(region(data, e, "file " + name)));
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("bad header: ") + e.what());
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("weights file ", 0) == 0) throw;
    throw fail(e.what());
  }
  return f;
}

namespace {

const WeightsTensor* exact(const WeightsFile& f, std::initializer_list<const char*> names, const char* arch,
                           std::string* why) {
  size_t params = 0;
  for (const auto& [n, t] : f.tensors) params += t.f32.empty() ? 0 : 1;
  if (params != names.size()) {
    *why = std::string("not the ") + arch + " architecture";
    return nullptr;
  }
  for (const char* n : names) {
    auto it = f.tensors.find(n);
    if (it == f.tensors.end() || it->second.f32.empty()) {
      *why = std::string("no parameter ") + n;
      return nullptr;
    }
  }
  return &f.tensors.begin()->second;
}

}  // namespace

bool cnn_denoiser_weights(const WeightsFile& f, int max_len, CnnDenoiserWeights* out, std::string* why) {
  if (!exact(f,
             {"tok_conv.table", "tok_bias", "ctx_conv.table", "ctx_bias", "fc1.weight", "fc1.bias", "fc2.weight",
              "fc2.bias"},
             "char-CNN", why))
    return false;
  auto T = [&](const char* n) -> const WeightsTensor& { return f.tensors.at(n); };
  CnnDenoiserWeights w;
  w.max_len = max_len;
  const auto &tt = T("tok_conv.table"), &ct = T("ctx_conv.table");
  if (tt.shape.size() != 2 || ct.shape.size() != 2 || tt.dim(0) % w.vocab || ct.dim(0) % w.vocab ||
      T("fc1.weight").shape.size() != 2 || T("fc2.weight").numel() != T("fc1.weight").dim(0) || T("fc2.bias").numel() != 1) {
    *why = "unexpected parameter shapes";
    return false;
  }
  w.tok_width = static_cast<int>(tt.dim(0) / w.vocab);
  w.tok_channels = static_cast<int>(tt.dim(1));
  w.tok_table = tt.f32;
  w.tok_bias = T("tok_bias").f32;
  w.ctx_width = static_cast<int>(ct.dim(0) / w.vocab);
  w.ctx_channels = static_cast<int>(ct.dim(1));
  w.ctx_table = ct.f32;
  w.ctx_bias = T("ctx_bias").f32;
  w.hidden = static_cast<int>(T("fc1.weight").dim(0));
  w.fc1_w = T("fc1.weight").f32;
  w.fc1_b = T("fc1.bias").f32;
  w.fc2_w = T("fc2.weight").f32;
  w.fc2_b = T("fc2.bias").f32[0];
  *out = std::move(w);
  return true;
}

bool log_encoder_weights(const WeightsFile& f, LogEncoderWeights* out, std::string* why) {
  if (!exact(f,
             {"emb.weight", "conv.weight", "conv.bias", "pos_start.weight", "pos_end.weight", "att_hidden.weight",
              "att_hidden.bias", "att.weight", "att.bias", "norm.weight", "norm.bias", "proj.weight", "proj.bias"},
             "log-encoder", why))
    return false;
  auto T = [&](const char* n) -> const WeightsTensor& { return f.tensors.at(n); };
  const auto& a = f.attributes;
  auto drop = f.tensors.find("drop");
  if (drop == f.tensors.end() || drop->second.u8.empty() || !a.contains("var_id") || !a.contains("max_pos")) {
    *why = "no drop/var_id/max_pos attribute";
    return false;
  }
  const auto& emb = T("emb.weight");
  if (emb.shape.size() != 2 || T("conv.weight").shape.size() != 3 || T("conv.weight").dim(2) != 3 ||
      T("proj.weight").shape.size() != 2 || T("att_hidden.weight").shape.size() != 2 ||
      T("pos_start.weight").shape.size() != 2 || T("att.bias").numel() != 1) {
    *why = "unexpected parameter shapes";
    return false;
  }
  LogEncoderWeights w;
  w.vocab = static_cast<int>(emb.dim(0));
  w.d = static_cast<int>(emb.dim(1));
  w.bits = static_cast<int>(T("proj.weight").dim(0));
  w.att_dim = static_cast<int>(T("att_hidden.weight").dim(0));
  w.max_pos = static_cast<int>(T("pos_start.weight").dim(0));
  if (a["max_pos"].get<int64_t>() != w.max_pos) {
    *why = "max_pos does not match pos_start";
    return false;
  }
  w.var_id = a["var_id"].get<int64_t>();
  w.drop = drop->second.u8;
  w.emb = emb.f32;
  w.conv_w = T("conv.weight").f32;
  w.conv_b = T("conv.bias").f32;
  w.pos_start = T("pos_start.weight").f32;
  w.pos_end = T("pos_end.weight").f32;
  w.att_hidden_w = T("att_hidden.weight").f32;
  w.att_hidden_b = T("att_hidden.bias").f32;
  w.att_w = T("att.weight").f32;
  w.att_b = T("att.bias").f32[0];
  w.norm_w = T("norm.weight").f32;
  w.norm_b = T("norm.bias").f32;
  w.norm_eps = static_cast<float>(a.value("norm_eps", 1e-5));
  w.proj_w = T("proj.weight").f32;
  w.proj_b = T("proj.bias").f32;
  *out = std::move(w);
  return true;
}

}  // namespace logsift::models
