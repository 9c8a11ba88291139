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
        out.flush();
        if (!out) {
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
