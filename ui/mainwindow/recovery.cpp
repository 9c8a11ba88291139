#include "mainwindow/recovery.h"

#include "export/savefile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QStandardPaths>
#include <atomic>
#include <algorithm>

namespace tessera::ui {

namespace {

// Each window of a process gets its own name; the pid keeps processes apart.
QString uniqueBase(const QString& folder) {
    static std::atomic<int> counter{0};
    return QDir(folder).filePath(QStringLiteral("session-%1-%2").arg(QCoreApplication::applicationPid()).arg(counter++));
}

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error) {
    if (writeWhole(path, bytes, error)) return true;
    if (error) *error = QStringLiteral("%1: %2").arg(path, *error);
    return false;
}

}  // namespace

RecoveryFile::RecoveryFile(const QString& folder) : m_folder(folder), m_base(uniqueBase(folder)) {}

RecoveryFile::~RecoveryFile() { discard(); }

QString RecoveryFile::defaultFolder() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("recovery"));
}

QString RecoveryFile::documentPath() const { return m_base + QStringLiteral(".yaml"); }

bool RecoveryFile::write(const QByteArray& document, const QString& original, QString* error) {
    if (!QDir().mkpath(m_folder)) {
        if (error) *error = QStringLiteral("%1: cannot create the folder").arg(m_folder);
        return false;
    }
    if (!m_lock) {
        // Held until discard() or the process ends; a dead process leaves it stale.
        m_lock = std::make_unique<QLockFile>(m_base + QStringLiteral(".lock"));
        m_lock->setStaleLockTime(0);  // stale only when its process is gone, never by age
        if (!m_lock->tryLock(0)) {
            if (error) *error = QStringLiteral("%1: cannot take the lock").arg(m_base);
            m_lock.reset();
            return false;
        }
    }
    const QJsonObject about{{QStringLiteral("original"), original},
                            {QStringLiteral("saved"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)}};
    // The document first: an orphan without its note is still offered.
    return writeAtomically(documentPath(), document, error) &&
           writeAtomically(m_base + QStringLiteral(".json"), QJsonDocument(about).toJson(), error);
}

void RecoveryFile::discard() {
    QFile::remove(documentPath());
    QFile::remove(m_base + QStringLiteral(".json"));
    if (m_lock) m_lock->unlock();  // removes the lock file
    m_lock.reset();
}

QList<Recovery> RecoveryFile::orphans(const QString& folder) {
    QList<Recovery> found;
    const QDir dir(folder);
    for (const QString& name : dir.entryList({QStringLiteral("session-*.yaml")}, QDir::Files)) {
        const QString base = dir.filePath(name.chopped(5));
        QLockFile lock(base + QStringLiteral(".lock"));
        lock.setStaleLockTime(0);
        // Taken only when nobody holds it: no lock file, or one whose process died.
        if (!lock.tryLock(0)) continue;
        lock.unlock();
        Recovery r;
        r.document = base + QStringLiteral(".yaml");
        QFile note(base + QStringLiteral(".json"));
        if (note.open(QIODevice::ReadOnly)) {
            const QJsonObject about = QJsonDocument::fromJson(note.readAll()).object();
            r.original = about.value(QLatin1String("original")).toString();
            r.saved = QDateTime::fromString(about.value(QLatin1String("saved")).toString(), Qt::ISODateWithMs);
        }
        if (!r.saved.isValid()) r.saved = QFileInfo(r.document).lastModified();
        found.append(r);
    }
    std::sort(found.begin(), found.end(), [](const Recovery& a, const Recovery& b) { return a.saved > b.saved; });
    return found;
}

void RecoveryFile::remove(const Recovery& recovery) {
    QString base = recovery.document;
    base.chop(5);
    for (const char* suffix : {".yaml", ".json", ".lock"}) QFile::remove(base + QLatin1String(suffix));
}

}  // namespace tessera::ui
