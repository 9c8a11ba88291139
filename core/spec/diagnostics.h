#pragma once
// Where a value stood, and what is wrong with it. Every refusal Tessera makes is a
// Diagnostic: the place (file:line:column), the field path (`exec.tp`) and a
// message that says what was expected and what was found. Loaders collect as
// many as they can before giving up, so one run of `tessera validate` shows
// every mistake of a file, one per line.
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::core {

struct Mark {
    std::string file;
    int line = 0;  // 1-based; 0 when unknown (values made in code)
    int column = 0;
    std::string text() const;  // "file:line:column", or less when unknown
};

struct Diagnostic {
    Mark mark;
    std::string path;     // "exec.tp"; empty for whole-file problems
    std::string message;  // "must divide num_attention_heads (64), got 3"
    std::string text() const;  // "file:3:5: exec.tp: must divide ..."
};

class Diagnostics {
public:
    void add(Mark mark, std::string path, std::string message);
    void append(const Diagnostics& other);
    bool empty() const { return m_list.empty(); }
    std::size_t size() const { return m_list.size(); }
    const std::vector<Diagnostic>& list() const { return m_list; }
    // Throws SpecError when any were added.
    void raiseIfAny() const;

private:
    std::vector<Diagnostic> m_list;
};

// A spec that cannot be used; what() joins the diagnostics one per line.
class SpecError : public std::runtime_error {
public:
    explicit SpecError(std::vector<Diagnostic> diagnostics);
    explicit SpecError(Diagnostic diagnostic);
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
    std::vector<Diagnostic> m_diagnostics;
};

// A file that could not be read at all (missing, unreadable): not the input's
// fault, so the CLI exits 1 for it rather than 2.
class FileError : public SpecError {
public:
    using SpecError::SpecError;
};

}  // namespace tessera::core
