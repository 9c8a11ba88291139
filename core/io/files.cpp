#include "io/files.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tessera::core {

void writeFileAtomically(const std::string& path, const std::string& text, bool replace) {
    namespace fs = std::filesystem;
    if (fs::exists(path) && !replace) throw std::runtime_error(path + " exists; pass --force to replace it");
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
            throw std::runtime_error("cannot write " + path);
        }
    }
    std::error_code ec;
    fs::rename(temp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        throw std::runtime_error("cannot write " + path + ": " + ec.message());
    }
}

}  // namespace tessera::core
