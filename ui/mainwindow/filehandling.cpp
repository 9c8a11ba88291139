// The main window's files: open (scenarios; a Hugging Face config.json replaces the
// model, a HyperParallel train.yaml the run), save atomically (QSaveFile, checked
// byte for byte) without overwriting or discarding anything unasked, recent files,
// the session restored on the next start, drops, crash recovery and the exports.
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QFormLayout>
#include <QGuiApplication>
#include <QImage>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPixmap>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <optional>

#include "doc/emit.h"
#include "export/report.h"
#include "export/savefile.h"
#include "io/hfimport.h"
#include "io/seedsearch.h"
#include "io/overrides.h"
#include "io/scenarioio.h"
#include "mainwindow/mainwindow.h"
#include "style/text.h"
#include "trainyaml/trainyaml.h"
#include "trainers/trainers.h"

namespace tessera::ui {

namespace {
constexpr int kRecentFiles = 8;
}  // namespace

void MainWindow::warn(const QString& title, const QString& text) {
    if (m_neverAsk) statusBar()->showMessage(text);
    else QMessageBox::warning(this, title, text);
}

void MainWindow::setAutosaveInterval(int ms) { m_autosave->setInterval(ms); }

void MainWindow::autosave() {
    if (!m_session.isModified()) return;
    QString error;
    if (!m_recovery.write(QByteArray::fromStdString(core::toYaml(m_session.document())), m_session.filePath(), &error))
        statusBar()->showMessage(tr("Autosave failed (%1); save the scenario to keep it safe").arg(error));
}

void MainWindow::offerRecovery() {
    if (m_neverAsk) return;
    for (const Recovery& r : RecoveryFile::orphans()) {
        const QString what = r.original.isEmpty() ? tr("an unsaved scenario") : QFileInfo(r.original).fileName();
        QMessageBox box(QMessageBox::Question, tr("Recover unsaved changes"),
                        tr("Tessera stopped with unsaved changes to %1, autosaved %2. Restore them?")
                            .arg(what, QLocale().toString(r.saved.toLocalTime(), QLocale::ShortFormat)),
                        QMessageBox::NoButton, this);
        box.setInformativeText(r.original);
        QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
        QPushButton* drop = box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("Later"), QMessageBox::RejectRole);  // keep it for the next start
        box.setDefaultButton(restore);
        box.exec();
        if (box.clickedButton() == drop) RecoveryFile::remove(r);
        if (box.clickedButton() == restore) {
            restoreRecovery(r);
            return;  // one window holds one scenario; the rest wait for the next start
        }
    }
}

bool MainWindow::restoreRecovery(const Recovery& recovery) {
    if (!m_session.recover(recovery.document, recovery.original)) return false;  // the orphan stays for another try
    updateTitle();
    autosave();  // this window now holds the changes: its own recovery file replaces the orphan
    RecoveryFile::remove(recovery);
    statusBar()->showMessage(tr("Recovered the changes autosaved %1").arg(QLocale().toString(recovery.saved.toLocalTime())), 8000);
    return true;
}

