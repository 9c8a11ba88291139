#pragma once
// Finishing an atomic write. QSaveFile::commit() alone can report success for a file
// the disk cut short: a write past a full disk or a file-size limit lands part of its
// bytes without an error (seen with RLIMIT_FSIZE on Qt 6.4). The old file must stay
// whole in that case, so the size on disk is checked before the rename.
#include <QString>

class QSaveFile;

namespace tessera::ui {

// Commit `file` if every byte written is on disk; otherwise cancel it (the previous
// file stays as it was) and say why in `error`.
bool commitWhole(QSaveFile& file, QString* error = nullptr);

// Write `bytes` to `path` atomically through commitWhole.
bool writeWhole(const QString& path, const QByteArray& bytes, QString* error = nullptr);

}  // namespace tessera::ui
