// Hand-compiled finders for the built-in pre-mask regexes: see the header.
// Each finder is commented with its regex; the comment inside says how the
// scan reproduces RE2's leftmost-first semantics for it (greedy parts whose
// backtracking can never succeed are taken whole).
#include "pipeline/stages/premask_lexer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace logsift::premask {

struct View {
  const unsigned char* p;
  size_t n;
  const LineIndex* ix = nullptr;
  unsigned char operator[](size_t i) const { return i < n ? p[i] : 0; }  // 0 never matches a class
};

namespace {

// One table lookup per byte for every character class the patterns use.
enum : uint16_t {
  kDigit = 1, kHex = 2, kAlpha = 4, kScheme = 8, kUrl = 16, kLocal = 32, kDomain = 64, kPath = 128,
};
constexpr std::array<uint16_t, 256> make_classes() {
  std::array<uint16_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    uint16_t v = 0;
    bool digit = c >= '0' && c <= '9';
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (digit) v |= kDigit;
    if (digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) v |= kHex;
    if (alpha) v |= kAlpha;
    if (alpha || digit || c == '+' || c == '.' || c == '-') v |= kScheme;
    if (!(c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ' || c == '"' || c == '\'' || c == '<' ||
          c == '>'))
      v |= kUrl;
    if (alpha || digit || c == '.' || c == '_' || c == '%' || c == '+' || c == '-') v |= kLocal;
    if (alpha || digit || c == '.' || c == '-') v |= kDomain;
    if (alpha || digit || c == '.' || c == '_' || c == '@' || c == '%' || c == '+' || c == '~' || c == '$' ||
        c == '-')
      v |= kPath;
    t[static_cast<size_t>(c)] = v;
  }
  return t;
}
constexpr std::array<uint16_t, 256> kClasses = make_classes();
inline bool is(unsigned char c, uint16_t cls) { return kClasses[c] & cls; }

inline bool isd(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool ishex(unsigned char c) { return is(c, kHex); }
inline bool isalpha_(unsigned char c) { return is(c, kAlpha); }
inline bool isupper_(unsigned char c) { return c >= 'A' && c <= 'Z'; }
inline bool islower_(unsigned char c) { return c >= 'a' && c <= 'z'; }

inline size_t digit_run(const View& s, size_t i) {
  size_t j = i;
  while (j < s.n && isd(s.p[j])) ++j;
  return j - i;
}
inline size_t hex_run(const View& s, size_t i) {
  size_t j = i;
  while (j < s.n && ishex(s.p[j])) ++j;
  return j - i;
}
// Exactly k digits at i.
inline bool digits(const View& s, size_t i, size_t k) {
  if (i + k > s.n) return false;
  for (size_t j = i; j < i + k; ++j)
    if (!isd(s.p[j])) return false;
  return true;
}
inline bool hexes(const View& s, size_t i, size_t k) {
  if (i + k > s.n) return false;
  for (size_t j = i; j < i + k; ++j)
    if (!ishex(s.p[j])) return false;
  return true;
}

// The slot of LineIndex::at that holds byte c, or -1.
constexpr int index_slot(unsigned char c) {
  return c == ':' ? 0 : c == '-' ? 1 : c == '/' ? 2 : c == '.' ? 3 : -1;
}

// Next position >= from of byte c, or s.n.
inline size_t next_of(const View& s, size_t from, unsigned char c) {
  if (from >= s.n) return s.n;
  if (const int slot = index_slot(c); s.ix && slot >= 0) {
    const auto& at = s.ix->at[slot];
    auto it = std::lower_bound(at.begin(), at.end(), static_cast<uint32_t>(from));
    return it == at.end() ? s.n : *it;
  }
  const void* hit = std::memchr(s.p + from, c, s.n - from);
  return hit ? static_cast<size_t>(static_cast<const unsigned char*>(hit) - s.p) : s.n;
}
// The positions of either of two bytes, in order. Each byte's next position
// is kept, so a line with many of one and none of the other is read once per
// byte, not once per occurrence.
class Next2 {
 public:
  Next2(const View& s, size_t from, unsigned char c1, unsigned char c2)
      : s_(s), c1_(c1), c2_(c2), a_(next_of(s, from, c1)), b_(next_of(s, from, c2)) {}
  size_t first() const { return a_ < b_ ? a_ : b_; }
  // The next position after `at`, which first() returned.
  size_t after(size_t at) {
    if (a_ == at) a_ = next_of(s_, at + 1, c1_);
    if (b_ == at) b_ = next_of(s_, at + 1, c2_);
    return first();
  }

 private:
  const View& s_;
  unsigned char c1_, c2_;
  size_t a_, b_;
};
inline size_t next_digit(const View& s, size_t from) {
  while (from < s.n && !isd(s.p[from])) ++from;
  return from;
}

// (?::\d{1,5})? at j
inline size_t opt_port(const View& s, size_t j) {
  if (s[j] == ':' && isd(s[j + 1])) {
    size_t r = digit_run(s, j + 1);
    return j + 1 + (r < 5 ? r : 5);
  }
  return j;
}

// [-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?
bool find_number(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t d = next_digit(s, pos); d < s.n; d = next_digit(s, d + 1)) {
    // The leftmost start is the first digit, or a sign just before it.
    size_t i = d, j = d;
    if (d > pos && (s.p[d - 1] == '-' || s.p[d - 1] == '+')) i = d - 1;
    j += digit_run(s, j);
    if (s[j] == '.' && isd(s[j + 1])) j += 1 + digit_run(s, j + 1);
    if (s[j] == 'e' || s[j] == 'E') {
      size_t k = j + 1;
      if (s[k] == '-' || s[k] == '+') ++k;
      if (isd(s[k])) j = k + digit_run(s, k);
    }
    *b = i;
    *e = j;
    return true;
  }
  return false;
}

