#include "export/savefile.h"

#include <QSaveFile>
#include <QStringList>

namespace tessera::ui {

bool commitWhole(QSaveFile& file, QString* error) {
    const qint64 written = file.pos();
    // size() flushes Qt's buffer and asks the file system how much it holds.
    const bool flushed = file.flush() && file.error() == QFileDevice::NoError;
    const qint64 onDisk = file.size();
    if (!flushed || onDisk != written) {
        QStringList why;
        if (!flushed) why << file.errorString();
        if (onDisk != written) why << QStringLiteral("the disk took only %1 of %2 bytes (is it full?)").arg(onDisk).arg(written);
        file.cancelWriting();
        file.commit();  // a cancelled commit only removes the temporary file
        if (error) *error = why.join(QStringLiteral("; "));
        return false;
    }
    if (!file.commit()) {
        if (error) *error = file.errorString();
        return false;
    }
    return true;
}

bool writeWhole(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) *error = file.errorString();
        return false;
    }
    if (file.write(bytes) != bytes.size()) {
        if (error) *error = file.errorString();
        file.cancelWriting();
        file.commit();
        return false;
    }
    return commitWhole(file, error);
}

}  // namespace tessera::ui
