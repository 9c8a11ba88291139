#pragma once
// Crash recovery: while a window has unsaved changes it writes them to a recovery
// file of its own (atomically, QSaveFile) beside a lock that lives as long as the
// process. A clean close, a save or a discard removes the file; a recovery file
// whose lock is stale (its process died) is an orphan the next start offers back.
#include <QDateTime>
#include <QList>
#include <QString>
#include <memory>

class QLockFile;

namespace tessera::ui {

// A recovery file left by a process that did not end cleanly.
struct Recovery {
    QString document;  // the recovery file: the scenario document, YAML
    QString original;  // the file it was an edit of; empty for an unsaved scenario
    QDateTime saved;   // when it was written
};

class RecoveryFile {
public:
    // The folder holds every window's recovery files; the default is the user's
    // application data folder.
    explicit RecoveryFile(const QString& folder = defaultFolder());
    ~RecoveryFile();  // a clean end: nothing to recover
    RecoveryFile(const RecoveryFile&) = delete;
    RecoveryFile& operator=(const RecoveryFile&) = delete;

    // Write the unsaved document; false (and `error`) when it cannot be written.
    bool write(const QByteArray& document, const QString& original, QString* error = nullptr);
    // The changes were saved or dropped: remove the recovery file.
    void discard();
    QString documentPath() const;

    static QString defaultFolder();
    // Recovery files whose process is gone, newest first.
    static QList<Recovery> orphans(const QString& folder = defaultFolder());
    // Remove an orphan once restored or declined.
    static void remove(const Recovery& recovery);

private:
    QString m_folder, m_base;  // m_base: "<folder>/session-<pid>-<n>"
    std::unique_ptr<QLockFile> m_lock;
};

}  // namespace tessera::ui