// [0-9a-fA-F]{8,}
bool find_hex_id(const View& s, size_t pos, size_t* b, size_t* e) {
  // A run of >= 8 starting in [i, i + 7] covers i + 7: when that byte is not
  // hex, no match starts before i + 8.
  size_t i = pos;
  while (i + 8 <= s.n) {
    if (!ishex(s.p[i + 7])) {
      i += 8;
      continue;
    }
    size_t start = i + 7;
    while (start > i && ishex(s.p[start - 1])) --start;
    size_t end = i + 8;
    while (end < s.n && ishex(s.p[end])) ++end;
    if (end - start >= 8) {
      *b = start;
      *e = end;
      return true;
    }
    i = end + 1;
  }
  return false;
}

// 0[xX][0-9a-fA-F]+
bool find_hex0x(const View& s, size_t pos, size_t* b, size_t* e) {
  Next2 next(s, pos + 1, 'x', 'X');
  for (size_t x = next.first(); x < s.n; x = next.after(x)) {
    size_t i = x - 1;
    if (s.p[i] == '0' && ishex(s[x + 1])) {
      *b = i;
      *e = i + 2 + hex_run(s, i + 2);
      return true;
    }
  }
  return false;
}

// (?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?
bool find_ipv4(const View& s, size_t pos, size_t* b, size_t* e) {
  // The first group ends at a '.': start at most 3 digits before it.
  for (size_t dot = next_of(s, pos + 1, '.'); dot < s.n; dot = next_of(s, dot + 1, '.')) {
    size_t i = dot;
    while (i > pos && i + 3 > dot && isd(s.p[i - 1])) --i;
    if (i == dot) continue;
    size_t j = i;
    bool ok = true;
    for (int g = 0; g < 3 && ok; ++g) {
      size_t r = digit_run(s, j);
      if (r >= 1 && r <= 3 && s[j + r] == '.') j += r + 1;
      else ok = false;
    }
    if (!ok) continue;
    size_t r = digit_run(s, j);
    if (r == 0) continue;
    j += r < 3 ? r : 3;
    *b = i;
    *e = opt_port(s, j);
    return true;
  }
  return false;
}

