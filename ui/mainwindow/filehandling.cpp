// The main window's files: open (scenarios; a Hugging Face config.json becomes the
// model), save atomically (QSaveFile) without overwriting or discarding anything
// unasked, recent files, the session restored on the next start, and drops.
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QImage>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QPixmap>
#include <QSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "export/savefile.h"
#include "forms/scenarioeditor.h"
#include "doc/emit.h"
#include "io/hfimport.h"
#include "io/scenarioio.h"
#include "trainyaml/trainyaml.h"
#include "mainwindow/mainwindow.h"

namespace tessera::ui {

namespace {
constexpr int kRecentFiles = 8;
const char* kFilter = "Scenarios and configs (*.yaml *.yml *.json);;All files (*)";
}  // namespace

void MainWindow::setDirty(bool dirty) {
    m_dirty = dirty;
    setWindowModified(dirty);
    if (!dirty) {
        m_autosave->stop();
        m_recovery.discard();  // saved or dropped: nothing to recover
    } else if (!m_autosave->isActive()) {
        m_autosave->start();  // not restarted by later edits: at most one interval is lost
    }
}

void MainWindow::setAutosaveInterval(int ms) { m_autosave->setInterval(ms); }

void MainWindow::autosave() {
    if (!m_dirty) return;
    const core::Value doc = m_editor->document();
    QString error;
    if (!m_recovery.write(QByteArray::fromStdString(core::toYaml(doc)), m_path, &error))
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
        box.setInformativeText(r.original.isEmpty() ? QString() : r.original);
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
    load(recovery.document);
    if (!m_loaded) return false;  // the problems are shown; the orphan stays for another try
    m_path = recovery.original;
    setWindowTitle(tr("%1[*] - Tessera").arg(m_path.isEmpty() ? tr("Recovered scenario") : QFileInfo(m_path).fileName()));
    setDirty(true);
    autosave();  // this window now holds the changes: its own recovery file replaces the orphan
    RecoveryFile::remove(recovery);
    statusBar()->showMessage(tr("Recovered the changes autosaved %1").arg(QLocale().toString(recovery.saved.toLocalTime())), 8000);
    return true;
}

bool MainWindow::confirmDiscard() {
    if (!m_dirty || m_neverAsk) return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                              tr("The scenario has changes that are not saved. Save them first?"),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::openFile(const QString& path) {
    if (!confirmDiscard()) return;
    // A Hugging Face config.json replaces the model only.
    try {
        const core::Value doc = core::loadDocument(path.toStdString());
        if (core::isHfConfig(doc) && m_scenario) {
            core::Diagnostics d;
            const core::Value section = core::importHfConfig(doc, d);
            const core::ModelSpec model = core::modelFromValue(section, "model", d);
            if (d.empty()) {
                m_editor->setModel(model);
                statusBar()->showMessage(tr("Model imported from %1").arg(path), 5000);
                return;
            }
            showProblems(core::SpecError(d.list()));
            return;
        }
        // A HyperParallel train.yaml states a run: take it, on the cluster shown now.
        if (doc.isMap() && (doc.find("accelerator") || doc.find("fsdp_config")) && m_scenario) {
            core::Diagnostics d;
            core::Value scenario = core::scenarioFromTrainYaml(doc, QFileInfo(path).absolutePath().toStdString(), d);
            core::Value cluster = core::scenarioValue(*m_scenario).find("cluster") ? *core::scenarioValue(*m_scenario).find("cluster")
                                                                                 : core::Value::map();
            if (const core::Value* stated = scenario.find("cluster"); stated && stated->find("devices"))
                cluster.set("devices", *stated->find("devices"));
            scenario.set("cluster", cluster);
            if (d.empty()) {
                try {
                    m_scenario = core::scenarioFromValue(scenario, path.toStdString(), QFileInfo(path).absolutePath().toStdString());
                    m_editor->setScenario(*m_scenario);
                    evaluate(*m_scenario);
                    setDirty(true);  // not saved as a scenario yet
                    statusBar()->showMessage(tr("Run imported from %1").arg(path), 5000);
                    return;
                } catch (const core::SpecError& e) {
                    showProblems(e);
                    return;
                }
            }
            showProblems(core::SpecError(d.list()));
            return;
        }
    } catch (const core::LoadError&) {
        // load() below reports it with the rest
    }
    load(path);
    m_path = QFileInfo(path).absoluteFilePath();
    setDirty(false);
    addRecent(m_path);
}

bool MainWindow::save() {
    if (m_path.isEmpty()) return saveAs();
    return saveTo(m_path);
}

bool MainWindow::saveAs() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), m_path, kFilter);
    if (path.isEmpty()) return false;  // the dialog asks before replacing a file
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path) {
    const core::Value doc = m_editor->document();
    const std::string text = path.endsWith(".json", Qt::CaseInsensitive) ? core::toJson(doc).dump(2) + "\n" : core::toYaml(doc);
    QString error;  // atomic: the old file stays whole until the new one is complete
    if (!writeWhole(path, QByteArray::fromStdString(text), &error)) {
        const QString why = tr("Cannot save %1: %2. The scenario is still here.").arg(path, error);
        if (m_neverAsk) statusBar()->showMessage(why);
        else QMessageBox::warning(this, tr("Not saved"), why);
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    setDirty(false);
    addRecent(m_path);
    setWindowTitle(tr("%1[*] - Tessera").arg(QFileInfo(path).fileName()));
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::addRecent(const QString& path) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kRecentFiles) recent.removeLast();
    settings.setValue("recentFiles", recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    m_recentMenu->clear();
    for (const QString& path : QSettings().value("recentFiles").toStringList())
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })->setToolTip(path);
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::saveSession() const {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("session/path", m_path);
    settings.setValue("session/view", m_tabs->currentIndex());
}

void MainWindow::restoreSession() {
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    m_tabs->setCurrentIndex(settings.value("session/view", 0).toInt());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!confirmDiscard()) return event->ignore();
    m_search->cancel();
    m_autosave->stop();
    m_recovery.discard();  // a clean close: the user saved or chose to discard
    saveSession();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile() && QRegularExpression("\\.(ya?ml|json)$").match(url.toLocalFile()).hasMatch())
            return event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

}  // namespace tessera::ui

namespace tessera::ui {

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
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view as PNG"), QString(), tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    const QImage image = renderView(QSize(width->value(), height->value()), ratio->value());
    QSaveFile file(path);
    QString error;
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG")) error = file.errorString();
    if (error.isEmpty()) commitWhole(file, &error);
    if (!error.isEmpty()) QMessageBox::warning(this, tr("Not exported"), tr("Cannot write %1: %2").arg(path, error));
}

void MainWindow::copyView() { QGuiApplication::clipboard()->setImage(renderView({}, devicePixelRatio())); }

void MainWindow::exportTrainYaml() {
    if (!m_resolved) return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export train.yaml"), QStringLiteral("train.yaml"),
                                                      tr("YAML (*.yaml *.yml)"));
    if (path.isEmpty()) return;
    try {
        const std::string text = core::trainYaml(*m_resolved, nullptr);
        QString error;
        if (!writeWhole(path, QByteArray::fromStdString(text), &error))
            QMessageBox::warning(this, tr("Not exported"), tr("Cannot write %1: %2").arg(path, error));
    } catch (const core::SpecError& e) {
        QMessageBox::warning(this, tr("Not exported"), QString::fromStdString(e.what()));
    }
}

}  // namespace tessera::ui
