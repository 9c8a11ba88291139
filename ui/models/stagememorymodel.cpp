#include "models/stagememorymodel.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <cmath>

#include "style/palette.h"
#include "style/text.h"

namespace tessera::ui {

StageMemoryModel::StageMemoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void StageMemoryModel::setEstimate(const core::Estimate& estimate) {
    beginResetModel();
    m_estimate = estimate;
    endResetModel();
}

void StageMemoryModel::setBaseline(std::optional<core::Estimate> baseline) {
    beginResetModel();
    m_baseline = std::move(baseline);
    endResetModel();
}

int StageMemoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_estimate.stages.size());
}

int StageMemoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

core::Bytes StageMemoryModel::bytes(const core::StageMemory& m, int column) {
    if (column == Total) return m.total();
    if (column >= Parameters && column < Total) return m.*core::kMemoryTerms[std::size_t(column - Parameters)].bytes;
    return 0;
}

QString StageMemoryModel::columnName(int column) {
    switch (column) {
    case Stage: return tr("Stage");
    case Layers: return tr("Layers");
    case InFlight: return tr("In flight");
    case Total: return tr("Total");
    default:
        if (column >= Parameters && column < Total) return tr(core::kMemoryTerms[std::size_t(column - Parameters)].name);
        return {};
    }
}

QVariant StageMemoryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const core::StageEstimate& s = m_estimate.stages[std::size_t(index.row())];
    const int column = index.column();
    if (column == Stage) return role == Qt::DisplayRole || role == Qt::UserRole ? QVariant(s.stage) : QVariant();
    if (column == Layers) return role == Qt::DisplayRole || role == Qt::UserRole ? QVariant(qlonglong(s.layers)) : QVariant();
    if (column == InFlight)
        return role == Qt::DisplayRole || role == Qt::UserRole ? QVariant(qlonglong(s.inFlightMicroBatches)) : QVariant();
    const core::Bytes b = bytes(s.memory, column);
    switch (role) {
    case Qt::DisplayRole: {
        QString text = gibText(b);
        if (m_baseline && std::size_t(index.row()) < m_baseline->stages.size()) {
            const core::Bytes then = bytes(m_baseline->stages[std::size_t(index.row())].memory, column);
            if (std::abs(double(b - then)) >= 0.05 * double(core::GiB)) text += QStringLiteral(" (%1)").arg(gibDeltaText(b, then));
        }
        return text;
    }
    case Qt::UserRole: return QVariant(qlonglong(b));
    case Qt::ToolTipRole: return tr("%1 bytes").arg(QLocale().toString(qlonglong(b)));
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column == Total && b > m_estimate.deviceMemory) return QBrush(colours::kOverLimit);
        return {};
    default: return {};
    }
}

QVariant StageMemoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal) {
        // Under dualpipe a row is a device holding two stages (its own and the mirror).
        const bool devices = !m_estimate.stages.empty() && m_estimate.stages.front().hasMirror;
        const QString name = section == Stage && devices ? tr("Device") : columnName(section);
        return section >= Parameters ? name + tr(" (GiB)") : name;
    }
    return section + 1;
}

}  // namespace tessera::ui
