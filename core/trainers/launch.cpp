#include "trainers/launch.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace tessera::core::trainers {

namespace {

struct Token {
    std::string text;
    Mark mark;
    bool quoted = false;
};

// Words as a shell splits them, each with where it starts.
std::vector<Token> tokens(std::string_view text, const std::string& file, Diagnostics& d) {
    std::vector<Token> out;
    int line = 1, column = 1;
    std::size_t i = 0;
    auto advance = [&](std::size_t n = 1) {
        for (std::size_t k = 0; k < n && i < text.size(); ++k, ++i) {
            if (text[i] == '\n') ++line, column = 1;
            else ++column;
        }
    };
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') { advance(); continue; }
        if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
            advance(text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n' ? 3 : 2);
            continue;
        }
        if (c == '#') {  // a comment runs to the end of the line
            while (i < text.size() && text[i] != '\n') advance();
            continue;
        }
        Token t{{}, Mark{file, line, column}, false};
        while (i < text.size()) {
            const char ch = text[i];
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') break;
            if (ch == '\\' && i + 1 < text.size()) {
                if (text[i + 1] == '\n' || text[i + 1] == '\r') break;  // continuation ends the word
                t.text += text[i + 1];
                advance(2);
                continue;
            }
            if (ch == '\'' || ch == '"') {
                const Mark open{file, line, column};
                t.quoted = true;
                advance();
                while (i < text.size() && text[i] != ch) {
                    if (ch == '"' && text[i] == '\\' && i + 1 < text.size()) advance();
                    t.text += text[i];
                    advance();
                }
                if (i >= text.size()) {
                    d.add(open, "", std::string("the quote ") + ch + " is never closed");
                    return out;
                }
                advance();
                continue;
            }
            t.text += ch;
            advance();
        }
        out.push_back(std::move(t));
    }
    return out;
}

bool isFlag(const std::string& s) { return s.size() > 2 && s[0] == '-' && s[1] == '-'; }

// The spellings Megatron-LM gives one setting under another name, as the name and
// value the reader takes (store_false flags and old aliases).
struct Alias {
    std::string_view spelled, name, value;
};
constexpr Alias kCliAliases[] = {
    {"no-overlap-p2p-communication", "overlap-p2p-comm", "false"},
    {"disable-bias-linear", "add-bias-linear", "false"},
    {"no-position-embedding", "add-position-embedding", "false"},
    {"recompute-activations", "recompute-granularity", "selective"},
    {"no-cpu-offloading-activations", "cpu-offloading-activations", "false"},
    {"disable-cpu-offloading-activations", "cpu-offloading-activations", "false"},
    {"torch-fsdp2-no-reshard-after-forward", "torch-fsdp2-reshard-after-forward", "false"},
};

LaunchArg argument(const Token& flag) {
    LaunchArg a;
    a.spelled = flag.text;
    a.mark = flag.mark;
    std::string name = flag.text.substr(2);
    if (const auto eq = name.find('='); eq != std::string::npos) {
        a.values.push_back(name.substr(eq + 1));
        name = name.substr(0, eq);
        a.spelled = "--" + name;
    }
    a.name = name;
    for (const Alias& alias : kCliAliases)
        if (name == alias.spelled) a.name = alias.name, a.values = {std::string(alias.value)};
    return a;
}

const std::regex kArrayOpen("^[A-Za-z_][A-Za-z0-9_]*(\\+?)=\\($");
const std::regex kArrayUse("^\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\[@\\]\\}$");

}  // namespace

bool looksLikeMegatronArgs(std::string_view text) {
    for (const char* arg : {"--num-layers", "--tensor-model-parallel-size", "--micro-batch-size", "--hidden-size",
                            "--pipeline-model-parallel-size", "--seq-length"})
        if (text.find(arg) != std::string_view::npos) return true;
    return false;
}

