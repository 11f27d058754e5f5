// The torch-free interface of the embedding stage. Implementations: the
// TorchScript encoder (BERT-family WordPiece + the shipped log-encoder-v1 or a
// user's model, models/torch_encoder.cpp) and the HashedFeatureEncoder
// baseline (hashed token features, no model); the pipeline only sees this
// interface. The stage feeds it canonical templates (pipeline/stages/encoder_text.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace logsift::models {

// What GET /info reports about an encoder besides version and dim.
struct EncoderDescription {
  std::string kind;        // "torchscript" | "hashed"
  std::string source;      // "builtin", a model path, or "hashed"
  int max_len = 0;         // token ids per template ([CLS], [SEP] included); 0 = n/a
  int64_t vocab_size = 0;  // 0 = n/a
  // How the model is computed: "native" (models/log_encoder_native.h), "torchscript", or "" (n/a).
  std::string runtime;
};

class SentenceEncoder {
 public:
  virtual ~SentenceEncoder() = default;
  virtual int dim() const = 0;
  // A version string that is part of the cluster-id contract.
  virtual std::string version() const = 0;
  // Embeds n templates into out[n * dim()], each row L2-normalised (or all zero).
  // Called from one stage thread only; implementations need not be thread-safe.
  virtual void encode(std::span<const std::string_view> templates, std::span<float> out) = 0;
  virtual EncoderDescription describe() const { return {}; }
};

// Baseline without a model (encoder_model: hashed): signed feature hashing of
// the template's lower-cased words and word bigrams; wildcards and punctuation are
// ignored, so case and punctuation differences do not split clusters.
std::unique_ptr<SentenceEncoder> make_hashed_feature_encoder(int dim);

// ---------------------------------------------------------------------------
// TorchScript sentence encoder: bring your own BERT-family model.
//
// The contract a model file must follow (models/encoder-v1.pt does; so does
// tests/models/make_tiny_encoder.py's tiny model):
//
//  * forward(input_ids: Tensor[int64, (B, T)], attention_mask: Tensor[int64, (B, T)])
//    returns one of
//      - a float tensor (B, D): the sentence embeddings, or
//      - a float tensor (B, T, D): token states; logsift mean-pools them over
//        the positions where attention_mask is 1, or
//      - a tuple or list whose first element is one of these (HuggingFace
//        style: last_hidden_state first).
//    Rows are [CLS] pieces... [SEP] then [PAD] up to T (attention_mask 0);
//    the ids come from models/wordpiece.h (BERT WordPiece) over the vocab.
//  * optional module attributes:
//      version: str         part of the cluster-id contract (default "unversioned:<path>")
//      max_len: int         ids per template incl. [CLS]/[SEP] (default 128)
//      do_lower_case: bool  ASCII lower-casing before WordPiece (default true)
//      wildcard_token: str  vocab token that each "<*>" of a template becomes
//                           (default "": "<*>" is split like punctuation); it
//                           must be in the vocab when set
//  * the vocab: vocab.txt (one token per line, id = line number - 1, with
//    [UNK], [CLS], [SEP] and usually [PAD]), stored in the archive as the extra
//    file "vocab.txt" (torch.jit.save(m, path, _extra_files={"vocab.txt": text}))
//    or given separately as EncoderOptions::vocab_path.
//
// logsift then L2-normalises every row (an all-zero row stays zero). dim() is
// found at load time by a warm-up forward ("warm up", and one row of max_len
// ids so a model that cannot take max_len positions fails at start-up, not
// on traffic). encode() tokenizes all templates, sorts them by length and runs
// micro-batches of at most 64 rows, each padded to its longest row, under
// c10::InferenceMode, and writes rows back in input order. Every failure (file
// unreadable, not TorchScript, no vocab, bad vocab, bad attribute types,
// output of the wrong shape, dtype or non-finite values) is a
// std::runtime_error naming the model file.
struct EncoderOptions {
  std::string model = "builtin";  // "builtin" (embedded at build time) or a TorchScript file
  std::string vocab_path;         // "" = the extra file "vocab.txt" inside the archive
  int max_len = 0;                // 0 = the module's max_len attribute, else 128
  // Compute the shipped log-encoder architecture natively when the module is
  // one (checked against its codes() at load); any other module runs its forward.
  bool native = true;
};
std::unique_ptr<SentenceEncoder> load_torchscript_encoder(const EncoderOptions& options);

}  // namespace logsift::models
