#!/usr/bin/python3
"""Checks that the documentation (README.md and docs/) cannot drift from the code.

  links            every relative link and #anchor in README.md and docs/**/*.md
                   resolves (a file or folder of the repository; a heading of the
                   target .md file, GitHub's slug rules); no link leaves the
                   repository; every docs page says who it is for near its top
  api              docs/api.md's route table lists exactly the routes (method +
                   path) of service/api/spec/openapi.json, and every route the C++
                   dispatcher (service/api/http_api.cpp and the handlers it calls)
                   answers is named on the page
  config           docs/configuration.md's key tables list every key of
                   config/logsift.jsonc and every key config/config.cpp accepts,
                   and no other; each default shown is the file's default
  troubleshooting  every message in the first column of docs/troubleshooting.md's
                   tables is one the code can emit: its literal fragments (the
                   parts between `{...}` / `...` placeholders) occur, in order, in
                   the string literals of one statement of the C++ or JS source
  all              all four (the default)
  config-table     prints the key tables of docs/configuration.md from
                   config/logsift.jsonc (to regenerate the page's tables)

Usage: check_docs.py [--root DIR] [CHECK]. Prints each problem as FILE:LINE: what,
exits 1 if there is any. Standard library only.
"""
import argparse
import json
import os
import re
import sys
import unicodedata

# ---------------------------------------------------------------------------
# problems

class Problems:
    def __init__(self, root):
        self.root = root
        self.items = []

    def add(self, path, line, msg):
        rel = os.path.relpath(path, self.root) if os.path.isabs(path) else path
        self.items.append(f"{rel}:{line}: {msg}")

    def report(self, check):
        for p in self.items:
            print(p)
        if self.items:
            print(f"check_docs {check}: {len(self.items)} problem(s)")
        else:
            print(f"check_docs {check}: ok")
        return 1 if self.items else 0


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


