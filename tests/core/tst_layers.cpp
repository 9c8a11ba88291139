// The shape of the house (README "How it fits together"): inside core and inside ui,
// every folder includes only folders below it, so the include graph between folders
// has no cycle and no upward arrow; core includes no Qt; no source file is longer
// than one sitting's reading (600 lines). The ranks below are the house as built: a
// new folder has to be given its height here, in the README and in
// core/CMakeLists.txt's order, before anything can include it.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

// From the ground up. Folders of equal height may not include each other either.
const std::map<std::string, int> kCoreRanks = {
    {"units", 0},    // bytes, seconds, display text of numbers
    {"spec", 1},     // the specs and their field tables, diagnostics
    {"doc", 2},      // positioned value trees: parse, emit, atomic files
    {"io", 3},       // specs in and out of trees, scenario files, presets, --set, imports
    {"pipeline", 4}, // stage partitions, schedules as events, closed forms
    {"resolve", 5},  // stated -> resolved scenario, provenance, rules across fields
    {"model", 6},    // the cost model, Evaluation
    {"plan", 7},     // planning inside a strategy: partition, recompute per layer, PPB
    {"search", 8},   // the strategy space, validity, the search, one spelling of a strategy
    {"calibrate", 8},// efficiencies fitted on measured runs (tessera calibrate)
    {"fit", 9},      // why a strategy does not fit and what would: moves re-derived and priced, fixes
    {"trainyaml", 9},// HyperParallel train.yaml both ways
    {"trainers", 10},// Megatron-LM, torchtitan and the other trainers' files, both ways; import by content
    {"report", 10},   // what show, estimate and search print
};
const std::map<std::string, int> kUiRanks = {
    {"style", 0},                                               // colours, fonts, review mode
    {"charts", 1}, {"models", 1}, {"commands", 1}, {"workers", 1},  // value -> chart, item models, undo, the search worker
    {"session", 2},                                             // the one owner of what the window is about
    {"views", 3}, {"forms", 3},                                 // tabs and forms subscribed to the session
    {"export", 4},                                              // PNG, PDF, train.yaml from values
    {"mainwindow", 5},                                          // layout, menus, files, recovery
};

struct Include {
    std::string from, to;  // folders
    std::string where;     // file:line
};

bool isSource(const fs::path& p) { return p.extension() == ".h" || p.extension() == ".cpp"; }

std::vector<fs::path> sources(const fs::path& root) {
    std::vector<fs::path> out;
    for (const auto& entry : fs::recursive_directory_iterator(root))
        if (entry.is_regular_file() && isSource(entry.path())) out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

// Every quoted include of a file under `root` that names another folder of `root`.
std::vector<Include> folderIncludes(const fs::path& root, const std::map<std::string, int>& ranks) {
    // (No raw strings here: moc's preprocessor reads a '#' in one as a directive.)
    static const std::regex include("^\\s*[#]\\s*include\\s*\"([a-z_]+)/[^\"]+\"");
    std::vector<Include> out;
    for (const fs::path& file : sources(root)) {
        const std::string folder = fs::relative(file, root).begin()->string();
        std::ifstream in(file);
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            std::smatch m;
            if (std::regex_search(line, m, include) && ranks.contains(m[1]) && m[1] != folder)
                out.push_back({folder, m[1], fs::relative(file, root.parent_path()).string() + ":" + std::to_string(n)});
        }
    }
    return out;
}

}  // namespace

class TestLayers : public QObject {
    Q_OBJECT
private slots:
    void foldersIncludeOnlyFoldersBelowThem_data() {
        QTest::addColumn<QString>("root");
        QTest::newRow("core") << "core";
        QTest::newRow("ui") << "ui";
    }
    void foldersIncludeOnlyFoldersBelowThem() {
        QFETCH(QString, root);
        const fs::path dir = fs::path(TESSERA_SOURCE_DIR) / root.toStdString();
        const auto& ranks = root == "core" ? kCoreRanks : kUiRanks;
        // Every folder has a height; a folder nobody placed would escape the check.
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.is_directory())
                QVERIFY2(ranks.contains(entry.path().filename().string()),
                         qPrintable(QString("%1/%2 has no place in the house: give it a rank in tst_layers.cpp")
                                        .arg(root, QString::fromStdString(entry.path().filename().string()))));
        QStringList upward;
        std::set<std::pair<std::string, std::string>> edges;
        for (const Include& i : folderIncludes(dir, ranks)) {
            edges.insert({i.from, i.to});
            if (ranks.at(i.to) >= ranks.at(i.from))
                upward << QString::fromStdString(i.where + ": " + i.from + " includes " + i.to);
        }
        QVERIFY2(upward.isEmpty(), qPrintable("includes that point up or sideways:\n" + upward.join('\n')));
        QVERIFY(!edges.empty());  // the scan found the includes at all
    }

    void coreIncludesNoQt() {
        static const std::regex qt("^\\s*[#]\\s*include\\s*<Q");
        for (const fs::path& file : sources(fs::path(TESSERA_SOURCE_DIR) / "core")) {
            std::ifstream in(file);
            std::string line;
            for (int n = 1; std::getline(in, line); ++n)
                QVERIFY2(!std::regex_search(line, qt), qPrintable(QString::fromStdString(file.string()) + ":" + QString::number(n)));
        }
    }

    void noFileOverSixHundredLines() {
        QStringList long_;
        for (const char* top : {"core", "ui", "app", "tests"}) {
            for (const fs::path& file : sources(fs::path(TESSERA_SOURCE_DIR) / top)) {
                std::ifstream in(file);
                int lines = 0;
                for (std::string line; std::getline(in, line);) ++lines;
                if (lines > 600) long_ << QString("%1 (%2 lines)").arg(QString::fromStdString(file.string())).arg(lines);
            }
        }
        QVERIFY2(long_.isEmpty(), qPrintable(long_.join('\n')));
    }
};

QTEST_APPLESS_MAIN(TestLayers)
#include "tst_layers.moc"