// \d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?
bool find_time(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t c = next_of(s, pos + 1, ':'); c < s.n; c = next_of(s, c + 1, ':')) {
    size_t i = c;
    while (i > pos && i + 2 > c && isd(s.p[i - 1])) --i;
    if (i == c) continue;
    size_t r = c - i;
    size_t j = i + r + 1;
    if (!(digits(s, j, 2) && s[j + 2] == ':' && digits(s, j + 3, 2))) continue;
    j += 5;
    if ((s[j] == '.' || s[j] == ',') && isd(s[j + 1])) j += 1 + digit_run(s, j + 1);
    *b = i;
    *e = j;
    return true;
  }
  return false;
}

// \d{4}[-/]\d{2}[-/]\d{2}
bool find_date(const View& s, size_t pos, size_t* b, size_t* e) {
  Next2 next(s, pos + 4, '-', '/');
  for (size_t a = next.first(); a < s.n; a = next.after(a)) {
    size_t i = a - 4;
    if (digits(s, i, 4) && (s[i + 4] == '-' || s[i + 4] == '/') && digits(s, i + 5, 2) &&
        (s[i + 7] == '-' || s[i + 7] == '/') && digits(s, i + 8, 2)) {
      *b = i;
      *e = i + 10;
      return true;
    }
  }
  return false;
}

// [0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}
bool find_uuid(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_of(s, pos + 8, '-'); a + 28 <= s.n; a = next_of(s, a + 1, '-')) {
    size_t i = a - 8;
    if (hexes(s, i, 8) && hexes(s, i + 9, 4) && s[i + 13] == '-' && hexes(s, i + 14, 4) && s[i + 18] == '-' &&
        hexes(s, i + 19, 4) && s[i + 23] == '-' && hexes(s, i + 24, 12)) {
      *b = i;
      *e = i + 36;
      return true;
    }
  }
  return false;
}

// [0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}
bool find_mac(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_of(s, pos + 2, ':'); a + 15 <= s.n; a = next_of(s, a + 1, ':')) {
    size_t i = a - 2;
    bool ok = hexes(s, i, 2);
    for (size_t g = 0; g < 5 && ok; ++g) ok = s[i + 2 + 3 * g] == ':' && hexes(s, i + 3 + 3 * g, 2);
    if (ok) {
      *b = i;
      *e = i + 17;
      return true;
    }
  }
  return false;
}

// \d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?
bool find_ts_iso(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_of(s, pos + 4, '-'); a + 15 <= s.n; a = next_of(s, a + 1, '-')) {
    size_t i = a - 4;
    if (!(digits(s, i, 4) && s[i + 4] == '-' && digits(s, i + 5, 2) && s[i + 7] == '-' && digits(s, i + 8, 2) &&
          (s[i + 10] == 'T' || s[i + 10] == ' ') && digits(s, i + 11, 2) && s[i + 13] == ':' &&
          digits(s, i + 14, 2) && s[i + 16] == ':' && digits(s, i + 17, 2)))
      continue;
    size_t j = i + 19;
    if ((s[j] == '.' || s[j] == ',') && isd(s[j + 1])) j += 1 + digit_run(s, j + 1);
    if (s[j] == 'Z') {
      ++j;
    } else if ((s[j] == '+' || s[j] == '-') && digits(s, j + 1, 2)) {
      size_t k = j + 3;
      if (s[k] == ':' && digits(s, k + 1, 2)) j = k + 3;
      else if (digits(s, k, 2)) j = k + 2;
    }
    *b = i;
    *e = j;
    return true;
  }
  return false;
}

// \d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?
bool find_ts_clf(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_of(s, pos + 2, '/'); a + 18 <= s.n; a = next_of(s, a + 1, '/')) {
    size_t i = a - 2;
    if (!(digits(s, i, 2) && s[i + 2] == '/' && isupper_(s[i + 3]) && islower_(s[i + 4]) && islower_(s[i + 5]) &&
          s[i + 6] == '/' && digits(s, i + 7, 4) && s[i + 11] == ':' && digits(s, i + 12, 2) && s[i + 14] == ':' &&
          digits(s, i + 15, 2) && s[i + 17] == ':' && digits(s, i + 18, 2)))
      continue;
    size_t j = i + 20;
    if (s[j] == ' ' && (s[j + 1] == '+' || s[j + 1] == '-') && digits(s, j + 2, 4)) j += 6;
    *b = i;
    *e = j;
    return true;
  }
  return false;
}

