#pragma once
// How a field reads in the forms: a label in words beside its key ("Tensor parallel ·
// tp"), the group an engineer looks for it in (Parallelism, Batch, Recompute & offload,
// ...), and when it cannot apply to the scenario shown (expert fields beside a dense
// model, MLA fields beside GQA attention), so the form hides it unless it is stated.
// The field tables (core/spec) keep the meaning, unit and range; this is presentation.
#include <QString>
#include <QStringList>

#include "doc/document.h"

namespace tessera::ui {

// What a form's row needs to know about the scenario to decide if it applies.
struct Applies {
    bool experts = false;        // the model routes tokens to experts
    bool mla = false;            // multi-head latent attention (kv_lora_rank)
    bool linearAttention = false;
    bool visionTower = false;
    bool mtp = false;
    bool interleaved = false;    // vpp > 1
    bool fp8 = false;
};

struct FieldLook {
    QString label;  // "Tensor parallel"
    QString group;  // "Parallelism"; empty: the section has no groups
    bool (*applies)(const Applies&) = nullptr;  // null: always
};

// The look of `key` in the section at `section` ("exec", "model", "cluster"...); a key
// without an entry reads as its words ("num_hidden_layers" -> "Num hidden layers").
FieldLook fieldLook(const QString& section, const QString& key);
// A section's groups in the order an engineer reads them (empty: ungrouped).
QStringList fieldGroups(const QString& section);
// What the document (and the last resolved scenario, when given) says about the scenario.
Applies appliesOf(const core::Value& document, const core::Value* resolvedModel);

}  // namespace tessera::ui