# ---------------------------------------------------------------------------
# markdown

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def markdown_lines(text):
    """(line number, line) of the lines outside fenced code blocks."""
    out, fence = [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            out.append((n, line))
    return out


def github_slug(heading):
    """The anchor GitHub gives a heading: markup dropped, lower case, every
    character but letters, digits, '_', '-' and blanks dropped, blanks -> '-'."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    t = re.sub(r"<[^>]+>", "", t)  # inline HTML
    t = t.replace("`", "").replace("*", "")
    t = t.strip().lower()
    out = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch in "-_ " or cat[0] in "LN" or cat == "Mn":
            out.append(ch)
    return "".join(out).replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        seen, anchors = {}, set()
        for _, line in markdown_lines(read(path)):
            m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m:
                slug = github_slug(m.group(2))
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                anchors.add(slug if n == 0 else f"{slug}-{n}")
            for a in re.finditer(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                anchors.add(a.group(1))
        cache[path] = anchors
    return cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()]*\)[^()\s]*)*)(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)", re.M)
MULTILINE_SPAN = re.compile(r"(`+)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.S)


def prose(path):
    """The file's text with fenced code blocks blanked (line numbers kept)."""
    kept = dict(markdown_lines(read(path)))
    lines = read(path).split("\n")
    return "\n".join(kept.get(n, "") for n in range(1, len(lines) + 1))


def inline_code(path):
    """(line, content) of every inline code span outside code blocks; a span
    may run over a line break (its whitespace then reads as one blank)."""
    text = prose(path)
    return [(line_of(text, m.start()), re.sub(r"\s+", " ", m.group(2)).strip())
            for m in MULTILINE_SPAN.finditer(text)]


def links_in(path):
    """(line, target) of every inline link, image and reference definition
    outside code."""
    text = prose(path)
    bare = MULTILINE_SPAN.sub(lambda s: re.sub(r"[^\n]", "\0", s.group(0)), text)
    out = [(line_of(bare, m.start()), m.group(1)) for m in REF_DEF.finditer(bare)]
    for m in LINK.finditer(bare):
        target = m.group(1)
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        out.append((line_of(bare, m.start()), target))
    return sorted(out)


def table_rows(path):
    """(line, [cells]) of every table body row (not the header or the
    delimiter row), outside code blocks."""
    lines = markdown_lines(read(path))
    rows = []
    for i, (n, line) in enumerate(lines):
        if not line.lstrip().startswith("|"):
            continue
        if re.match(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$", line):
            continue
        nxt = lines[i + 1][1] if i + 1 < len(lines) else ""
        if re.match(r"^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$", nxt):
            continue  # a header row
        cells = split_cells(line)
        rows.append((n, cells))
    return rows


def split_cells(line):
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells, cur, i, tick = [], [], 0, None
    while i < len(s):
        ch = s[i]
        if ch == "`":
            j = i
            while j < len(s) and s[j] == "`":
                j += 1
            run = s[i:j]
            if tick is None:
                tick = run
            elif run == tick:
                tick = None
            cur.append(run)
            i = j
            continue
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "|" and tick is None:
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def code_spans(cell):
    return [m.group(2).strip() if m.group(1) == "``" else m.group(2) for m in CODE_SPAN.finditer(cell)]


def doc_files(root):
    files = []
    if os.path.isfile(os.path.join(root, "README.md")):
        files.append(os.path.join(root, "README.md"))
    for dirpath, _, names in os.walk(os.path.join(root, "docs")):
        for name in sorted(names):
            if name.endswith(".md"):
                files.append(os.path.join(dirpath, name))
    return sorted(files)


# ---------------------------------------------------------------------------
# links

def check_links(root, problems):
    root = os.path.realpath(root)
    files = doc_files(root)
    if not files:
        problems.add("README.md", 1, "no README.md or docs/*.md found")
    for path in files:
        for n, target in links_in(path):
            check_link(root, path, n, target, problems)
        if os.path.dirname(path) != root:  # a docs page: says whom it is for
            head = [line for _, line in markdown_lines(read(path))[:8]]
            if not any(line.startswith("Who this is for:") for line in head):
                problems.add(path, 1, "a docs page starts with a 'Who this is for:' line (within its first lines)")


def check_link(root, path, n, target, problems):
    if not target:
        problems.add(path, n, "empty link target")
        return
    scheme = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", target)
    if scheme:
        if scheme.group(1).lower() in ("http", "https", "mailto"):
            return  # not fetched: no test leaves the repository
        problems.add(path, n, f"link {target!r}: only relative links, http(s) and mailto are allowed")
        return
    if target.startswith("/"):
        problems.add(path, n, f"link {target!r}: absolute path; link relative to the page instead")
        return
    file_part, _, anchor = target.partition("#")
    if "shared/" in file_part.replace("\\", "/") and file_part.startswith(".."):
        problems.add(path, n, f"link {target!r} points at ../shared, outside the repository")
        return
    if file_part:
        dest = os.path.realpath(os.path.join(os.path.dirname(path), file_part))
        if dest != root and not dest.startswith(root + os.sep):
            problems.add(path, n, f"link {target!r} leaves the repository")
            return
        if not os.path.exists(dest):
            problems.add(path, n, f"link {target!r}: {os.path.relpath(dest, root)} does not exist")
            return
    else:
        dest = path
    if not anchor:
        return
    if dest.endswith(".md") and os.path.isfile(dest):
        if anchor not in anchors_of(dest):
            problems.add(path, n, f"link {target!r}: no heading with anchor #{anchor} in {os.path.relpath(dest, root)}")
    elif not re.fullmatch(r"L\d+(-L\d+)?", anchor):
        problems.add(path, n, f"link {target!r}: an anchor into a file that is not markdown")


# ---------------------------------------------------------------------------
# C++ / JS source: string literals per statement, comments dropped

ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'", "`": "`"}
PLACEHOLDER_CPP = re.compile(r"\{[^{}\"]*\}")  # fmt/spdlog {} and {:...}


def source_statements(text, js=False):
    """Splits source into statements (at ';', outside literals and comments)
    and returns, per statement, (first line, [pieces]): the literal text of
    the statement's string literals, adjacent literals joined, a runtime part
    (fmt {} or JS ${...}) and the gap between two non-adjacent literals
    written as '\\0'."""
    out = []
    i, n = 0, len(text)
    lits, cur, last_end, start_line, line = [], None, -1, 1, 1
    stmt_has = False

    def flush_literal():
        nonlocal cur
        if cur is not None:
            lits.append(cur)
            cur = None

    def end_statement():
        nonlocal lits, start_line, stmt_has
        flush_literal()
        if lits:
            out.append((start_line, "\0".join(lits)))
        lits, stmt_has = [], False

    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        if ch == ";":
            end_statement()
            i += 1
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24]) if not js else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            delim = ")" + raw.group(1) + '"'
            body_start = i + raw.end()
            j = text.find(delim, body_start)
            j = n if j < 0 else j
            piece = text[body_start:j]
            if not stmt_has:
                start_line, stmt_has = line, True
            line += piece.count("\n")
            holder = [cur]
            add_piece(piece, i, last_end, text, lits, js, holder)
            cur = holder[0]
            last_end = j + len(delim)
            i = last_end
            continue
        if ch == '"' or (js and ch in "'`"):
            quote, lit_line = ch, line
            j = i + 1
            buf = []
            while j < n and text[j] != quote:
                c = text[j]
                if c == "\\" and j + 1 < n:
                    e = text[j + 1]
                    if e == "\n":
                        line += 1
                    buf.append(ESCAPES.get(e, e))
                    j += 2
                    continue
                if js and quote == "`" and text.startswith("${", j):
                    depth, k = 0, j + 1
                    while k < n:
                        if text[k] == "{":
                            depth += 1
                        elif text[k] == "}":
                            depth -= 1
                            if depth == 0:
                                break
                        k += 1
                    buf.append("\0")
                    line += text.count("\n", j, k)
                    j = k + 1
                    continue
                if c == "\n":
                    line += 1
                    if quote != "`":
                        break  # an unterminated literal: stop at the line end
                buf.append(c)
                j += 1
            piece = "".join(buf)
            if not stmt_has:
                start_line, stmt_has = lit_line, True
            holder = [cur]
            add_piece(piece, i, last_end, text, lits, js, holder)
            cur = holder[0]
            last_end = j + 1
            i = j + 1
            continue
        if ch == "'" and not js:  # a char literal
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        i += 1
    end_statement()
    return out


