#include "spec/diagnostics.h"

namespace tessera::core {

std::string Mark::text() const {
    std::string out = file;
    if (line > 0) {
        (out += ':') += std::to_string(line);  // (not ":" + ...: GCC 12's -Wrestrict misfires on it at -O3)
        if (column > 0) (out += ':') += std::to_string(column);
    }
    return out;
}

std::string Diagnostic::text() const {
    std::string out = mark.text();
    if (!out.empty()) out += ": ";
    if (!path.empty()) out += path + ": ";
    return out + message;
}

void Diagnostics::add(Mark mark, std::string path, std::string message) {
    m_list.push_back({std::move(mark), std::move(path), std::move(message)});
}

void Diagnostics::append(const Diagnostics& other) {
    m_list.insert(m_list.end(), other.m_list.begin(), other.m_list.end());
}

void Diagnostics::raiseIfAny() const {
    if (!m_list.empty()) throw SpecError(m_list);
}

namespace {
std::string joined(const std::vector<Diagnostic>& list) {
    std::string out;
    for (const Diagnostic& d : list) {
        if (!out.empty()) out += '\n';
        out += d.text();
    }
    return out;
}
}  // namespace

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(joined(diagnostics)), m_diagnostics(std::move(diagnostics)) {}

Error::Error(Diagnostic diagnostic) : Error(std::vector<Diagnostic>{std::move(diagnostic)}) {}

}  // namespace tessera::core
