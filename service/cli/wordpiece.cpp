// logsift wordpiece: WordPiece token ids per line, as the encoder runtime computes them.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "models/wordpiece.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

// Token ids per line, space-separated, flushed per line (a co-process for
// Python training, like tokenize).
int cmd_wordpiece(const Args& a) {
  const std::string vocab = a.option("vocab");
  if (vocab.empty()) {
    std::cerr << "logsift wordpiece: --vocab FILE is required (see --help)\n";
    return 2;
  }
  logsift::models::WordPieceOptions options;
  options.lower_case = !a.has("no-lower");
  options.wildcard_token = a.option("wildcard-token");
  auto max_len = parse_int(a.option("max-len", "128"));
  if (!max_len || *max_len < 2) {
    std::cerr << "logsift wordpiece: --max-len must be an integer >= 2, got '" << a.option("max-len") << "'\n";
    return 2;
  }
  options.max_len = *max_len;
  auto tokenizer = logsift::models::WordPieceTokenizer::from_file(vocab, options);
  if (!options.wildcard_token.empty() && tokenizer.wildcard_id() < 0) {
    std::cerr << "logsift wordpiece: --wildcard-token '" << options.wildcard_token << "' is not in " << vocab << "\n";
    return 2;
  }
  std::ifstream file;
  std::istream* in = open_input(a, "wordpiece", &file);
  if (!in) return 2;
  std::vector<int64_t> ids;
  std::string line, out;
  while (std::getline(*in, line)) {
    tokenizer.encode(line, &ids);
    out.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(ids[i]);
    }
    out += '\n';
    std::cout << out << std::flush;
  }
  return 0;
}

}  // namespace

const Command kWordpiece = {"wordpiece", "print BERT WordPiece token ids of each line (encoder training uses it)",
    "usage: logsift wordpiece --vocab FILE [--max-len N] [--no-lower] [--wildcard-token T] [FILE|-]\n"
                 "\nBERT WordPiece (models/wordpiece.h): prints the token ids of each input line, space-\n"
                 "separated, [CLS] first and [SEP] last, one line per input line, flushed per line (Python\n"
                 "training drives it as a co-process, so train and serve tokenize alike).\n"
                 "  --vocab FILE          vocab.txt, one token per line, id = line number - 1 (required)\n"
                 "  --max-len N           ids per line incl. [CLS] and [SEP] (default 128)\n"
                 "  --no-lower            keep case (default: ASCII lower-casing, BERT's do_lower_case)\n"
                 "  --wildcard-token T    each \"<*>\" becomes vocab token T (default: split as punctuation)\n",
    false, {"no-lower"}, {"vocab", "max-len", "wildcard-token"}, &cmd_wordpiece};

}  // namespace logsift::cli