def add_piece(piece, start, last_end, text, lits, js, holder):
    """Appends a literal: joined to the one before when only blanks, or a
    '+' (string concatenation), lie between them."""
    if not js:
        piece = PLACEHOLDER_CPP.sub("\0", piece)
    gap = text[last_end:start].strip() if last_end >= 0 else None
    adjacent = holder[0] is not None and gap in ("", "+")
    if adjacent:
        holder[0] += piece
    else:
        if holder[0] is not None:
            lits.append(holder[0])
        holder[0] = piece


SOURCE_DIRS = ("config", "lsh", "models", "pipeline", "service")
SOURCE_EXT = (".cpp", ".h", ".cc", ".hpp", ".in", ".js")


def source_corpus(root):
    corpus = []
    for top in SOURCE_DIRS:
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ("training", "probes", "validation", "tuning", "proto")]
            for name in sorted(names):
                if name.endswith(SOURCE_EXT):
                    path = os.path.join(dirpath, name)
                    try:
                        text = read(path)
                    except UnicodeDecodeError:
                        continue
                    for line, joined in source_statements(text, js=name.endswith(".js")):
                        corpus.append((path, line, joined))
    return corpus


# ---------------------------------------------------------------------------
# troubleshooting

VARIABLE = re.compile(r"\{[^{}\"]*\}|…")
GAP = "\0(?:[^\0]*\0)*?"  # a runtime part: one value, or values and literals between two literal pieces


def message_fragments(message):
    return [f for f in VARIABLE.split(message) if f]


def message_regex(message):
    """A message as written on the page -> a regex over a statement's joined
    literals: its literal fragments in order, each runtime part ({...} or
    ...) one or more gaps between literal pieces, and a fragment that starts
    or ends the message starting or ending a literal piece."""
    parts = VARIABLE.split(message)
    lead, trail = parts[0] != "", parts[-1] != ""
    frags = [re.escape(p) for p in parts]
    if not lead:
        frags = frags[1:]
    if not trail:
        frags = frags[:-1]
    return re.compile(("(?:^|\0)" if lead else "") + GAP.join(frags) + ("(?:\0|$)" if trail else ""), re.S)


