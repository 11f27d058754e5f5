#include "pipeline/core/wildcards.h"

#include "pipeline/core/text.h"

namespace logsift {

std::string collapse_wildcards(std::string_view tmpl) {
    std::string out;
    out.reserve(tmpl.size());
    size_t i = 0;
    while (i < tmpl.size()) {
        if (tmpl.substr(i, kWildcard.size()) != kWildcard) {
            out.push_back(tmpl[i++]);
            continue;
        }
        out += kWildcard;
        i += kWildcard.size();
        // Swallow following wildcards reachable over whitespace only; if the
        // whitespace is not followed by a wildcard it is kept.
        for (;;) {
            size_t j = i;
            while (j < tmpl.size() && text::is_blank(tmpl[j])) ++j;
            if (tmpl.substr(j, kWildcard.size()) != kWildcard) break;
            i = j + kWildcard.size();
        }
    }
    return out;
}

}  // namespace logsift
