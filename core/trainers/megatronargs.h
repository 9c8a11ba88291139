#pragma once
// Megatron-LM's arguments by name, each read once (internal to core/trainers): what
// no reader took is listed as not priced, an argument given twice as overridden.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "trainers/launch.h"
#include "trainers/shared.h"

namespace tessera::core::trainers {

// The arguments by name, each read once; what no reader took is listed as not priced.
class Args {
public:
    Args(const std::vector<LaunchArg>& args, Diagnostics& d) : m_d(d) {
        for (const LaunchArg& a : args) m_by[a.name].push_back(&a);
    }
    const LaunchArg* take(const std::string& name) {
        m_taken.insert(name);
        const auto it = m_by.find(name);
        return it == m_by.end() ? nullptr : it->second.back();  // argparse: the last one wins
    }
    bool has(const std::string& name) const { return m_by.contains(name); }

    std::optional<std::string> word(const std::string& name) {
        const LaunchArg* a = take(name);
        if (!a) return std::nullopt;
        if (a->values.size() != 1) {
            m_d.add(a->mark, a->spelled, a->values.empty() ? "needs a value" : "expected one value, got " + num(std::int64_t(a->values.size())));
            return std::nullopt;
        }
        if (a->values.front().find('$') != std::string::npos) {
            m_d.add(a->mark, a->spelled, "'" + a->values.front() + "' is a shell variable: Tessera reads the arguments as "
                                         "launched, so give its value");
            return std::nullopt;
        }
        return a->values.front();
    }
    std::optional<std::int64_t> integer(const std::string& name, std::int64_t least = 1) {
        const auto w = word(name);
        if (!w) return std::nullopt;
        const auto n = wholeNumber(*w);
        if (!n || *n < least || *n > kMaxStated) {
            refuse(name, "expected a whole number from " + num(least) + " to " + num(kMaxStated) + ", got '" + *w + "'");
            return std::nullopt;
        }
        return n;
    }
    std::optional<double> real(const std::string& name) {
        const auto w = word(name);
        if (!w) return std::nullopt;
        const auto x = realNumber(*w);
        if (!x || *x < 0) refuse(name, "expected a number of at least 0, got '" + *w + "'");
        return x && *x >= 0 ? x : std::nullopt;
    }
    // A store_true flag: absent, given (true), or stated true/false (the YAML's, or an alias's).
    std::optional<bool> flag(const std::string& name) {
        const LaunchArg* a = take(name);
        if (!a) return std::nullopt;
        if (a->values.empty()) return true;
        const std::string& v = a->values.front();
        if (a->values.size() == 1 && (v == "true" || v == "True")) return true;
        if (a->values.size() == 1 && (v == "false" || v == "False")) return false;
        m_d.add(a->mark, a->spelled, "is a switch and takes no value, got '" + v + "'");
        return std::nullopt;
    }
    std::vector<std::string> list(const std::string& name) {
        const LaunchArg* a = take(name);
        return a ? a->values : std::vector<std::string>{};
    }
    const Mark& mark(const std::string& name) const {
        static const Mark none;
        const auto it = m_by.find(name);
        return it == m_by.end() ? none : it->second.back()->mark;
    }
    const std::string& spelled(const std::string& name) const {
        const auto it = m_by.find(name);
        static const std::string none;
        return it == m_by.end() ? none : it->second.back()->spelled;
    }
    void refuse(const std::string& name, const std::string& message) { m_d.add(mark(name), spelled(name).empty() ? "--" + name : spelled(name), message); }
    // Every argument no reader took, and every earlier copy of one given twice.
    void listUnread(Builder& b, const std::string& program) {
        for (const auto& [name, all] : m_by)
            for (const LaunchArg* a : all) {
                std::string text = a->spelled;
                for (const std::string& v : a->values) text += " " + v;
                if (m_taken.contains(name) && a != all.back())
                    b.unpriced(a->mark, text, "given again later; " + program + " takes the last one");
                else if (!m_taken.contains(name))
                    b.unpriced(a->mark, text, whyNotPriced(name));
            }
    }

private:
    static std::string whyNotPriced(const std::string& name) {
        static const std::pair<const char*, const char*> kKinds[] = {
            {"lr", "the learning-rate schedule"},       {"min-lr", "the learning-rate schedule"},
            {"weight-decay", "an optimizer hyper-parameter"}, {"adam-", "an optimizer hyper-parameter"},
            {"train-", "the length of the run"},        {"exit-", "the length of the run"},
            {"data-", "the data"},                      {"split", "the data"},
            {"tokenizer-", "the tokenizer"},            {"vocab-file", "the tokenizer"},
            {"merge-file", "the tokenizer"},            {"save", "checkpointing"},
            {"load", "checkpointing"},                  {"no-load-", "checkpointing"},
            {"no-save-", "checkpointing"},              {"log-", "logging"},
            {"tensorboard-", "logging"},                {"wandb-", "logging"},
            {"eval-", "evaluation"},                    {"init-method", "initialisation"},
            {"seed", "initialisation"},                 {"rotary-", "the positions' numerics (no size or time)"},
            {"norm-epsilon", "the norm's numerics (no size or time)"},
        };
        for (const auto& [prefix, kind] : kKinds)
            if (name.starts_with(prefix)) return std::string("not priced: ") + kind + " changes no memory or step time Tessera models";
        return "not priced: not an argument Tessera reads, so it changes nothing it prices";
    }

    std::map<std::string, std::vector<const LaunchArg*>> m_by;
    std::set<std::string> m_taken;
    Diagnostics& m_d;
};

// The model pretrain_gpt.py builds from the arguments (megatronmodel.cpp).
void readMegatronModel(Args& a, Builder& b, std::int64_t tp);

}  // namespace tessera::core::trainers