def find_message(message, corpus):
    rx = message_regex(message)
    for path, line, joined in corpus:
        if rx.search(joined):
            return path, line
    return None


def check_troubleshooting(root, problems):
    page = os.path.join(root, "docs", "troubleshooting.md")
    if not os.path.isfile(page):
        problems.add("docs/troubleshooting.md", 1, "missing")
        return
    corpus = source_corpus(root)
    if len(corpus) < 1:
        problems.add(page, 1, "no C++/JS source found under " + ", ".join(SOURCE_DIRS))
        return
    count = 0
    for n, cells in table_rows(page):
        for message in code_spans(cells[0]):
            count += 1
            fragments = message_fragments(message)
            if sum(len(f.strip()) for f in fragments) < 4:
                problems.add(page, n, f"message `{message}`: too little literal text to look for")
                continue
            if not find_message(message, corpus):
                problems.add(page, n, f"message `{message}` is not one the code can emit "
                                      f"(looked for {fragments!r} in order in one statement's string literals)")
    if count == 0:
        problems.add(page, 1, "no messages found (the first column of a table, as inline code)")


# ---------------------------------------------------------------------------
# config

def strip_jsonc(text):
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def jsonc_keys(root):
    """{key: (default, line)} of config/logsift.jsonc, in file order."""
    path = os.path.join(root, "config", "logsift.jsonc")
    text = read(path)
    doc = json.loads(strip_jsonc(text))
    out = {}
    for key, value in doc.items():
        m = re.search(r'^\s*"' + re.escape(key) + r'"\s*:', text, re.M)
        out[key] = (value, line_of(text, m.start()) if m else 1)
    return out


def jsonc_docs(root):
    """{key: the comment after it} (what the binary's --help prints)."""
    text = read(os.path.join(root, "config", "logsift.jsonc"))
    docs = {}
    for line in text.split("\n"):
        m = re.match(r'^\s*"([a-z_0-9]+)":\s*(?:"(?:[^"\\]|\\.)*"|[^"/]*?)\s*,?\s*//\s*(.*)$', line)
        if m:
            docs[m.group(1)] = m.group(2)
    return docs


def parser_keys(root):
    """{key: line} of the keys config/config.cpp's key table accepts, and
    {premask field: line} of the fields a premask entry may have."""
    path = os.path.join(root, "config", "config.cpp")
    text = read(path)
    keys, fields = {}, {}
    m = re.search(r"key_table\(\)\s*\{", text)
    if m:
        body = text[m.end():text.find("return table;", m.end())]
        for k in re.finditer(r"LS_(?:INT|STR|BOOL|DOUBLE)\(\s*(\w+)\s*\)|KeyDesc\{\s*\"(\w+)\"", body):
            keys[k.group(1) or k.group(2)] = line_of(text, m.end() + k.start())
    p = re.search(r"void set_premask\(", text)
    if p:
        end = text.find("\n}", p.end())
        for f in re.finditer(r'it\.key\(\) != "(\w+)"', text[p.end():end]):
            fields[f.group(1)] = line_of(text, p.end() + f.start())
    return path, keys, fields


