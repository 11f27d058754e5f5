#pragma once
// RFC 4180 CSV reading for the labelled evaluation data (loghub *_structured_*.csv).
// Not on the serving path: simple, whole-file, exceptions on bad input.

#include <string>
#include <string_view>
#include <vector>

namespace logsift {

// Parses CSV text into records of fields.
//  - Fields may be quoted; inside quotes "" is a literal quote and commas,
//    CR and LF are data.
//  - Records end at LF or CRLF (outside quotes); a final terminator does not
//    start an extra empty record. A lone CR outside quotes is kept as data.
//  - An empty line is a record with one empty field (RFC 4180 semantics).
//  - Lenient like Python's csv module: a quote inside an unquoted field, or
//    text after a closing quote, is kept literally.
// Throws std::runtime_error on an unterminated quoted field.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    // Index of the header column called `name`, or -1 if absent.
    int column(std::string_view name) const;
};

// Reads a CSV file whose first record is the header. Strips a UTF-8 BOM,
// skips blank records, and requires every row to have as many fields as the
// header. Throws std::runtime_error naming `path` on IO or format errors.
CsvTable read_csv_file(const std::string& path);

}  // namespace logsift
