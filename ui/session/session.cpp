#include "session/session.h"

#include <QCryptographicHash>
#include <algorithm>
#include <QFileInfo>
#include <QUndoStack>

#include "commands/scenariochange.h"
#include "doc/emit.h"
#include "doc/valuediff.h"
#include "io/overrides.h"
#include "io/presets.h"
#include "io/scenarioio.h"
#include "io/specwriter.h"
#include "plan/planexec.h"
#include "report/estimatereport.h"
#include "search/strategy.h"
#include "units/units.h"
#include "style/text.h"

namespace tessera::ui {

namespace {

// The document without the exec keys a search chooses: what a search's result
// depends on. A pick changes only those, so it leaves the search current.
core::Value searchInputsOf(const core::Value& document) {
    static const core::Value strategyKeys = core::SpecWriter::write(core::strategyExec(core::Candidate{}));
    core::Value out = document;
    if (core::Value* exec = out.find("exec"); exec && exec->isMap()) {
        for (const core::Value::Entry& e : strategyKeys.entries()) exec->erase(e.key);
        for (const char* legacy : {"full_recompute", "selective_recompute"}) exec->erase(legacy);  // execFor replaces them
    }
    return out;
}

}  // namespace

Session::Session(QObject* parent) : QObject(parent) {
    m_undo = new QUndoStack(this);
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    m_pending.setSingleShot(true);
    // The next turn of the event loop: what one keystroke sets off is one evaluation, and an
    // evaluation with its repaint (about 8 ms here, tests/bench/bench_ui) is shorter than the
    // gap between keystrokes, so waiting for quiet would only add to every edit's latency.
    m_pending.setInterval(0);
    connect(&m_pending, &QTimer::timeout, this, &Session::evaluateNow);
    m_adviceTimer.setSingleShot(true);
    m_adviceTimer.setInterval(40);  // after the repaint, and once typing pauses
    connect(&m_adviceTimer, &QTimer::timeout, this, &Session::priceAdvice);
    m_searchController = new SearchController(this);
    connect(m_searchController, &SearchController::progress, this, &Session::searchProgress);
    connect(m_searchController, &SearchController::finished, this, [this](std::shared_ptr<const SearchOutcome> outcome) {
        m_search = std::move(outcome);
        emit searchFinished();
    });
}

Session::~Session() { m_searchController->cancel(); }

void Session::setScenario(const core::Value& document, Change why, const QString& label, const QString& mergeKey) {
    if (why == Change::Load || why == Change::Recovery) return startHistory(document, why);
    // The step's first redo is the change itself; later ones come back as history.
    auto first = std::make_shared<bool>(true);
    auto put = [this, why, first](const core::Value& d, bool undoing) {
        apply(d, undoing || !*first ? Change::Undo : why);
        *first = false;
    };
    m_undo->push(new ScenarioChange(label.isEmpty() ? tr("change the scenario") : label, m_document, document, put, mergeKey));
}

void Session::startHistory(const core::Value& document, Change why) {
    m_undo->clear();  // a new scenario starts a new history, clean
    if (why == Change::Recovery) m_undo->resetClean();  // restored, and not saved anywhere yet
    apply(document, why);
}

void Session::apply(const core::Value& document, Change why) {
    m_document = document;
    m_adviceTimer.stop();  // the advice priced next is this document's
    emit documentChanged(why);
    if (why == Change::Edit) m_pending.start();
    else evaluateNow();
}

void Session::evaluateNow() {
    m_pending.stop();
    m_problems.clear();
    m_fixes.clear();
    m_scenario.reset();
    const std::string source = m_path.isEmpty() ? m_title.toStdString() : m_path.toStdString();
    try {
        m_scenario = core::scenarioFromValue(m_document, source, m_baseDir);
        m_evaluation = std::make_shared<const core::Evaluation>(core::evaluateScenario(*m_scenario));
    } catch (const core::SpecError& e) {
        m_problems = e.diagnostics();
        for (const core::Fix& f : core::proposeFixes(m_document, m_problems, m_baseDir)) {
            const auto named = std::find_if(m_problems.begin(), m_problems.end(), [&](const core::Diagnostic& d) { return d.path == f.path; });
            m_fixes.push_back({named == m_problems.end() ? 0 : std::size_t(named - m_problems.begin()), qs(f.sentence), f});
        }
    }
    emit evaluated();
    startAdvice();
}

std::optional<core::Scenario> Session::statedNow() const {
    if (!m_pending.isActive()) return m_scenario;
    try {
        return core::scenarioFromValue(m_document, m_path.isEmpty() ? m_title.toStdString() : m_path.toStdString(), m_baseDir);
    } catch (const core::SpecError&) {
        return std::nullopt;
    }
}

QString Session::notCurrentNote() const {
    if (!m_evaluation || m_problems.empty()) return {};
    return tr("Not current: the scenario has %1; these are the figures of the last one that priced").arg(problemCount(m_problems.size()));
}

bool Session::load(const QString& pathOrPreset) {
    const std::string id = pathOrPreset.isEmpty() ? std::string(core::kDefaultScenario) : pathOrPreset.toStdString();
    const bool isFile = QFileInfo::exists(pathOrPreset);
    m_unreadable.clear();
    m_path = isFile ? QFileInfo(pathOrPreset).absoluteFilePath() : QString();
    m_title = isFile ? QFileInfo(pathOrPreset).fileName() : qs(id);
    m_evaluation.reset();
    std::vector<core::Diagnostic> unparsable;
    core::Value document = core::Value::map();
    try {
        document = core::scenarioDocument(id, &m_baseDir);
        // Sections expanded as the forms show them (a preset's fields, a config.json's);
        // a file that does not read stays as it is, for the forms to show and Save to keep.
        document = core::scenarioValue(core::scenarioFromValue(document, isFile ? id : "<preset:scenarios/" + id + ">", m_baseDir));
    } catch (const core::FileError& e) {
        m_unreadable = qs(e.what());
        unparsable = e.diagnostics();
    } catch (const core::LoadError& e) {
        unparsable = e.diagnostics();
    } catch (const core::SpecError&) {
        // read but refused: evaluateNow() lists the problems
    }
    startHistory(document, Change::Load);
    if (!unparsable.empty()) {  // nothing to evaluate: the problem is the file itself
        m_problems = unparsable;
        emit evaluated();
    }
    return m_unreadable.isEmpty();
}

bool Session::recover(const QString& documentPath, const QString& original) {
    core::Value document;
    try {
        document = core::loadDocument(documentPath.toStdString());
    } catch (const core::SpecError&) {
        return false;
    }
    m_path = original;
    m_title = original.isEmpty() ? tr("Recovered scenario") : QFileInfo(original).fileName();
    m_baseDir = original.isEmpty() ? std::string() : QFileInfo(original).absolutePath().toStdString();
    m_unreadable.clear();
    startHistory(document, Change::Recovery);
    return true;
}

void Session::setFilePath(const QString& path) {
    m_path = QFileInfo(path).absoluteFilePath();
    m_title = QFileInfo(path).fileName();
    m_baseDir = QFileInfo(path).absolutePath().toStdString();
}

void Session::markSaved() { m_undo->setClean(); }

bool Session::isModified() const { return !m_undo->isClean(); }

QString Session::hash() const {
    const QByteArray yaml = QByteArray::fromStdString(core::toYaml(m_document));
    return QString::fromLatin1(QCryptographicHash::hash(yaml, QCryptographicHash::Sha256).toHex().left(12));
}

void Session::pinBaseline() {
    if (m_pending.isActive()) evaluateNow();
    if (!evaluationIsCurrent()) return;  // only a figure of the scenario as it stands
    m_baseline = m_evaluation;
    m_baselinePinned = QDateTime::currentDateTime();
    emit baselineChanged();
}

QString baselineLabel(const core::Evaluation& baseline, const QDateTime& pinned) {
    return QObject::tr("baseline: %1, pinned %2").arg(qs(core::strategyLine(baseline.resolved)), pinned.toString(QStringLiteral("hh:mm")));
}

QString Session::baselineLabel() const { return m_baseline ? tessera::ui::baselineLabel(*m_baseline, m_baselinePinned) : QString(); }

void Session::unpinBaseline() {
    m_baseline.reset();
    emit baselineChanged();
}

void Session::startSearch(int threads) {
    if (m_pending.isActive()) evaluateNow();
    if (!m_scenario) {
        auto outcome = std::make_shared<SearchOutcome>();
        outcome->error = tr("the scenario does not read:\n%1").arg(m_problems.empty() ? QString() : qs(m_problems.front().text()));
        m_search = outcome;
        emit searchFinished();
        return;
    }
    m_searchInputs = searchInputsOf(m_document);
    m_searchController->start(*m_scenario, threads);
    emit searchStarted();
}

void Session::cancelSearch() { m_searchController->cancel(); }

bool Session::searchIsStale() const {
    return m_search && m_search->error.isEmpty() && !searchInputsOf(m_document).sameAs(m_searchInputs);
}

QStringList Session::searchStaleSince(int most) const {
    QStringList out;
    if (!searchIsStale()) return out;
    const std::vector<core::ValueChange> changes = core::valueChanges(m_searchInputs, searchInputsOf(m_document));
    for (std::size_t i = 0; i < changes.size() && int(i) < most; ++i) out << qs(changes[i].text());
    if (int(changes.size()) > most) out << tr("%n more", nullptr, int(changes.size()) - most);
    return out;
}

void Session::applyFix(std::size_t index) {
    if (index >= m_fixes.size()) return;
    const ProblemFix fix = m_fixes[index];  // setScenario re-evaluates, which replaces m_fixes
    core::Value document = m_document;
    core::applyFix(document, fix.fix);
    setScenario(document, Change::Pick, tr("fix: %1").arg(fix.text));
}

void Session::applySuggestion(const core::Suggestion& suggestion) {
    core::Value document = m_document;
    core::applyChanges(document, suggestion.changes);
    setScenario(document, Change::Pick, tr("apply %1").arg(qs(suggestion.sentence)));
}

void Session::startAdvice() {
    m_advice.reset();
    m_adviceTimer.stop();
    if (evaluationIsCurrent() && m_scenario) m_adviceTimer.start();
    emit adviceChanged();  // what was shown is of an earlier scenario: gone
}

// Priced on the GUI thread once the views have repainted and the edits have paused (a
// new document stops the timer), so it adds nothing to an edit's latency: 6-13 ms for
// the presets here, 22-34 ms where every move is simulated (DualPipe). A worker thread
// would hand the scenario across Qt's thread pool, whose ordering ThreadSanitizer cannot
// see (tests/sanitize/tsan.supp); not worth a suppression naming our code.
void Session::priceAdvice() {
    if (!evaluationIsCurrent() || !m_scenario) return;
    try {
        m_advice = std::make_shared<const core::FitAdvice>(core::adviseFit(*m_scenario, m_evaluation->resolved, m_evaluation->estimate));
    } catch (const core::SpecError&) {
        m_advice.reset();
    }
    emit adviceChanged();
}

QString Session::plan(bool offload) {
    QString summary;
    if (!evaluationIsCurrent() || !m_scenario) {
        summary = tr("Nothing planned: the scenario does not price as it stands (%1)").arg(problemCount(m_problems.size()));
    } else {
        const core::ResolvedScenario& r = m_evaluation->resolved;
        const core::Plan plan = core::planStrategy(core::costInput(r), core::planRequest(r, true, true, offload));
        if (!plan.planned) {
            summary = tr("Nothing planned: %1").arg(qs(plan.why));
        } else if (!plan.fits) {
            std::size_t worst = 0;
            for (std::size_t s = 0; s < plan.stageMiss.size(); ++s)
                if (plan.stageMiss[s] > plan.stageMiss[worst]) worst = s;
            summary = tr("No plan fits %1: the lightest misses by %2 on stage %3 (tessera plan lists every stage)")
                          .arg(qs(core::formatGiB(plan.budget)), qs(core::formatGiB(plan.stageMiss[worst])))
                          .arg(worst);
        } else {
            core::Value document = m_document;
            core::setAt(document, "exec", core::SpecWriter::write(core::planExec(m_scenario->exec, plan)));
            summary = tr("Planned: step %1 (was %2), peak %3 (was %4)")
                          .arg(qs(core::formatSeconds(plan.stepSeconds)), qs(core::formatSeconds(m_evaluation->estimate.stepSeconds)),
                               qs(core::formatGiB(plan.peakMemory)), qs(core::formatGiB(m_evaluation->estimate.peakMemory)));
            if (!plan.note.empty()) summary += tr(" · %1").arg(qs(plan.note));
            setScenario(document, Change::Pick, tr("plan the strategy"));
        }
    }
    emit planned(summary);
    return summary;
}

void Session::pick(const core::Candidate& candidate) {
    // Over the exec section as it reads now, else over the one the search ran on.
    const core::ExecSpec* base = m_scenario ? &m_scenario->exec : m_search ? &m_search->searched.exec : nullptr;
    if (!base) return;
    core::Value document = m_document;
    core::setAt(document, "exec", core::SpecWriter::write(core::execFor(*base, candidate)));
    setScenario(document, Change::Pick, tr("pick %1").arg(qs(candidate.label())));
    emit picked(qs(candidate.label()));
}

}  // namespace tessera::ui