bool MainWindow::confirmDiscard() {
    if (!isDirty() || m_neverAsk) return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                              tr("The scenario has changes that are not saved. Save them first?"),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

// An import changes the scenario shown, as one undo step, once it reads.
void MainWindow::importInto(const QString& path, const core::Value& document) {
    try {
        const core::Scenario read = core::scenarioFromValue(document, path.toStdString(), QFileInfo(path).absolutePath().toStdString());
        m_session.setScenario(core::scenarioValue(read), Change::Import, tr("import %1").arg(QFileInfo(path).fileName()));
        // Its problems stay in view (a search file is not one run until a strategy is picked).
        if (m_session.problems().empty()) statusBar()->showMessage(tr("Imported %1 (Edit ▸ Undo takes it back)").arg(path), 5000);
        else statusBar()->showMessage(tr("Imported %1; ").arg(QFileInfo(path).fileName()) + statusBar()->currentMessage());
    } catch (const core::SpecError& e) {
        warn(tr("Not imported"), tr("%1 cannot be used:\n\n%2").arg(path, qs(e.what())));
    }
}

namespace {
// A HyperParallel (AutoModels) train.yaml: its run sections.
bool isTrainYaml(const core::Value& doc) { return doc.isMap() && (doc.find("accelerator") || doc.find("fsdp_config")); }
}  // namespace

bool MainWindow::isForeign(const QString& path) {
    try {
        const core::Value doc = core::loadDocument(path.toStdString());
        if (core::isHfConfig(doc) || core::isSeedSearchConfig(doc) || isTrainYaml(doc)) return true;
    } catch (const core::SpecError&) {
    }
    // A trainer's launch file (Megatron-LM arguments, torchtitan TOML, ...), recognised as `tessera import` does.
    QFile file(path);
    if (file.size() > 16 * 1024 * 1024 || !file.open(QIODevice::ReadOnly)) return false;  // load() reports it
    try {
        return core::detectFormat(file.readAll().toStdString(), path.toStdString()).has_value();
    } catch (const core::SpecError&) {
        return false;  // load() reports it
    }
}

void MainWindow::openFile(const QString& path) {
    core::Value doc;
    try {
        doc = core::loadDocument(path.toStdString());
    } catch (const core::SpecError&) {
        doc = core::Value();  // load() below reports it, as for any file
    }
    const QString dir = QFileInfo(path).absolutePath();
    // A Hugging Face config.json replaces the model only.
    if (core::isHfConfig(doc)) {
        core::Diagnostics d;
        core::Value next = m_session.document();
        const core::HfImport imported = core::importHf(doc, d);
        core::setAt(next, "model", imported.model);
        if (!d.empty()) return warn(tr("Not imported"), tr("%1 cannot be used:\n\n%2").arg(path, qs(core::SpecError(d.list()).what())));
        importInto(path, next);
        // Keys the model is priced without stay in view: here, and greyed in the model form.
        if (!imported.unpriced.empty()) {
            QStringList keys;
            for (const std::string& k : imported.unpriced) keys << qs(k);
            statusBar()->showMessage(tr("Imported %1; not priced: %2 (model.unpriced_keys)").arg(QFileInfo(path).fileName(), keys.join(QStringLiteral(", "))));
        }
        return;
    }
    // A HyperParallel train.yaml states a run: take it, on the device shown now (and
    // the device count shown, unless the file states its own).
    if (isTrainYaml(doc)) {
        core::TrainCluster cluster;
        if (const core::Value* c = m_session.document().find("cluster"); c && c->isMap()) {
            if (const core::Value* device = c->find("device")) cluster.device = *device;
            if (const core::Value* n = c->find("devices"); n && n->kind() == core::Value::Kind::Int) cluster.devices = n->asInt();
        }
        cluster.devicesOffered = true;
        core::Diagnostics d;
        const core::Value run = core::trainScenario(doc, dir.toStdString(), cluster, d);
        if (!d.empty()) return warn(tr("Not imported"), tr("%1 cannot be used:\n\n%2").arg(path, qs(core::SpecError(d.list()).what())));
        return importInto(path, run);
    }
    // HyperParallel's search configuration states a model, a cluster and a search:
    // the scenario it reads as replaces the one shown.
    if (core::isSeedSearchConfig(doc)) {
        core::Diagnostics d;
        const core::Value scenario = core::scenarioFromSeedSearch(doc, d);
        if (!d.empty()) return warn(tr("Not imported"), tr("%1 cannot be used:\n\n%2").arg(path, qs(core::SpecError(d.list()).what())));
        return importInto(path, scenario);
    }
    // A trainer's own launch file (Megatron-LM arguments or YAML, torchtitan TOML,
    // MindSpeed JSON, MindFormers YAML) states a run: take it on the device shown.
    if (importTrainerFile(path)) return;
    if (!confirmDiscard()) return;
    load(path);
    addRecent(QFileInfo(path).absoluteFilePath());
}

bool MainWindow::importTrainerFile(const QString& path) {
    QFile file(path);
    if (file.size() > 16 * 1024 * 1024 || !file.open(QIODevice::ReadOnly)) return false;  // load() reports it
    const std::string text = file.readAll().toStdString();
    std::optional<core::ConfigFormat> format;
    try {
        format = core::detectFormat(text, path.toStdString());
    } catch (const core::SpecError&) {
        return false;  // YAML or JSON that does not parse: load() reports it
    }
    using F = core::ConfigFormat;
    if (!format || !(*format == F::MegatronArgs || *format == F::MegatronYaml || *format == F::Torchtitan ||
                     *format == F::MindSpeed || *format == F::MindFormers))
        return false;
    core::ImportCluster cluster;
    if (const core::Value* c = m_session.document().find("cluster"); c && c->isMap()) {
        if (const core::Value* device = c->find("device")) cluster.device = *device;
        if (const core::Value* n = c->find("devices"); n && n->kind() == core::Value::Kind::Int) cluster.devices = n->asInt();
    }
    core::Diagnostics d;
    const core::Imported imported =
        core::importConfig(text, path.toStdString(), QFileInfo(path).absolutePath().toStdString(), cluster, d);
    if (!d.empty()) {
        warn(tr("Not imported"), tr("%1 (%2) cannot be used:\n\n%3").arg(path, qs(core::formatName(*format)), qs(core::SpecError(d.list()).what())));
        return true;
    }
    importInto(path, imported.scenario);
    // What the file states and Tessera does not price stays in view.
    if (!imported.unpriced.empty()) {
        QStringList keys;
        for (const core::Unpriced& u : imported.unpriced) keys << qs(u.key);
        statusBar()->showMessage(tr("Imported %1 (%2); not priced: %3").arg(QFileInfo(path).fileName(), qs(core::formatName(*format)),
                                                                          keys.join(QStringLiteral(", "))));
    }
    return true;
}

bool MainWindow::save() {
    if (m_session.filePath().isEmpty()) return saveAs();
    return saveTo(m_session.filePath());
}

bool MainWindow::saveAs() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), m_session.filePath(),
                                                      tr("Scenarios and configs (*.yaml *.yml *.json);;All files (*)"));
    if (path.isEmpty()) return false;  // the dialog asks before replacing a file
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path) {
    const core::Value& doc = m_session.document();
    const std::string text = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? core::toJson(doc).dump(2) + "\n"
                                                                                          : core::toYaml(doc);
    QString error;  // atomic: the old file stays whole until the new one is complete
    if (!writeWhole(path, QByteArray::fromStdString(text), &error)) {
        warn(tr("Not saved"), tr("Cannot save %1: %2. The scenario is still here.").arg(path, error));
        return false;
    }
    m_session.setFilePath(path);
    m_session.markSaved();
    addRecent(m_session.filePath());
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kRecentFiles) recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& path : QSettings().value(QStringLiteral("recentFiles")).toStringList())
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })->setToolTip(path);
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::saveSession() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("session/path"), m_session.filePath());
    settings.setValue(QStringLiteral("session/view"), m_tabs->currentIndex());
}

