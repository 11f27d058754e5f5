#include "pipeline/eval/csv.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace logsift {

std::vector<std::vector<std::string>> parse_csv(std::string_view text) {
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    const size_t n = text.size();
    size_t i = 0;
    size_t line = 1;  // for error messages only

    while (i < n) {
        // At the start of a field.
        if (text[i] == '"') {
            const size_t open_line = line;
            ++i;
            bool closed = false;
            while (i < n) {
                const char c = text[i];
                if (c == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        field.push_back('"');
                        i += 2;
                        continue;
                    }
                    ++i;
                    closed = true;
                    break;
                }
                if (c == '\n') ++line;
                field.push_back(c);
                ++i;
            }
            if (!closed) {
                throw std::runtime_error("CSV: unterminated quoted field starting on line " +
                                         std::to_string(open_line));
            }
        }
        // Unquoted text (or stray text after a closing quote) up to the delimiter.
        while (i < n && text[i] != ',' && text[i] != '\n' &&
               !(text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
            field.push_back(text[i]);
            ++i;
        }
        record.push_back(std::move(field));
        field.clear();
        if (i >= n) break;
        if (text[i] == ',') {
            ++i;
            // A trailing comma at end of input still denotes one more (empty) field.
            if (i == n) record.emplace_back();
            continue;
        }
        // End of record: LF or CRLF.
        i += text[i] == '\r' ? 2 : 1;
        ++line;
        records.push_back(std::move(record));
        record.clear();
    }
    if (!record.empty()) records.push_back(std::move(record));
    return records;
}

int CsvTable::column(std::string_view name) const {
    for (size_t i = 0; i < header.size(); ++i) {
        if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
}

CsvTable read_csv_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot open CSV file " + path + ": " + std::strerror(errno));
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error("error reading CSV file " + path);

    std::string_view view(text);
    if (view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);

    std::vector<std::vector<std::string>> records;
    try {
        records = parse_csv(view);
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    if (records.empty()) throw std::runtime_error("CSV file " + path + " is empty (no header)");

    CsvTable table;
    table.header = std::move(records.front());
    table.rows.reserve(records.size() - 1);
    for (size_t r = 1; r < records.size(); ++r) {
        auto& rec = records[r];
        // Blank lines (e.g. a doubled trailing newline) are not data rows.
        if (rec.size() == 1 && rec[0].empty() && table.header.size() != 1) continue;
        if (rec.size() != table.header.size()) {
            std::ostringstream msg;
            msg << "CSV file " << path << ": record " << r + 1 << " has " << rec.size()
                << " fields, header has " << table.header.size();
            throw std::runtime_error(msg.str());
        }
        table.rows.push_back(std::move(rec));
    }
    return table;
}

}  // namespace logsift
