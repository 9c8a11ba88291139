#pragma once
// A table of what each pipeline stage holds, term by term: one row per stage, one
// column per memory term and the total. Display text is GiB with one decimal; the
// exact bytes are under Qt::UserRole and in the tooltip (UI.md "Numbers").
#include <QAbstractTableModel>
#include <optional>

#include "model/estimate.h"

namespace tessera::ui {

class StageMemoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Parameters .. Reserve are core::kMemoryTerms, in its order.
    enum Column { Stage, Layers, InFlight, Parameters, Gradients, OptimizerStates, MasterCopy, Activations, Buffers, Working,
                  Reserve, Total, ColumnCount };
    static_assert(Total - Parameters == int(std::size(core::kMemoryTerms)));

    explicit StageMemoryModel(QObject* parent = nullptr);
    void setEstimate(const core::Estimate& estimate);
    // With a pinned baseline each memory cell shows its difference: "46.8 (-3.1)".
    void setBaseline(std::optional<core::Estimate> baseline);
    const core::Estimate& estimate() const { return m_estimate; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Bytes of one memory column of a stage (Parameters .. Total).
    static core::Bytes bytes(const core::StageMemory& memory, int column);
    static QString columnName(int column);

private:
    core::Estimate m_estimate;
    std::optional<core::Estimate> m_baseline;
};

}  // namespace tessera::ui