void MainWindow::restoreSession() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("session/view"), 0).toInt());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscard()) return event->ignore();
    m_session.cancelSearch();
    m_autosave->stop();
    m_recovery.discard();  // a clean close: the user saved or chose to discard
    saveSession();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    static const QRegularExpression scenario(QStringLiteral("\\.(ya?ml|json)$"));
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile() && scenario.match(url.toLocalFile()).hasMatch()) return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

QImage MainWindow::renderView(QSize size, double pixelRatio) {
    QWidget* target = m_tabs->currentWidget();
    const QSize before = size.isValid() ? resizeForPicture(size) : QSize();
    QPixmap pixmap(target->size() * pixelRatio);
    pixmap.setDevicePixelRatio(pixelRatio);
    pixmap.fill(Qt::white);
    target->render(&pixmap);
    if (before.isValid()) resize(before);
    return pixmap.toImage();
}

QSize MainWindow::resizeForPicture(QSize viewSize) {
    // Grow or shrink the window by the difference, so the view itself gets the size.
    const QSize before = size();
    resize(before + (viewSize - m_tabs->currentWidget()->size()));
    return before;
}

// Where an export is proposed: beside the scenario's file (else the working folder),
// named after it and what is exported - "llama3-70b-h100x64-memory.png".
QString MainWindow::proposedPath(const QString& what) const {
    const QFileInfo scenario(m_session.filePath());
    QString stem = m_session.filePath().isEmpty() ? m_session.title() : scenario.completeBaseName();
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    const QString dir = m_session.filePath().isEmpty() ? QDir::currentPath() : scenario.absolutePath();
    return QDir(dir).filePath(stem + QLatin1Char('-') + what);
}

