// Slot rules: syntax that marks a value in any software's log line, applied
// to a line's tokens after the denoiser, before the template is rendered.
//
// The denoiser judges one token in its context by how it looks. Some values
// look like constant words ("'memlock'", "identity=\"app\"", "flags=N", the
// method and user agent of an access log) but sit where printf-style
// templates put their slots. These rules mark them from the line's syntax
// alone, with no vocabulary:
//
//  access   an HTTP access-log line in the NCSA common/combined family
//           (Apache, nginx, Caddy's common_log, Tomcat, lighttpd, ...):
//           [vhost] host ident user [time] "request" status bytes, then
//           optionally "referer" "user-agent" and further fields. The line
//           is one log statement, so every field is a variable and the
//           template keeps only the field structure:
//           <*> <*> <*> [<*>] "<*>" <*> <*> "<*>" "<*>".
//           (slots-v3) Any other access-log layout too: a quoted HTTP
//           request line ("METHOD target HTTP/v") followed by a status (a
//           number), within the first eight fields of a line of seven or
//           more blank-separated fields (Envoy's and Istio's default,
//           Traefik, many proxies): every field is a variable.
//  quoted   the inside of a quoted span, '...', "..." or `...', is one
//           variable. An opening quote follows the line start or a
//           delimiter, a closing one is followed by the line end or a
//           delimiter (so "Couldn't" is no quote). A span that would be the
//           whole line is left alone (it is the message, not a value).
//  kv       the value of key=value (key: a letter or '_' then letters,
//           digits, '_', '.', '-'; nothing between key, '=' and value) up
//           to the next blank or , ; ( ) [ ] { } < > | or quote.
//  errtail  (slots-v2) the cause after a failure: "failed to sync pod X:
//           connection refused", "Error loading X: Exec format error". At
//           the first ": " whose clause (the text since the previous ": ",
//           ", ", "; ", " - " or the line start) has two or more words, one of them a failure
//           word (error, failed, fail, failure, unable, cannot, can't,
//           could not, couldn't, problem, exception, refused, denied,
//           invalid), what follows is one variable, up to the first ", "
//           (the statement's own text goes on: ", retrying", ", skipping"),
//           the closing quote when the ": " sits inside a double-quoted
//           span, or the line end.
//           The cause is the error value a statement passes to its format
//           (Go's %v of err, C's %m / strerror, Java's getMessage()), so one
//           statement keeps one template whatever failed underneath. A
//           clause of one word ("error: ...", a level prefix) does not
//           count, and a cause with no unmasked word is left alone.
//  backtick (slots-v3) a `...` span, as Markdown-minded programs quote a
//           name ("unknown field `retries`"), is one variable, as quoted.
//  json     (slots-v3) a JSON object or a Python dict written into a
//           message ({"id":42,...}, {'id': 42}), or an array of strings or
//           objects (["a","b"], [{...}]), is one variable: a '{' or '[' after
//           the line start, a blank, '=', ':' or '(', then a quote (or '{'
//           in an array), up to its matching close (brackets outside quoted
//           strings); an object needs a ':'. Not the whole line (that is a
//           structured line's, or the message), and not an object with a
//           message key ("msg": ..., see below).
//  units    (slots-v3) a unit after a number is part of its value: the size
//           and duration units of byte and time formatters (B kB KB MB GB TB
//           PB KiB MiB GiB TiB PiB kb mb gb Kb Mb Gb byte bytes, ns us µs ms
//           s sec secs second(s) min(s) minute(s) hr hrs hour(s) day(s)
//           msec usec nsec millis milliseconds microseconds nanoseconds),
//           optionally as a rate ("MB/s", "KB/sec"), one blank after a
//           variable and ending the value (the line end or a delimiter other
//           than = - _ / : @ or a '.' glued to more). "wrote 1.5 GB in 12 s"
//           and "wrote 830 KB in 250 ms" are one statement whose formatter
//           picked the unit; the template is "wrote <*> <*> in <*> <*>".
//  words    (slots-v4) a short function word (a an the from to for by in on
//           at with of and or as into onto via is are was be not, any case)
//           that the denoiser marked is a constant again, before the rules
//           above run (so inside a quoted span, after key= or in a cause it is
//           still part of the value). A model that has not seen a program
//           marks such a word next to a word-like value ("invalid user user
//           from 10.0.0.1": the value and then "from"), which splits one
//           statement; as a value on its own such a word is next to never
//           worth a new id.
//
// Not values: the value of a message key (msg="...", "message": "...", the
// keys of message_keys, any case): a structured line the extractor did not
// reduce keeps its message in the template; the value of caller= (the call
// site: structured_keep_caller's prefix, Go kit's caller field), which
// tells statements apart; and a double-quoted span that a ':' follows (a
// JSON key).
//
// A rule marks tokens as variables (Token::mark = kMarkVar) and never
// unmarks one; only the words rule (slots-v4) takes back the denoiser's mark
// on a function word, first. The rules read token kinds and the bytes of unmasked tokens
// only, never the bytes of a pre-masked span, so the result is a function
// of the pre-masked line (the line cache's key). Linear in the tokens.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/versions.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

// Applies the rules of `version` (1 to 4; 0 does nothing) to `tokens` (the
// tokens of `line`, in order). `kept_keys`: keys whose value is not a slot
// (matched ASCII-case-insensitively): slot_rule_kept_keys(message_keys).
void apply_slot_rules(std::string_view line, std::span<Token> tokens, const std::vector<std::string>& kept_keys,
                      int version = kSlotRulesLatest);

// The errtail rule alone (part of slots-v2): true if it marked a cause.
bool mark_error_tail(std::string_view line, std::span<Token> tokens);
// The json, backtick and units rules alone (part of slots-v3): true if they marked.
bool mark_json_spans(std::string_view line, std::span<Token> tokens, const std::vector<std::string>& kept_keys);
bool mark_backtick_spans(std::string_view line, std::span<Token> tokens);
bool mark_units(std::string_view line, std::span<Token> tokens);
// The words rule alone (part of slots-v4): true if it took a mark back.
bool unmark_function_words(std::string_view line, std::span<Token> tokens);
// Is `w` one of the words rule's function words (ASCII, any case)?
bool is_function_word(std::string_view w);

// The message keys and "caller".
std::vector<std::string> slot_rule_kept_keys(const std::vector<std::string>& message_keys);

// The access rule alone: true if `tokens` form an NCSA access-log line (then
// every field is marked).
bool mark_access_line(std::string_view line, std::span<Token> tokens, bool wide = false);

}  // namespace logsift