// (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}:\d{2}
bool is_month(const View& s, size_t i) {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (i + 3 > s.n) return false;
  for (const char* m : kMonths)
    if (s.p[i] == static_cast<unsigned char>(m[0]) && s.p[i + 1] == static_cast<unsigned char>(m[1]) &&
        s.p[i + 2] == static_cast<unsigned char>(m[2]))
      return true;
  return false;
}
bool find_ts_syslog(const View& s, size_t pos, size_t* b, size_t* e) {
  // Anchor on the time's first ':' ("HH:" after one space): the month is before it.
  for (size_t c = next_of(s, pos + 8, ':'); c < s.n; c = next_of(s, c + 1, ':')) {
    if (s.p[c - 3] != ' ' || !isd(s.p[c - 2]) || !isd(s.p[c - 1])) continue;
    size_t d = c - 3;  // the space after the day
    size_t dr = 0;
    while (d > pos + dr && dr < 3 && isd(s.p[d - 1 - dr])) ++dr;
    if (dr < 1 || dr > 2) continue;
    size_t sp = d - dr;  // one past the last space before the day
    size_t k = sp;
    while (k > pos && s.p[k - 1] == ' ') --k;
    if (k == sp || k < pos + 3) continue;
    size_t i = k - 3;
    if (!is_month(s, i)) continue;
    size_t j = i + 3;
    if (s[j] != ' ') continue;
    while (s[j] == ' ') ++j;
    size_t r = digit_run(s, j);
    if (r < 1 || r > 2 || s[j + r] != ' ') continue;
    j += r + 1;
    if (!(digits(s, j, 2) && s[j + 2] == ':' && digits(s, j + 3, 2) && s[j + 5] == ':' && digits(s, j + 6, 2)))
      continue;
    *b = i;
    *e = j + 8;
    return true;
  }
  return false;
}

// \d{4}-\d{2}-\d{2}-\d{2}\.\d{2}\.\d{2}(?:\.\d+)?
bool find_ts_dashed(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_of(s, pos + 4, '-'); a + 15 <= s.n; a = next_of(s, a + 1, '-')) {
    size_t i = a - 4;
    if (!(digits(s, i, 4) && s[i + 4] == '-' && digits(s, i + 5, 2) && s[i + 7] == '-' && digits(s, i + 8, 2) &&
          s[i + 10] == '-' && digits(s, i + 11, 2) && s[i + 13] == '.' && digits(s, i + 14, 2) && s[i + 16] == '.' &&
          digits(s, i + 17, 2)))
      continue;
    size_t j = i + 19;
    if (s[j] == '.' && isd(s[j + 1])) j += 1 + digit_run(s, j + 1);
    *b = i;
    *e = j;
    return true;
  }
  return false;
}

// [A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+
inline bool scheme_char(unsigned char c) { return is(c, kScheme); }
inline bool url_char(unsigned char c) { return is(c, kUrl); }
bool find_url(const View& s, size_t pos, size_t* b, size_t* e) {
  if (s.n < pos + 4) return false;
  const char* base = reinterpret_cast<const char*>(s.p);
  size_t from = pos + 1;
  while (from + 3 <= s.n) {
    const void* hit = memmem(base + from, s.n - from, "://", 3);
    if (!hit) return false;
    size_t c = static_cast<size_t>(static_cast<const char*>(hit) - base);
    size_t r = c;
    while (r > pos && scheme_char(s.p[r - 1])) --r;
    size_t a = r;
    while (a < c && !isalpha_(s.p[a])) ++a;
    if (a < c && c + 3 < s.n && url_char(s.p[c + 3])) {
      size_t j = c + 3;
      while (j < s.n && url_char(s.p[j])) ++j;
      *b = a;
      *e = j;
      return true;
    }
    from = c + 1;
  }
  return false;
}