Launch parseLaunch(std::string_view text, const std::string& file, Diagnostics& d) {
    std::vector<Token> words = tokens(text, file, d);
    // Split a quoted "--flag value" into its words (an unquoted array expansion does).
    std::vector<Token> split;
    for (Token& t : words) {
        if (t.quoted && isFlag(t.text) && t.text.find(' ') != std::string::npos) {
            std::size_t start = 0;
            int offset = 0;
            while (start < t.text.size()) {
                const auto space = t.text.find(' ', start);
                const std::string part = t.text.substr(start, space == std::string::npos ? std::string::npos : space - start);
                if (!part.empty()) split.push_back({part, Mark{t.mark.file, t.mark.line, t.mark.column + 1 + offset}, true});
                if (space == std::string::npos) break;
                offset += int(space - start) + 1;
                start = space + 1;
            }
        } else {
            split.push_back(std::move(t));
        }
    }
    // Arrays the text defines, so that a later ${NAME[@]} is known to be read already.
    std::set<std::string> arrays;
    for (const Token& t : split) {
        std::smatch m;
        if (!t.quoted && std::regex_match(t.text, m, kArrayOpen)) arrays.insert(t.text.substr(0, t.text.find_first_of("+=")));
    }
    // Arguments go to the array being defined, to the launcher (before the script on
    // the launch line), or to the script. An array referenced before the script is the
    // launcher's (torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py ...).
    Launch out;
    std::map<std::string, std::vector<LaunchArg>> defined;
    std::vector<std::string> launcherArrays;
    std::vector<LaunchArg> loose;  // outside any array and any launch line
    std::vector<LaunchArg>* into = &loose;
    std::string inArray;
    bool onLaunchLine = false, afterScript = false;
    for (std::size_t i = 0; i < split.size(); ++i) {
        const Token& t = split[i];
        std::smatch m;
        if (!t.quoted && std::regex_match(t.text, kArrayOpen)) {
            inArray = t.text.substr(0, t.text.find_first_of("+="));
            into = &defined[inArray];
            continue;
        }
        if (!t.quoted && t.text == ")" && !inArray.empty()) {
            inArray.clear();
            into = onLaunchLine ? (afterScript ? &out.args : &out.launcher) : &loose;
            continue;
        }
        if (!t.quoted && std::regex_match(t.text, m, kArrayUse) && arrays.contains(m[1].str())) {
            if (onLaunchLine && !afterScript) launcherArrays.push_back(m[1].str());
            continue;
        }
        if (inArray.empty() && !isFlag(t.text) && t.text.size() > 3 && t.text.ends_with(".py")) {
            onLaunchLine = afterScript = true;  // the training script: its arguments follow
            into = &out.args;
            continue;
        }
        if (inArray.empty() && !onLaunchLine && !isFlag(t.text) && into->empty() && loose.empty() &&
            std::any_of(split.begin() + std::ptrdiff_t(i), split.end(), [](const Token& w) { return w.text.ends_with(".py"); })) {
            out.launcherProgram = t.text;  // torchrun, python, deepspeed, ...
            out.launcherMark = t.mark;
            onLaunchLine = true;
            into = &out.launcher;
            continue;
        }
        if (isFlag(t.text)) {
            into->push_back(argument(t));
            continue;
        }
        if (into->empty()) {
            d.add(t.mark, "", "expected an argument such as --num-layers, got '" + t.text + "'");
            continue;
        }
        into->back().values.push_back(t.text);
    }
    for (auto& [name, list] : defined) {
        const bool launcher = std::find(launcherArrays.begin(), launcherArrays.end(), name) != launcherArrays.end();
        auto& target = launcher ? out.launcher : out.args;
        target.insert(target.end(), list.begin(), list.end());
    }
    out.args.insert(out.args.begin(), loose.begin(), loose.end());
    if (out.launcherProgram.empty() && !out.launcher.empty()) out.launcherProgram = "the launcher";
    return out;
}

bool isMegatronYaml(const Value& root) {
    return root.isMap() && root.find("language_model") && root.find("language_model")->isMap() &&
           root.find("model_parallel") && root.find("model_parallel")->isMap();
}

Launch megatronYamlArgs(const Value& root, Diagnostics& d) {
    // The YAML names a few settings by their configuration field, not their argument.
    static const std::map<std::string, std::string, std::less<>> kFieldToArg = {
        {"overlap_p2p_comm", "overlap-p2p-comm"},
        {"fp8", "fp8-format"},
        {"num_moe_experts", "num-experts"},
        {"virtual_pipeline_model_parallel_size", "num-virtual-stages-per-pipeline-rank"},
        {"layernorm_epsilon", "norm-epsilon"},
    };
    Launch out;
    auto scalarText = [](const Value& v) -> std::string {
        switch (v.kind()) {
        case Value::Kind::Bool: return v.asBool() ? "true" : "false";
        case Value::Kind::Int: return std::to_string(v.asInt());
        case Value::Kind::Float: {
            std::ostringstream s;
            s << v.asDouble();
            return s.str();
        }
        default: return v.asString();
        }
    };
    auto read = [&](const Value& map, const std::string& prefix) {
        for (const Value::Entry& e : map.entries()) {
            if (e.value.isNull()) continue;  // null: the argument's default, as unstated
            if ((e.key == "language_model" || e.key == "model_parallel") && prefix.empty()) continue;
            LaunchArg a;
            a.spelled = prefix + e.key;
            a.mark = e.keyMark.line ? e.keyMark : e.value.mark();
            const auto alias = kFieldToArg.find(e.key);
            a.name = alias != kFieldToArg.end() ? alias->second : e.key;
            if (alias == kFieldToArg.end()) std::replace(a.name.begin(), a.name.end(), '_', '-');
            if (e.value.isMap()) {
                d.add(e.value.mark(), a.spelled, "expected a value, got a mapping");
                continue;
            }
            if (e.value.isList())
                for (const Value& item : e.value.items()) a.values.push_back(scalarText(item));
            else
                a.values.push_back(scalarText(e.value));
            for (const Alias& alias : kCliAliases)  // a switch stated true in the file, as its argument
                if (a.name == alias.spelled && a.values == std::vector<std::string>{"true"}) a.name = alias.name, a.values = {std::string(alias.value)};
            if (a.name == "activation-func") {  // swiglu | squaredrelu | gelu, as the YAML loader reads it
                const std::string f = a.values.empty() ? "" : a.values.front();
                if (f == "swiglu" || f == "squaredrelu") a.name = f == "swiglu" ? "swiglu" : "squared-relu", a.values = {"true"};
            }
            out.args.push_back(std::move(a));
        }
    };
    if (const Value* lm = root.find("language_model")) read(*lm, "language_model.");
    if (const Value* mp = root.find("model_parallel")) read(*mp, "model_parallel.");
    read(root, "");
    return out;
}

}  // namespace tessera::core::trainers
