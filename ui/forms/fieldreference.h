#pragma once
// Help ▸ Field reference (F1): every field of every section - its label in words, its
// key, what it means and its unit - built from the same field tables the files and
// forms are; and Help ▸ About, with the versions the build runs on.
#include <QString>

class QWidget;

namespace tessera::ui {

// The reference as HTML: one table per section, a row per field.
QString fieldReferenceHtml();
void showFieldReference(QWidget* parent);
void showAbout(QWidget* parent);

}  // namespace tessera::ui