void MainWindow::exported(const QString& what, const QString& path) {
    statusBar()->showMessage(tr("Exported %1 to %2").arg(what, QDir::toNativeSeparators(path)), 8000);
}

void MainWindow::exportViewPng() {
    QDialog ask(this);
    ask.setWindowTitle(tr("Export view as PNG"));
    auto* form = new QFormLayout(&ask);
    auto* width = new QSpinBox(&ask);
    auto* height = new QSpinBox(&ask);
    auto* ratio = new QDoubleSpinBox(&ask);
    width->setRange(200, 10000), height->setRange(150, 10000), ratio->setRange(1, 4);
    width->setValue(m_tabs->currentWidget()->width()), height->setValue(m_tabs->currentWidget()->height()), ratio->setValue(2);
    form->addRow(tr("width (px)"), width);
    form->addRow(tr("height (px)"), height);
    form->addRow(tr("pixel ratio"), ratio);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &ask);
    connect(buttons, &QDialogButtonBox::accepted, &ask, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &ask, &QDialog::reject);
    form->addRow(buttons);
    if (ask.exec() != QDialog::Accepted) return;
    const QString viewName = m_tabs->tabText(m_tabs->currentIndex()).toLower();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view as PNG"), proposedPath(viewName + QStringLiteral(".png")),
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    const QImage image = renderView(QSize(width->value(), height->value()), ratio->value());
    QSaveFile file(path);
    QString error;
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG")) error = file.errorString();
    if (error.isEmpty()) commitWhole(file, &error);
    if (!error.isEmpty()) warn(tr("Not exported"), tr("Cannot write %1: %2").arg(path, error));
    else exported(tr("the %1 view").arg(viewName), path);
}

void MainWindow::copyView() { QGuiApplication::clipboard()->setImage(renderView({}, devicePixelRatio())); }

void MainWindow::exportTrainYaml() {
    if (!loaded()) return warn(tr("Not exported"), tr("The scenario has problems; a train.yaml is written for one that evaluates."));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export train.yaml"), proposedPath(QStringLiteral("train.yaml")),
                                                      tr("YAML (*.yaml *.yml)"));
    if (path.isEmpty()) return;
    try {
        const std::string text = core::trainYaml(m_session.evaluation()->resolved, nullptr);
        QString error;
        if (!writeWhole(path, QByteArray::fromStdString(text), &error)) warn(tr("Not exported"), tr("Cannot write %1: %2").arg(path, error));
        else {
            // What the file cannot carry is in its header; the message names it too.
            QStringList keys;
            for (const std::string& line : core::trainYamlUnexpressed(m_session.evaluation()->resolved))
                keys << qs(line.substr(0, line.find(':')));
            exported(keys.isEmpty() ? QStringLiteral("train.yaml")
                                    : tr("train.yaml (not expressed, listed in its header: %1)").arg(keys.join(QStringLiteral(", "))),
                     path);
        }
    } catch (const core::SpecError& e) {
        warn(tr("Not exported"), qs(e.what()));
    }
}

void MainWindow::exportReview() {
    if (!loaded()) return warn(tr("Not exported"), tr("The scenario has problems; a review is written for one that evaluates."));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export review PDF"), proposedPath(QStringLiteral("review.pdf")), tr("PDF (*.pdf)"));
    if (path.isEmpty()) return;
    QString error;
    if (!writeReport(reviewOf(m_session), path, &error)) warn(tr("Not exported"), error);
    else exported(m_session.searchIsStale() ? tr("the review (its search marked stale)") : tr("the review"), path);
}

}  // namespace tessera::ui
