#include "views/searchviews.h"

#include <QChartView>
#include <algorithm>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "charts/paretochart.h"
#include "models/candidatesmodel.h"
#include "report/searchreport.h"
#include "charts/hovertip.h"
#include "session/session.h"
#include "style/palette.h"
#include "style/reviewmode.h"
#include "style/text.h"

namespace tessera::ui {

QString staleSearchText(const Session& session) {
    const QStringList since = session.searchStaleSince();
    if (since.isEmpty()) return {};
    return QObject::tr("⚠ Stale: this search ran before %1. Its results are not this scenario's.").arg(since.join(QStringLiteral(", ")));
}

namespace {

// The stale line, with a link that runs the search again on the scenario as it stands.
QLabel* staleLabel(Session& session, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(QStringLiteral("staleSearch"));
    label->setWordWrap(true);
    label->setVisible(false);
    label->setTextFormat(Qt::RichText);
    label->setStyleSheet(colours::problemLabel());
    QObject::connect(label, &QLabel::linkActivated, &session, [&session] { session.startSearch(); });
    return label;
}

// Every word of the filter must appear in some column of the row: "interleaved zero-2 tp 8".
class WordsFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setWords(const QString& text) {
        m_words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        if (m_words.isEmpty()) return true;
        QString line;
        for (int c = 0; c < sourceModel()->columnCount(parent); ++c)
            line += sourceModel()->headerData(c, Qt::Horizontal).toString() + QLatin1Char(' ') +
                    sourceModel()->index(row, c, parent).data().toString() + QLatin1Char(' ');
        line += sourceModel()->index(row, 0, parent).data(Qt::ToolTipRole).toString();  // the strategy's own label: "tp8 pp4 ..."
        return std::all_of(m_words.begin(), m_words.end(), [&](const QString& w) { return line.contains(w, Qt::CaseInsensitive); });
    }

private:
    QStringList m_words;
};

// What an empty Pareto or Candidates tab says: how to fill it.
QLabel* emptyHint(QWidget* parent) {
    auto* hint = new QLabel(QObject::tr("No search yet. Search ▶ (Ctrl+R) searches this scenario's strategy space - its search "
                                        "section, or the default space - on a worker thread; the best strategies and the front of "
                                        "memory against step time land here. Double-click one to load it."),
                            parent);
    hint->setObjectName(QStringLiteral("emptyHint"));
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);
    return hint;
}

void showStale(QLabel* label, const Session& session) {
    const QString text = staleSearchText(session);
    label->setText(text.toHtmlEscaped() + QObject::tr(" <a href=\"search\">Search again</a> (Ctrl+R)"));
    label->setVisible(!text.isEmpty());
}

}  // namespace

ParetoView::ParetoView(Session& session, QWidget* parent) : LazyView(parent), m_session(session) {
    auto* layout = new QVBoxLayout(this);
    m_stale = staleLabel(m_session, this);
    layout->addWidget(m_stale);
    m_chart = new QChartView(this);
    keepHoverTips(m_chart);  // a bar's exact bytes stay while the pointer rests on it
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setObjectName(QStringLiteral("paretoChart"));
    layout->addWidget(m_chart);
    m_empty = emptyHint(this);
    layout->addWidget(m_empty);
    m_chart->setVisible(false);  // until a search lands
    // The current strategy's ring and the baseline's square move with the scenario.
    for (auto signal : {&Session::searchFinished, &Session::evaluated, &Session::baselineChanged})
        connect(&m_session, signal, this, &ParetoView::update);
    connect(&m_session, &Session::documentChanged, this, [this] { showStale(m_stale, m_session); });
}

void ParetoView::update() {
    showStale(m_stale, m_session);
    m_empty->setVisible(!m_session.search());
    m_chart->setVisible(m_session.search() != nullptr);
    invalidate();
}

void ParetoView::rebuild() {
    const auto& outcome = m_session.search();
    if (!outcome || !outcome->error.isEmpty()) return;
    std::optional<CurrentPoint> current, base;
    if (const auto& e = m_session.evaluation()) current = CurrentPoint{e->estimate.peakMemory, e->estimate.stepSeconds};
    if (const auto& b = m_session.baseline()) base = CurrentPoint{b->estimate.peakMemory, b->estimate.stepSeconds};
    QPointer<ParetoView> self(this);
    QChart* old = m_chart->chart();
    m_chart->setChart(buildParetoChart(outcome->result, outcome->setup.space.memoryLimit, current,
                                       [self](const core::Candidate& c) { if (self) self->m_session.pick(c); }, base));
    delete old;
}

CandidatesView::CandidatesView(Session& session, QWidget* parent) : QWidget(parent), m_session(session) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stale = staleLabel(m_session, this);
    outer->addWidget(m_stale);
    auto* splitter = new QSplitter(this);
    outer->addWidget(splitter);
    auto* tablePane = new QWidget(splitter);
    auto* tableLayout = new QVBoxLayout(tablePane);
    auto* filter = new QLineEdit(tablePane);
    filter->setPlaceholderText(tr("Filter strategies: every word must match, e.g. interleaved ZeRO-2 tp8"));
    filter->setClearButtonEnabled(true);
    tableLayout->addWidget(filter);
    m_model = new CandidatesModel(this);
    auto* words = new WordsFilter(this);
    m_proxy = words;
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    connect(filter, &QLineEdit::textChanged, this, [words](const QString& text) { words->setWords(text); });
    auto* table = new QTableView(tablePane);
    table->setObjectName(QStringLiteral("candidateTable"));
    table->setModel(m_proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(CandidatesModel::Rank, Qt::AscendingOrder);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        m_session.pick(m_model->candidate(m_proxy->mapToSource(index).row()));
    });
    tableLayout->addWidget(table);
    m_empty = emptyHint(tablePane);
    tableLayout->addWidget(m_empty);
    table->setVisible(false);
    m_refusals = new QPlainTextEdit(splitter);
    m_refusals->setReadOnly(true);
    m_refusals->setLineWrapMode(QPlainTextEdit::WidgetWidth);  // a refusal's reason reads whole
    m_refusals->setObjectName(QStringLiteral("refusals"));
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    connect(&m_session, &Session::searchFinished, this, &CandidatesView::showSearch);
    connect(&m_session, &Session::documentChanged, this, [this] { showStale(m_stale, m_session); });
}

void CandidatesView::showSearch() {
    showStale(m_stale, m_session);
    const auto& outcome = m_session.search();
    m_empty->setVisible(!outcome);
    if (auto* table = findChild<QTableView*>(QStringLiteral("candidateTable"))) table->setVisible(outcome != nullptr);
    if (!outcome) return;
    if (!outcome->error.isEmpty()) {
        m_model->setCandidates({});
        m_refusals->setPlainText(tr("The scenario cannot be searched:\n\n%1").arg(outcome->error));
        return;
    }
    m_model->setCandidates(outcome->result.top);
    m_refusals->setPlainText(qs(core::searchSummary(outcome->setup, outcome->result, true)));
}

}  // namespace tessera::ui