// [A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}
inline bool local_char(unsigned char c) { return is(c, kLocal); }
inline bool domain_char(unsigned char c) { return is(c, kDomain); }
bool find_email(const View& s, size_t pos, size_t* b, size_t* e) {
  const char* base = reinterpret_cast<const char*>(s.p);
  size_t from = pos + 1;
  while (from < s.n) {
    const void* hit = std::memchr(base + from, '@', s.n - from);
    if (!hit) return false;
    size_t a = static_cast<size_t>(static_cast<const char*>(hit) - base);
    from = a + 1;
    size_t r = a;
    while (r > pos && local_char(s.p[r - 1])) --r;
    if (r == a) continue;
    size_t d_end = a + 1;
    while (d_end < s.n && domain_char(s.p[d_end])) ++d_end;
    // Greedy domain: the last '.' (with >= 1 domain char before it) followed by >= 2 letters.
    for (size_t k = d_end; k-- > a + 2;) {
      if (s.p[k] != '.') continue;
      size_t l = k + 1;
      while (l < s.n && isalpha_(s.p[l])) ++l;
      if (l - (k + 1) >= 2) {
        *b = r;
        *e = l;
        return true;
      }
    }
  }
  return false;
}

// (?:[A-Za-z]:)?(?:[/\\][A-Za-z0-9._@%+~$-]+){2,}[/\\]?
inline bool slash(unsigned char c) { return c == '/' || c == '\\'; }
inline bool path_char(unsigned char c) { return is(c, kPath); }
// Segments from j; returns the end (with an optional trailing slash) if >= 2, else 0.
inline size_t path_segments(const View& s, size_t j) {
  int count = 0;
  while (slash(s[j]) && path_char(s[j + 1])) {
    j += 1;
    while (j < s.n && path_char(s.p[j])) ++j;
    ++count;
  }
  if (count < 2) return 0;
  if (slash(s[j])) ++j;
  return j;
}
// Next '/', '\\' or ':' at or after from.
inline size_t next_path_anchor(const View& s, size_t from) {
  while (from < s.n) {
    unsigned char c = s.p[from];
    if (c == '/' || c == '\\' || c == ':') return from;
    ++from;
  }
  return s.n;
}
bool find_path(const View& s, size_t pos, size_t* b, size_t* e) {
  for (size_t a = next_path_anchor(s, pos); a < s.n; a = next_path_anchor(s, a + 1)) {
    // A start is a slash, or the drive letter just before a ':'.
    size_t i = a;
    if (s.p[a] == ':') {
      if (a == pos || !isalpha_(s.p[a - 1])) continue;
      i = a - 1;
    }
    unsigned char c = s.p[i];
    size_t end = 0;
    if (isalpha_(c)) {
      if (s[i + 1] == ':') end = path_segments(s, i + 2);
    } else if (slash(c)) {
      end = path_segments(s, i);
    }
    if (end) {
      *b = i;
      *e = end;
      return true;
    }
  }
  return false;
}

