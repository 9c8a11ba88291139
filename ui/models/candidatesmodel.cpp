#include "models/candidatesmodel.h"

#include "style/text.h"

#include <QLocale>


namespace tessera::ui {

CandidatesModel::CandidatesModel(QObject* parent) : QAbstractTableModel(parent) {}

void CandidatesModel::setCandidates(std::vector<core::Candidate> candidates) {
    beginResetModel();
    m_candidates = std::move(candidates);
    endResetModel();
}

int CandidatesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_candidates.size()); }
int CandidatesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {
QString sharding(const core::Candidate& c) {
    const QString stage = c.fsdp ? QStringLiteral("FSDP") : c.gradSharded ? QStringLiteral("ZeRO-2")
                          : c.optimizerSharded                ? QStringLiteral("ZeRO-1")
                                                              : QStringLiteral("none");
    // A shard narrower than the group (optimizer_shard listed or auto): its ranks.
    return c.optimizerSharded && c.optimizerShard > 0 ? QObject::tr("%1, shard %2").arg(stage).arg(c.optimizerShard) : stage;
}
// A planned candidate's layers per stage (chunks joined by +), else how the space places them.
QString layersText(const core::Candidate& c) {
    return c.plan ? qs(core::partitionText(c.plan->partition)) : QObject::tr("as stated");
}
}  // namespace

QVariant CandidatesModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const core::Candidate& c = m_candidates[std::size_t(index.row())];
    if (role == Qt::ToolTipRole) return QString::fromStdString(c.label());
    if (role == Qt::TextAlignmentRole)
        return int((index.column() >= SequenceParallel && index.column() <= Layers ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
    const bool sortKey = role == Qt::UserRole;
    switch (index.column()) {
    case Rank: return index.row() + 1;
    case Dp: return qlonglong(c.dp);
    case Tp: return qlonglong(c.tp);
    case Pp: return qlonglong(c.pp);
    case Vpp: return qlonglong(c.vpp);
    case Cp: return qlonglong(c.cp);
    case Ep:  // the expert TP degree beside it where it is not tp (resolve/expertgrid.h)
        if (sortKey || c.expertTpUsed() == c.tp) return qlonglong(c.ep);
        return tr("%1, expert tp %2").arg(c.ep).arg(c.expertTpUsed());
    case MicroBatch: return qlonglong(c.mbs);
    case MicroBatches: return qlonglong(c.mbn);
    case SequenceParallel: return sortKey ? QVariant(c.sp) : QVariant(c.sp ? tr("yes") : tr("no"));
    case Sharding: return sharding(c);
    case Recompute: return QString::fromStdString(core::recomputeName(c.recompute));
    case Schedule: return QString::fromStdString(core::scheduleName(c.schedule));
    case Layers: return layersText(c);
    case PeakMemory:
        return sortKey ? QVariant(qlonglong(c.peakMemory)) : QVariant(gibText(c.peakMemory));
    case StepTime: return sortKey ? QVariant(c.stepSeconds) : QVariant(secondsText(c.stepSeconds));
    case TokensPerSecond:
        return sortKey ? QVariant(c.tokensPerSecond) : QVariant(countText(c.tokensPerSecond));
    }
    return {};
}

QVariant CandidatesModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
    static const char* const kNames[] = {"#",  "step", "peak GiB", "tokens/s", "dp",        "tp",       "pp",       "vpp",     "cp",
                                         "ep", "mbs",  "micro-batches", "SP",  "sharding", "recompute", "schedule", "layers per stage"};
    static_assert(std::size(kNames) == ColumnCount);
    return section >= 0 && section < ColumnCount ? tr(kNames[section]) : QVariant();
}

}  // namespace tessera::ui
