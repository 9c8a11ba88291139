#include "io/overrides.h"

#include <vector>

namespace tessera::core {

namespace {

std::vector<std::string> splitPath(const std::string& path) {
    std::vector<std::string> parts;
    std::string part;
    for (char ch : path) {
        if (ch == '.') {
            parts.push_back(part);
            part.clear();
        } else {
            part += ch;
        }
    }
    parts.push_back(part);
    return parts;
}

}  // namespace

void applyOverride(Value& root, const std::string& assignment) {
    const std::string name = "--set " + assignment;
    const auto eq = assignment.find('=');
    const std::vector<std::string> path = splitPath(eq == std::string::npos ? assignment : assignment.substr(0, eq));
    bool empty = false;
    for (const std::string& part : path) empty = empty || part.empty();
    if (eq == std::string::npos || path.size() < 2 || empty)
        throw SpecError(Diagnostic{Mark{name}, "", "expected section.key=value, such as exec.tp=8"});
    Value value;
    try {
        value = parseDocument(assignment.substr(eq + 1), name, Format::Yaml);
    } catch (const LoadError& e) {
        throw SpecError(Diagnostic{e.mark(), path.front(), e.message()});
    }
    setAt(root, assignment.substr(0, eq), value, Mark{name});
}

void setAt(Value& root, const std::string& dotted, std::optional<Value> value, const Mark& mark) {
    const std::vector<std::string> path = splitPath(dotted);
    if (!root.isMap()) root = Value::map(mark);
    Value* node = &root;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const Value* child = node->find(path[i]);
        if (!child || child->isNull()) {
            if (!value) return;  // nothing to remove
            node->set(path[i], Value::map(mark), mark);
        } else if (child->kind() == Value::Kind::String) {
            // A preset named by its id: keep it, as the base of the overrides.
            Value map = Value::map(child->mark());
            map.set("preset", *child, child->mark());
            node->set(path[i], map, mark);
        } else if (!child->isMap()) {
            throw SpecError(Diagnostic{child->mark(), path[i], "cannot set a key inside " + child->describe()});
        }
        node = node->find(path[i]);  // the (possibly replaced) child
    }
    if (value) node->set(path.back(), std::move(*value), mark);
    else node->erase(path.back());
}

}  // namespace tessera::core