// \[?(?:h{1,4}:){7}h{1,4}\]?(?::\d{1,5})?
// | \[?(?:h{1,4}:){1,6}:(?:h{1,4}(?::h{1,4})*)?\]?(?::\d{1,5})?
// | \[?::(?:h{1,4}(?::h{1,4})*)\]?(?::\d{1,5})?
inline size_t hex_groups_tail(const View& s, size_t j) {  // (?::h{1,4})* greedy
  while (s[j] == ':' && ishex(s[j + 1])) {
    size_t r = hex_run(s, j + 1);
    j += 1 + (r < 4 ? r : 4);
  }
  return j;
}
inline size_t ipv6_close(const View& s, size_t j) {
  if (s[j] == ']') ++j;
  return opt_port(s, j);
}
size_t ipv6_alt1(const View& s, size_t i) {
  size_t j = i;
  if (s[j] == '[') ++j;
  for (int g = 0; g < 7; ++g) {
    size_t r = hex_run(s, j);
    if (r < 1 || r > 4 || s[j + r] != ':') return 0;
    j += r + 1;
  }
  size_t r = hex_run(s, j);
  if (r == 0) return 0;
  return ipv6_close(s, j + (r < 4 ? r : 4));
}
size_t ipv6_alt2(const View& s, size_t i) {
  size_t j = i;
  if (s[j] == '[') ++j;
  int g = 0;
  while (g < 6) {
    size_t r = hex_run(s, j);
    if (r >= 1 && r <= 4 && s[j + r] == ':') {
      j += r + 1;
      ++g;
    } else {
      break;
    }
  }
  if (g == 0 || s[j] != ':') return 0;
  ++j;
  size_t r = hex_run(s, j);
  if (r >= 1) j = hex_groups_tail(s, j + (r < 4 ? r : 4));
  return ipv6_close(s, j);
}
size_t ipv6_alt3(const View& s, size_t i) {
  size_t j = i;
  if (s[j] == '[') ++j;
  if (s[j] != ':' || s[j + 1] != ':') return 0;
  j += 2;
  size_t r = hex_run(s, j);
  if (r == 0) return 0;
  j = hex_groups_tail(s, j + (r < 4 ? r : 4));
  return ipv6_close(s, j);
}
bool find_ipv6(const View& s, size_t pos, size_t* b, size_t* e) {
  // Every alternative has a ':' within its first 6 bytes: try the starts up
  // to 5 bytes before each ':', in order.
  //
  // No ':' lies between those starts and c, so c is the first ':' of any
  // match there, and every alternative needs a hex digit or a second ':'
  // right after it: without one ("key: value"), none of them can match.
  size_t i = pos;
  for (size_t c = next_of(s, pos, ':'); c < s.n; c = next_of(s, c + 1, ':')) {
   if (!(ishex(s[c + 1]) || s[c + 1] == ':')) {
     i = c + 1;
     continue;
   }
   if (i + 5 < c) i = c - 5;
   for (; i <= c; ++i) {
    unsigned char ch = s.p[i];
    if (!(ch == '[' || ch == ':' || ishex(ch))) continue;
    size_t end = ipv6_alt1(s, i);
    if (!end) end = ipv6_alt2(s, i);
    if (!end) end = ipv6_alt3(s, i);
    if (end) {
      *b = i;
      *e = end;
      return true;
    }
   }
  }
  return false;
}

struct Builtin {
  const char* regex;
  Finder finder;
};

const Builtin kBuiltins[] = {
    {"[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>]+", {find_url, {kColon, kSlash}, {1, 0, 2, 0}}},
    {"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}", {find_email, {kAt, kDot}}},
    {"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", {find_uuid, {kDash}, {0, 4, 0, 0}}},
    {"\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d+)?(?:Z|[+-]\\d{2}:?\\d{2})?", {find_ts_iso, {kDash, kColon, kDigitAnchor}, {2, 2, 0, 0}}},
    {"\\d{2}/[A-Z][a-z]{2}/\\d{4}:\\d{2}:\\d{2}:\\d{2}(?: [+-]\\d{4})?", {find_ts_clf, {kSlash, kColon, kDigitAnchor}, {3, 0, 2, 0}}},
    {"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\\d{1,2} \\d{2}:\\d{2}:\\d{2}", {find_ts_syslog, {kColon, kDigitAnchor}, {2, 0, 0, 0}}},
    {"\\d{4}-\\d{2}-\\d{2}-\\d{2}\\.\\d{2}\\.\\d{2}(?:\\.\\d+)?", {find_ts_dashed, {kDash, kDot, kDigitAnchor}, {0, 3, 0, 2}}},
    {"[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}", {find_mac, {kColon}, {5, 0, 0, 0}}},
    {"\\[?(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}\\]?(?::\\d{1,5})?|\\[?(?:[0-9a-fA-F]{1,4}:){1,6}:(?:[0-9a-fA-F]{1,"
     "4}(?::[0-9a-fA-F]{1,4})*)?\\]?(?::\\d{1,5})?|\\[?::(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)\\]?(?::\\d{1,5})"
     "?",
     {find_ipv6, {kColon}, {2, 0, 0, 0}}},
    {"\\d{4}[-/]\\d{2}[-/]\\d{2}", {find_date, {kDigitAnchor, kDash | kSlash}, {0, 0, 0, 0}, {1, 2}, 2}},
    {"\\d{1,2}:\\d{2}:\\d{2}(?:[.,]\\d+)?", {find_time, {kColon, kDigitAnchor}, {2, 0, 0, 0}}},
    {"(?:\\d{1,3}\\.){3}\\d{1,3}(?::\\d{1,5})?", {find_ipv4, {kDot, kDigitAnchor}, {0, 0, 0, 3}}},
    {"0[xX][0-9a-fA-F]+", {find_hex0x, {kDigitAnchor, kLetterX}}},
    {"(?:[A-Za-z]:)?(?:[/\\\\][A-Za-z0-9._@%+~$-]+){2,}[/\\\\]?", {find_path, {kSlash | kBackslash}}},
    {"[-+]?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?", {find_number, {kDigitAnchor}}},
    {"[0-9a-fA-F]{8,}", {find_hex_id}},
};

}  // namespace

