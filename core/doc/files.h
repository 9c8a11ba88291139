#pragma once
// Writing files without losing anything: the text goes to a temporary beside the
// target and is renamed over it, so a reader never sees half a file and a failed
// write leaves the old one; an existing file is replaced only when asked.
#include <string>

namespace tessera::core {

// Throws FileError at the path: it exists (and replace is false), or it could not be
// written.
void writeFileAtomically(const std::string& path, const std::string& text, bool replace);

}  // namespace tessera::core
