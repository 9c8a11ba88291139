#include "export/report.h"

#include <QLocale>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <cmath>

#include "charts/memorychart.h"
#include "charts/paretochart.h"
#include "charts/stepchart.h"
#include "export/reviewtables.h"
#include "export/savefile.h"
#include "doc/emit.h"
#include "io/calibrationio.h"
#include "io/scenarioio.h"
#include "model/priced.h"
#include "style/palette.h"
#include "models/candidatesmodel.h"
#include "models/stagememorymodel.h"
#include "report/estimatereport.h"
#include "report/searchreport.h"
#include "session/session.h"
#include "style/reviewmode.h"
#include "style/text.h"
#include "views/pipelineview.h"
#include "views/timelinewidget.h"

namespace tessera::ui {

Review reviewOf(const Session& session) {
    Review r;
    r.evaluation = session.evaluation();
    r.baseline = session.baseline();
    r.baselinePinned = session.baselinePinned();
    r.search = session.search();
    r.searchStale = session.searchIsStale();
    r.searchStaleSince = session.searchStaleSince(10);
    r.scenarioHash = session.hash();
    r.advice = session.advice();
    if (!r.advice && session.evaluationIsCurrent() && session.scenario()) {  // still being priced on the worker: price it here
        const core::Evaluation& e = *session.evaluation();
        r.advice = std::make_shared<const core::FitAdvice>(core::adviseFit(*session.scenario(), e.resolved, e.estimate));
    }
    return r;
}

QStringList titleBlock(const Review& review) {
    const core::ResolvedScenario& r = review.evaluation->resolved;
    return {qs(core::headline(r)), qs(core::strategyLine(r)),
            QObject::tr("%1 · scenario %2").arg(review.made.toString(QStringLiteral("yyyy-MM-dd hh:mm")), review.scenarioHash)};
}

namespace {

class Pages {
public:
    Pages(QPdfWriter& pdf, const Review& review, int count) : m_pdf(pdf), m_review(review), m_count(count), m_painter(&pdf) {
        m_scale = pdf.resolution() / 96.0;  // device pixels per logical pixel: fonts read at their size
        m_line = QFontMetricsF(reviewFont(9), &pdf).height();
        header();
    }
    QPainter& painter() { return m_painter; }
    double scale() const { return m_scale; }
    double line() const { return m_line; }
    // The page below the header, above the footer.
    QRectF body() const { return QRectF(0, m_top, m_pdf.width(), m_pdf.height() - m_top - 1.6 * m_line); }
    void next() {
        m_pdf.newPage();
        ++m_page;
        header();
    }
    void end() { m_painter.end(); }

private:
    // The title block on every page, the page number at its foot.
    void header() {
        QPainter& p = m_painter;
        p.setPen(Qt::black);
        double y = drawLines(p, {QObject::tr("Tessera capacity review")}, {0, 0}, reviewFont(13, true));
        const QStringList lines = titleBlock(m_review);
        y += drawLines(p, {lines[0]}, {0, y}, reviewFont(9, true));
        y += drawLines(p, lines.mid(1), {0, y}, reviewFont(9));
        p.setPen(QColor(190, 190, 190));
        p.drawLine(QPointF(0, y + 0.4 * m_line), QPointF(m_pdf.width(), y + 0.4 * m_line));
        m_top = y + m_line;
        p.setPen(QColor(90, 90, 90));
        p.setFont(reviewFont(8));
        p.drawText(QRectF(0, m_pdf.height() - m_line, m_pdf.width(), m_line), Qt::AlignRight | Qt::AlignVCenter,
                   QObject::tr("page %1 of %2").arg(m_page).arg(m_count));
        p.setPen(Qt::black);
    }