const Finder* builtin_finder(std::string_view regex) {
  for (const auto& b : kBuiltins)
    if (regex == b.regex) return &b.finder;
  return nullptr;
}

namespace {
constexpr std::array<uint8_t, 256> make_anchors() {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = kDigitAnchor;
  t['-'] = kDash;
  t['/'] = kSlash;
  t['\\'] = kBackslash;
  t[':'] = kColon;
  t['.'] = kDot;
  t['@'] = kAt;
  t['x'] = t['X'] = kLetterX;
  return t;
}
constexpr std::array<uint8_t, 256> kAnchorOf = make_anchors();
}  // namespace

uint8_t anchors_of(std::string_view line) {
  uint8_t a = 0;
  for (unsigned char c : line) a |= kAnchorOf[c];
  return a;
}

namespace {
#if defined(__SSE2__)
inline void push_positions(std::vector<uint32_t>* at, unsigned mask, size_t base) {
  while (mask) {
    at->push_back(static_cast<uint32_t>(base + static_cast<size_t>(__builtin_ctz(mask))));
    mask &= mask - 1;
  }
}
inline unsigned eq_mask(__m128i v, char c) { return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)))); }
#endif
}  // namespace

void index_line(std::string_view line, LineIndex* ix) {
  for (auto& v : ix->at) v.clear();
  uint8_t a = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  size_t i = 0;
  const size_t n = line.size();
#if defined(__SSE2__)
  // Sixteen bytes at a time: a byte-by-byte table walk branched on most
  // bytes of a line (digits) and cost 5 % of a seen line.
  unsigned digit = 0, backslash = 0, at_sign = 0, letter_x = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    push_positions(&ix->at[0], eq_mask(v, ':'), i);
    push_positions(&ix->at[1], eq_mask(v, '-'), i);
    push_positions(&ix->at[2], eq_mask(v, '/'), i);
    push_positions(&ix->at[3], eq_mask(v, '.'), i);
    // Signed compares: bytes >= 0x80 are negative, never digits.
    digit |= static_cast<unsigned>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)))));
    backslash |= eq_mask(v, '\\');
    at_sign |= eq_mask(v, '@');
    letter_x |= eq_mask(v, 'x') | eq_mask(v, 'X');
  }
  if (!ix->at[0].empty()) a |= kColon;
  if (!ix->at[1].empty()) a |= kDash;
  if (!ix->at[2].empty()) a |= kSlash;
  if (!ix->at[3].empty()) a |= kDot;
  if (digit) a |= kDigitAnchor;
  if (backslash) a |= kBackslash;
  if (at_sign) a |= kAt;
  if (letter_x) a |= kLetterX;
#endif
  for (; i < n; ++i) {
    const uint8_t k = kAnchorOf[p[i]];
    if (!k) continue;
    a |= k;
    if (const int slot = index_slot(p[i]); slot >= 0) ix->at[slot].push_back(static_cast<uint32_t>(i));
  }
  ix->anchors = a;
}

bool Finder::find(std::string_view line, size_t pos, size_t* b, size_t* e, const LineIndex* ix) const {
  View v{reinterpret_cast<const unsigned char*>(line.data()), line.size(), ix};
  return fn(v, pos, b, e);
}

}  // namespace logsift::premask