def check_config(root, problems):
    page = os.path.join(root, "docs", "configuration.md")
    file_keys = jsonc_keys(root)
    cpp_path, cpp_keys, premask_fields = parser_keys(root)
    jsonc = os.path.join(root, "config", "logsift.jsonc")
    if len(cpp_keys) < 1:
        problems.add(cpp_path, 1, "no keys found in key_table() (LS_INT(...), KeyDesc{\"...\"}): parser out of date?")
    for k, (_, n) in file_keys.items():
        if k not in cpp_keys:
            problems.add(jsonc, n, f"key '{k}' is in the defaults file but config.cpp does not accept it")
    for k, n in cpp_keys.items():
        if k not in file_keys:
            problems.add(cpp_path, n, f"key '{k}' is accepted by config.cpp but has no default in logsift.jsonc")
    expected = set(file_keys) | set(cpp_keys) | {f"premask[].{f}" for f in premask_fields}
    if not os.path.isfile(page):
        problems.add("docs/configuration.md", 1, "missing")
        return
    documented = {}
    for n, cells in table_rows(page):
        spans = code_spans(cells[0])
        if len(spans) != 1 or cells[0] != f"`{spans[0]}`":
            continue
        key = spans[0]
        if not re.fullmatch(r"[a-z_0-9]+(\[\]\.[a-z_0-9]+)?", key):
            continue
        if key in documented:
            problems.add(page, n, f"key '{key}' is listed twice (also line {documented[key]})")
        documented[key] = n
        if key not in expected:
            problems.add(page, n, f"key '{key}' is neither in config/logsift.jsonc nor accepted by config/config.cpp")
            continue
        if key in file_keys and len(cells) > 1:
            default = file_keys[key][0]
            if not isinstance(default, (list, dict)):
                want = json.dumps(default, ensure_ascii=False)
                shown = code_spans(cells[1])
                if shown != [want]:
                    problems.add(page, n, f"key '{key}': default shown as {cells[1]!r}, the file says `{want}`")
    for key in sorted(expected - set(documented)):
        where = file_keys.get(key, (None, None))[1] or cpp_keys.get(key)
        problems.add(page, 1, f"key '{key}' is not in the reference"
                              + (f" (config/logsift.jsonc:{where})" if where else ""))


def config_table(root):
    """The key tables of docs/configuration.md, one per section of the
    defaults file, generated from it."""
    text = read(os.path.join(root, "config", "logsift.jsonc"))
    docs = jsonc_docs(root)
    keys = jsonc_keys(root)
    out, section = [], None
    for line in text.split("\n"):
        s = re.match(r"^\s*//\s*---\s*(.*?)\s*-*\s*$", line)
        if s:
            section = s.group(1)
            out.append(f"\n### {section[0].upper() + section[1:]}\n\n| key | default | what it does |\n| --- | --- | --- |")
            continue
        k = re.match(r'^\s*"([a-z_0-9]+)"\s*:', line)
        if k and k.group(1) in keys:
            key = k.group(1)
            value = keys[key][0]
            shown = "see below" if isinstance(value, (list, dict)) else f"`{json.dumps(value, ensure_ascii=False)}`"
            doc = docs.get(key, "").replace("|", "\\|")
            out.append(f"| `{key}` | {shown} | {doc} |")
    return "\n".join(out).lstrip("\n")


# ---------------------------------------------------------------------------
# api: the spec, the page and the C++ dispatcher

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
ROUTE_CELL = re.compile(r"^`(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS) (/\S*)`$")
ROUTE_MENTION = re.compile(r"`(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS) (/[^`\s]*)`")


def spec_routes(root):
    path = os.path.join(root, "service", "api", "spec", "openapi.json")
    spec = json.loads(read(path))
    out = set()
    for p, ops in spec.get("paths", {}).items():
        for m in ops:
            if m.lower() in METHODS:
                out.add((m.upper(), p))
    return path, out