    QPdfWriter& m_pdf;
    const Review& m_review;
    int m_count, m_page = 1;
    QPainter m_painter;
    double m_scale = 1, m_line = 10, m_top = 0;
};

QString baselineLine(const Review& r) {
    if (!r.baseline) return {};
    const core::Estimate &now = r.evaluation->estimate, &then = r.baseline->estimate;
    const double d = now.stepSeconds - then.stepSeconds;
    return QObject::tr("Against the baseline pinned %1 (%2): step %3 (%4%5), peak %6 GiB (%7 GiB)")
        .arg(r.baselinePinned.toString(QStringLiteral("hh:mm")), qs(core::strategyLine(r.baseline->resolved)),
             secondsText(now.stepSeconds), d >= 0 ? QStringLiteral("+") : QStringLiteral("−"), secondsText(std::abs(d)),
             gibText(now.peakMemory), gibDeltaText(now.peakMemory, then.peakMemory));
}

// The verdict in one sentence: fits with how much headroom, or by how much it does not.
QString verdict(const core::Estimate& e) {
    const core::StageEstimate& peak = e.stages[std::size_t(e.peakStage)];
    const QString where = peak.hasMirror ? QObject::tr("device %1").arg(peak.stage) : QObject::tr("stage %1").arg(peak.stage);
    if (e.fits)
        return QObject::tr("FITS: the fullest device (%1) holds %2 of %3 GiB, %4 GiB of headroom")
            .arg(where, gibText(e.peakMemory), gibText(e.deviceMemory), gibText(e.deviceMemory - e.peakMemory));
    return QObject::tr("DOES NOT FIT: %1 holds %2 of %3 GiB, %4 GiB over")
        .arg(where, gibText(e.peakMemory), gibText(e.deviceMemory), gibText(e.peakMemory - e.deviceMemory));
}

// Page 1: the verdict, the strategy in one line, the figures, and every assumption the
// figures rest on - each field the scenario did not state and what filled it, the
// efficiencies (calibrated or not), and what is stated but not priced.
void verdictPage(Pages& pages, const Review& r) {
    QPainter& p = pages.painter();
    const QRectF body = pages.body();
    const core::ResolvedScenario& resolved = r.evaluation->resolved;
    const core::Estimate& e = r.evaluation->estimate;
    double y = body.top();
    p.setPen(e.fits ? Qt::black : colours::kOverLimit);
    y += drawLines(p, {verdict(e)}, {0, y}, reviewFont(12, true));
    p.setPen(Qt::black);
    y += drawLines(p, {QObject::tr("Strategy: %1").arg(qs(core::strategyLine(resolved)))}, {0, y}, reviewFont(10, true)) + pages.line() * 0.4;
    QStringList figures;
    for (const std::string& line : core::keyFigures(e)) figures << qs(line);
    if (r.baseline) figures << baselineLine(r);
    y += drawLines(p, figures, {0, y}, reviewFont(9), body.width()) + pages.line() * 0.6;
    if (r.advice) {  // why it does (not) fit, and the smallest moves that would, each priced as the estimate is
        QStringList moves{qs(r.advice->dominant.sentence), qs(r.advice->summary)};
        for (const core::Suggestion& s : r.advice->suggestions) moves << QStringLiteral("  • ") + qs(s.sentence);
        y += drawLines(p, {e.fits ? QObject::tr("Faster strategies that still fit") : QObject::tr("Why it does not fit, and what would")},
                       {0, y}, reviewFont(10, true));
        y += drawLines(p, moves, {0, y}, reviewFont(8), body.width()) + pages.line() * 0.6;
    }

    QStringList assumptions;
    assumptions << QObject::tr("Efficiencies: %1").arg(qs(core::calibrationStatus(resolved.scenario.calibration)) +
                                                       (resolved.scenario.calibration ? QString() : QObject::tr(" (the built-in fits)")));
    const std::vector<core::NotPriced> unpriced = core::notPriced(resolved.scenario);
    if (unpriced.empty()) assumptions << QObject::tr("Stated but not priced: none");
    for (const core::NotPriced& n : unpriced)
        assumptions << QObject::tr("NOT PRICED %1: %2 - %3").arg(qs(n.key), qs(n.value), qs(n.why));
    y += drawLines(p, {QObject::tr("Assumptions")}, {0, y}, reviewFont(10, true));
    y += drawLines(p, assumptions, {0, y}, reviewFont(8), body.width()) + pages.line() * 0.3;
    // Every field the scenario left out, with what filled it and why, in columns.
    const core::Value values = core::scenarioValue(resolved.scenario);
    QStringList filled;
    for (const auto& [path, how] : resolved.filled) {
        const core::Value* v = &values;
        for (const QString& part : qs(path).split(QLatin1Char('.'))) v = v && v->isMap() ? v->find(part.toStdString()) : nullptr;
        const QString value = v ? (v->kind() == core::Value::Kind::String ? qs(v->asString()) : qs(core::toYaml(*v)).trimmed()) : QString();
        filled << QStringLiteral("%1 = %2 · %3").arg(qs(path), value.left(40), qs(how.text()));
    }
    y += drawLines(p, {QObject::tr("Fields not stated, and what filled them (%1)").arg(filled.size())}, {0, y}, reviewFont(9, true));
    drawColumns(p, filled, QRectF(0, y, body.width(), body.bottom() - y), reviewFont(7));
}

void memoryPage(Pages& pages, const Review& r) {
    QPainter& p = pages.painter();
    const QRectF body = pages.body();
    const core::Estimate& e = r.evaluation->estimate;
    double y = body.top() + drawLines(p, {verdict(e)}, body.topLeft(), reviewFont(10, true)) + pages.line() * 0.5;
    StageMemoryModel stages;
    stages.setEstimate(e);
    if (r.baseline) stages.setBaseline(r.baseline->estimate);
    const TextTable table = tableOf(stages);
    const double tableHeight = pages.line() * 1.25 * double(std::min<qsizetype>(table.rows.size(), 16) + 1.5);
    const double chartHeight = std::max(body.height() * 0.3, body.bottom() - y - tableHeight);
    drawChart(p, buildMemoryChart(e, r.baseline ? &r.baseline->estimate : nullptr, r.baseline ? baselineLabel(*r.baseline, r.baselinePinned) : QString()), QRectF(0, y, body.width(), chartHeight),
              pages.scale());
    drawTable(p, table, QRectF(0, y + chartHeight + pages.line() * 0.5, body.width(), body.bottom() - y - chartHeight), reviewMonoFont(8));
}

void pipelinePage(Pages& pages, const Review& r) {
    const QRectF body = pages.body();
    const core::Evaluation& e = *r.evaluation;
    TimelineWidget timeline;
    timeline.setPipeline(e.pipeline);
    timeline.setTitle(timelineTitle(e, r.baseline.get()));
    timeline.resize(int(body.width() / pages.scale()), 400);
    // The step chart keeps a readable row per stage (pp 16: 18 rows) below the timeline.
    const double stepRows = double(e.estimate.stages.size() + 3);
    const double height = std::min({body.height() * 0.6, timeline.naturalHeight() * pages.scale(),
                                     body.height() - stepRows * pages.line() * 1.5 - 3 * pages.line()});
    drawWidget(pages.painter(), timeline, QRectF(0, body.top(), body.width(), height), pages.scale());
    drawChart(pages.painter(),
              buildStepChart(e.estimate, *e.resolved.scenario.exec.micro_batch_num, r.baseline ? &r.baseline->estimate : nullptr),
              QRectF(0, body.top() + height + pages.line(), body.width(), body.height() - height - pages.line()), pages.scale());
}

// What a page about the search says when there is none, or it is stale.
double searchNotes(Pages& pages, const Review& r) {
    QStringList notes;
    if (!r.search) notes << QObject::tr("No search was run for this review.");
    else if (!r.search->error.isEmpty()) notes << QObject::tr("The search could not run: %1").arg(r.search->error);
    else if (r.searchStale)
        notes << QObject::tr("STALE SEARCH: this search ran before %1; its figures are not this scenario's.")
                     .arg(r.searchStaleSince.join(QStringLiteral(", ")));
    return notes.isEmpty() ? 0 : drawLines(pages.painter(), notes, pages.body().topLeft(), reviewFont(9, true)) + pages.line();
}

void paretoPage(Pages& pages, const Review& r) {
    const double top = searchNotes(pages, r);
    if (!r.search || !r.search->error.isEmpty()) return;
    const core::Estimate& e = r.evaluation->estimate;
    std::optional<CurrentPoint> base;
    if (r.baseline) base = CurrentPoint{r.baseline->estimate.peakMemory, r.baseline->estimate.stepSeconds};
    const QRectF body = pages.body().adjusted(0, top, 0, 0);
    // The front's points numbered on the chart, and listed below it by number.
    const std::vector<core::Candidate>& front = r.search->result.pareto;
    TextTable table;
    table.headers = {QObject::tr("#"), QObject::tr("Strategy"), QObject::tr("Peak GiB"), QObject::tr("Step"), QObject::tr("Tok/s")};
    table.rightAligned = {0, 2, 3, 4};
    for (std::size_t i = 0; i < front.size(); ++i)
        table.rows << QStringList{QString::number(i + 1), qs(front[i].label()), gibText(front[i].peakMemory),
                                  secondsText(front[i].stepSeconds),
                                  countText(front[i].tokensPerSecond)};
    const double tableHeight = front.empty() ? 0 : pages.line() * 1.2 * double(std::min<std::size_t>(front.size(), 12) + 1.5);
    const double chartHeight = std::max(body.height() * 0.55, body.height() - tableHeight);
    drawChart(pages.painter(),
              buildParetoChart(r.search->result, r.search->setup.space.memoryLimit, CurrentPoint{e.peakMemory, e.stepSeconds}, {}, base),
              QRectF(body.left(), body.top(), body.width(), chartHeight), pages.scale(),
              [&](QChart* chart) { numberFrontPoints(chart, r.search->result); });
    if (!front.empty())
        drawTable(pages.painter(), table, QRectF(body.left(), body.top() + chartHeight + pages.line() * 0.3, body.width(),
                                                 body.height() - chartHeight - pages.line() * 0.3),
                  reviewMonoFont(8));
}

void strategiesPage(Pages& pages, const Review& r) {
    const double top = searchNotes(pages, r);
    if (!r.search || !r.search->error.isEmpty()) return;
    QPainter& p = pages.painter();
    QRectF body = pages.body().adjusted(0, top, 0, 0);
    CandidatesModel best;
    best.setCandidates(r.search->result.top);
    const double used = drawTable(p, tableOf(best, 20), body, reviewMonoFont(8));
    body.setTop(body.top() + used + pages.line());
    const QStringList summary = qs(core::searchSummary(r.search->setup, r.search->result)).split(QLatin1Char('\n'));
    drawLines(p, summary, body.topLeft(), reviewMonoFont(8));
}

}  // namespace

bool writeReport(const Review& review, const QString& path, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = file.errorString();
        return false;
    }
    {
        QPdfWriter pdf(&file);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageOrientation(QPageLayout::Landscape);
        pdf.setResolution(150);
        pdf.setTitle(QStringLiteral("Tessera capacity review"));
        pdf.setCreator(QStringLiteral("Tessera"));
        Pages pages(pdf, review, 5);
        verdictPage(pages, review);
        pages.next();
        memoryPage(pages, review);
        pages.next();
        pipelinePage(pages, review);
        pages.next();
        paretoPage(pages, review);
        pages.next();
        strategiesPage(pages, review);
        pages.end();
    }
    return commitWhole(file, error);
}

}  // namespace tessera::ui
