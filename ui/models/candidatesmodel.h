#pragma once
// The top strategies of the last search as a table: one row per candidate, its
// degrees, batch, sharding, recompute and schedule, the layers per stage (a planned
// candidate's own partition), peak memory, step time and tokens per second. Qt::UserRole holds the number each column sorts by, so a
// QSortFilterProxyModel can sort with setSortRole(Qt::UserRole).
#include <QAbstractTableModel>
#include <vector>

#include "search/search.h"

namespace tessera::ui {

class CandidatesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The figures a reviewer compares first, then the strategy that gives them.
    enum Column { Rank, StepTime, PeakMemory, TokensPerSecond, Dp, Tp, Pp, Vpp, Cp, Ep, MicroBatch, MicroBatches, SequenceParallel,
                  Sharding, Recompute, Schedule, Layers, ColumnCount };

    explicit CandidatesModel(QObject* parent = nullptr);
    void setCandidates(std::vector<core::Candidate> candidates);
    const core::Candidate& candidate(int row) const { return m_candidates.at(std::size_t(row)); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<core::Candidate> m_candidates;
};

}  // namespace tessera::ui
