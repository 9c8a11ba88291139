#include "doc/files.h"

#include <filesystem>
#include <fstream>

#include "spec/diagnostics.h"

namespace tessera::core {

void writeFileAtomically(const std::string& path, const std::string& text, bool replace) {
    namespace fs = std::filesystem;
    if (fs::exists(path) && !replace) throw FileError(Diagnostic{Mark{path}, "", "exists; pass --force to replace it"});
    const std::string temp = path + ".tessera-tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        // A full disk or a file-size limit can keep part of the bytes without a
        // stream error; the old file must then stay, so the size is checked too.
        std::error_code sizeError;
        if (!out || fs::file_size(temp, sizeError) != text.size() || sizeError) {
            std::error_code ignored;
            fs::remove(temp, ignored);
            throw FileError(Diagnostic{Mark{path}, "", "cannot write the file (is the disk full?)"});
        }
    }
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw FileError(Diagnostic{Mark{path}, "", "cannot write the file: " + ec.message()});
    }
}

}  // namespace tessera::core