def skip_literal(text, i):
    """Index just past the string or char literal starting at i."""
    q = text[i]
    j = i + 1
    while j < len(text) and text[j] != q:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def code_only(text):
    """The text with comments blanked (same length, newlines kept)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        if text[i] in "\"'":
            i = skip_literal(text, i)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [c if c == "\n" else " " for c in text[i:j]]
            i = j
        else:
            i += 1
    return "".join(out)


def balanced(text, i, open_ch, close_ch):
    """text[i] == open_ch: the index of its matching close_ch."""
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c in "\"'":
            j = skip_literal(text, j)
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ValueError(f"unbalanced {open_ch} at offset {i}")


def function_body(files, name):
    """(path, text, start, end) of the body of the function `name` defined in
    one of files: the first '{' after a line that defines it."""
    for path in files:
        text = code_only(read(path))
        for m in re.finditer(r"(?m)^[^\n;{}]*?\b" + re.escape(name) + r"\s*\(", text):
            paren = text.find("(", m.end() - 1)
            try:
                close = balanced(text, paren, "(", ")")
            except ValueError:
                continue
            k = close + 1
            while k < len(text) and text[k] in " \t\n":
                k += 1
            if k < len(text) and text[k] == "{":
                return path, text, k, balanced(text, k, "{", "}")
            if text.startswith("const", k):
                k2 = text.find("{", k)
                if k2 > 0 and ";" not in text[k:k2]:
                    return path, text, k2, balanced(text, k2, "{", "}")
    return None


def verbs_in(text):
    out = []
    for m in re.finditer(r"http::verb::(\w+)", text):
        v = m.group(1).rstrip("_").upper()
        if v not in out:
            out.append(v)
    return out


def router_routes(root, problems):
    """{(METHOD, path): (file, line)} of the routes the dispatcher answers,
    read from its source: the if / else-if chain in handle_http_request's try
    block, each branch's path literals (t.path == "...", starts_with /
    ends_with around an {id}), or the helper it asks (bulk_target_index,
    web_asset, es_probe, cluster_action_of), and its methods (only(http::verb::X), the helper's
    method checks, or the handler it calls)."""
    api_dir = os.path.join(root, "service", "api")
    files = sorted(os.path.join(api_dir, f) for f in os.listdir(api_dir) if f.endswith(".cpp"))
    dispatcher = os.path.join(api_dir, "http_api.cpp")
    found = function_body([dispatcher], "handle_http_request")
    routes = {}
    if not found:
        problems.add(dispatcher, 1, "handle_http_request not found: the route parser is out of date")
        return routes
    path, text, start, end = found
    t = re.compile(r"\btry\s*\{").search(text, start, end)
    if not t:
        problems.add(dispatcher, line_of(text, start), "no try block in handle_http_request: parser out of date")
        return routes
    m = re.compile(r"\s*if\s*\(").match(text, t.end())
    while m:
        cond_open = m.end() - 1
        cond_close = balanced(text, cond_open, "(", ")")
        cond = text[cond_open + 1:cond_close]
        brace = text.find("{", cond_close)
        body_end = balanced(text, brace, "{", "}")
        body = text[brace + 1:body_end]
        branch_routes(root, files, path, line_of(text, cond_open), cond, body, routes, problems)
        m = re.compile(r"\s*else\s+if\s*\(").match(text, body_end + 1)
    return routes


def branch_routes(root, files, path, line, cond, body, routes, problems):
    paths = re.findall(r't\.path\s*==\s*"([^"]*)"', cond)
    starts = re.findall(r'starts_with\(\s*"([^"]*)"\s*\)', cond)
    ends = re.findall(r'ends_with\(\s*"([^"]*)"\s*\)', cond)
    where = (path, line)
    methods_of = {}
    if starts and ends:
        paths.append(starts[0] + "{id}" + ends[0])
    else:
        paths += [s + "{id}" for s in starts]
    helper = None
    for h in ("bulk_target_index", "web_asset", "es_probe", "cluster_action_of"):
        if re.search(r"\b" + h + r"\s*\(", cond):
            helper = h
    if helper == "bulk_target_index":
        f = function_body(files, "bulk_target_index")
        if f:
            fp, ft, s, e = f
            b = ft[s:e]
            paths += re.findall(r'path\s*==\s*"([^"]*)"', b)
            for suffix in re.findall(r'kSuffix\s*=\s*"([^"]*)"', b):
                paths.append("/{index}" + suffix)
    elif helper == "cluster_action_of":
        f = function_body(files, "cluster_action_of")
        if f:
            fp, ft, s, e = f
            b = ft[s:e]
            prefix = re.search(r'starts_with\(\s*"([^"]*)"\s*\)', b)
            actions = re.search(r"for\s*\([^)]*?\s:\s*\{([^}]*)\}", b)
            if prefix and actions:
                paths += [prefix.group(1) + "{id}/" + a for a in re.findall(r'"([^"]*)"', actions.group(1))]
    elif helper == "web_asset":
        f = function_body(files, "web_asset")
        if f:
            fp, ft, s, e = f
            paths += re.findall(r'path\s*==\s*"([^"]*)"', ft[s:e])
        for v in verbs_in(cond):
            methods_of.setdefault(None, []).append(v)
    elif helper == "es_probe":
        f = function_body(files, "es_probe_response")
        if f:
            fp, ft, s, e = f
            b = ft[s:e]
            paths += [p for p in re.findall(r'path\s*==\s*"([^"]*)"', b)]
            methods_of[None] = re.findall(r'method\s*!=\s*"([A-Z]+)"', b)
    paths = list(dict.fromkeys(p for p in paths if p))
    if not paths:
        problems.add(path, line, f"cannot read the route of this dispatcher branch ({cond.strip()[:60]}...)")
        return
    if None not in methods_of:
        only = [m.group(1).rstrip("_").upper() for m in re.finditer(r"only\(\s*http::verb::(\w+)\s*\)", body)]
        if only:
            methods_of[None] = only
        else:
            call = re.search(r"\b(handle_\w+)\s*\(", body)
            f = function_body(files, call.group(1)) if call else None
            if not f:
                problems.add(path, line, f"cannot tell the methods of {paths[0]}: no only(http::verb::X) and no handler")
                return
            fp, ft, s, e = f
            hb = ft[s + 1:e]
            split = re.search(r"if\s*\(\s*rest\.empty\(\)\s*\)\s*\{", hb)
            if split and len(paths) >= 2:
                close = balanced(hb, split.end() - 1, "{", "}")
                methods_of[paths[0]] = verbs_in(hb[split.end():close])
                for p in paths[1:]:
                    methods_of[p] = verbs_in(hb[close:])
            else:
                methods_of[None] = verbs_in(hb)
    for p in paths:
        for m in methods_of.get(p, methods_of.get(None, [])):
            routes.setdefault((m, p), where)


def check_api(root, problems):
    page = os.path.join(root, "docs", "api.md")
    spec_path, spec = spec_routes(root)
    if not spec:
        problems.add(spec_path, 1, "no paths in the OpenAPI file")
    if not os.path.isfile(page):
        problems.add("docs/api.md", 1, "missing")
        return
    table = {}
    for n, cells in table_rows(page):
        m = ROUTE_CELL.match(cells[0])
        if not m:
            continue
        route = (m.group(1), m.group(2))
        if route in table:
            problems.add(page, n, f"route {route[0]} {route[1]} is listed twice (also line {table[route]})")
        table[route] = n
        if route not in spec:
            problems.add(page, n, f"route {route[0]} {route[1]} is not in service/api/spec/openapi.json")
    for route in sorted(spec - set(table), key=lambda r: (r[1], r[0])):
        problems.add(page, 1, f"route {route[0]} {route[1]} of openapi.json is missing from the route table")
    mentioned = set()
    for _, span in inline_code(page):
        m = ROUTE_MENTION.fullmatch(f"`{span}`")
        if m:
            mentioned.add((m.group(1), m.group(2)))
    routes = router_routes(root, problems)
    if len(routes) < max(1, len(spec) // 2):
        problems.add(os.path.join(root, "service", "api", "http_api.cpp"), 1,
                     f"only {len(routes)} routes read from the dispatcher for {len(spec)} in openapi.json: "
                     "the route parser of check_docs.py is out of date")
    for route, (src, n) in sorted(routes.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if route not in mentioned:
            problems.add(page, 1, f"route `{route[0]} {route[1]}` that the dispatcher answers "
                                  f"({os.path.relpath(src, root)}:{n}) is not named on the page")


# ---------------------------------------------------------------------------

CHECKS = {
    "links": check_links,
    "api": check_api,
    "config": check_config,
    "troubleshooting": check_troubleshooting,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("check", nargs="?", default="all", choices=[*CHECKS, "all", "config-table"])
    args = ap.parse_args(argv)
    root = os.path.realpath(args.root)
    if args.check == "config-table":
        print(config_table(root))
        return 0
    status = 0
    for name in CHECKS if args.check == "all" else [args.check]:
        problems = Problems(root)
        try:
            CHECKS[name](root, problems)
        except (OSError, ValueError) as e:
            problems.add(getattr(e, "filename", None) or ".", 1, f"{type(e).__name__}: {e}")
        status |= problems.report(name)
    return status


if __name__ == "__main__":
    sys.exit(main())
