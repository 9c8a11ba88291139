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

// The one root of everything Tessera throws: a list of diagnostics, what() joining
// them one per line. The kind says what went wrong, and so what a front end does
// with it: SpecError, the input was refused (the CLI exits 2); FileError, a file
// could not be read or written at all (exit 1); LoadError (doc/document.h), a
// document that does not parse, a SpecError with one diagnostic; the CLI's
// UsageError, the command line itself is wrong (exit 64).
class Error : public std::runtime_error {
public:
    explicit Error(std::vector<Diagnostic> diagnostics);
    explicit Error(Diagnostic diagnostic);
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
    std::vector<Diagnostic> m_diagnostics;
};

// An input that cannot be used.
class SpecError : public Error {
public:
    using Error::Error;
};

// A file that could not be read or written at all (missing, unreadable, a full
// disk): not the input's fault, so the CLI exits 1 for it rather than 2. It is a
// SpecError too, so a caller that only asks "can I use this input?" catches both.
class FileError : public SpecError {
public:
    using SpecError::SpecError;
};

}  // namespace tessera::core
