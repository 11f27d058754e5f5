// The canonical form of a template that the sentence encoder sees. It removes
// differences that never change an event's meaning, exactly, so that no model
// has to learn them (and no LSH boundary can split them):
//   1. "Caused by:" (any case, at a word start) is removed;
//   2. a lower-case dotted package prefix before an upper-case letter is
//      removed: "com.amazonaws.SdkClientException" -> "SdkClientException";
//   3. a word glued to "<*>" by one of - _ . is part of the variable:
//      "checkout-<*>" -> "<*>", "<*>.prod.example.com" -> "<*>";
//   4. runs of "<*>" separated only by whitespace become one "<*>";
//   5. whitespace runs become one space, ends trimmed;
//   6. a trailing cause clause is removed, repeatedly: a separator (":", " -",
//      ";", ",") then a known transport-level cause phrase (resolver errors,
//      timeouts, EOF, "signal <*>", ...; any case), optionally followed by one
//      "(...)", or a final "(cause phrase)"; something with a letter or digit
//      must remain. "...request: <*>: Temporary failure in name resolution"
//      -> "...request: <*>".
// Case and punctuation are left to the tokenizer (lower-casing) and the model.
// The Python twin is models/training/encoder/text.py:canonicalize; both are
// checked against tests/data/canonical_cases.json.
#pragma once

#include <string>
#include <string_view>

namespace logsift {

std::string canonical_template(std::string_view tmpl);

}  // namespace logsift
