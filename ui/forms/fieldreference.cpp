#include "forms/fieldreference.h"

#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QMessageBox>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtGlobal>

#include "forms/fieldlook.h"
#include "spec/clusterspec.h"
#include "spec/execspec.h"
#include "spec/modelspec.h"
#include "spec/searchspec.h"

namespace tessera::ui {

namespace {

QString view(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

// A visitor that writes each field it is shown as a table row.
class Rows {
public:
    explicit Rows(QString section) : m_section(std::move(section)) {}
    template <class... A>
    void integer(core::Field f, A&&...) { row(f); }
    template <class... A>
    void real(core::Field f, A&&...) { row(f); }
    template <class... A>
    void flag(core::Field f, A&&...) { row(f); }
    template <class... A>
    void text(core::Field f, A&&...) { row(f); }
    template <class... A>
    void choice(core::Field f, A&&...) { row(f); }
    template <class... A>
    void textList(core::Field f, A&&...) { row(f); }
    template <class... A>
    void memory(core::Field f, A&&...) { row(f); }
    template <class... A>
    void numberMap(core::Field f, A&&...) { row(f); }
    template <class... A>
    void stageCounts(core::Field f, A&&...) { row(f); }
    template <class... A>
    void ranges(core::Field f, A&&...) { row(f); }
    const QString& html() const { return m_html; }

private:
    void row(core::Field f) {
        const FieldLook look = fieldLook(m_section, view(f.key));
        m_html += QStringLiteral("<tr><td><b>%1</b></td><td><code>%2.%3</code></td><td>%4</td><td>%5</td><td>%6</td></tr>")
                      .arg(look.label.toHtmlEscaped(), m_section, view(f.key), look.group.toHtmlEscaped(),
                           view(f.help).toHtmlEscaped(), view(f.unit).toHtmlEscaped());
    }
    QString m_section;
    QString m_html;
};

template <class Spec>
QString table(const QString& section, const QString& title) {
    Spec spec{};
    Rows rows(section);
    visit(spec, rows);
    return QStringLiteral("<h3>%1 <code>%2</code></h3><table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">"
                          "<tr><th>Field</th><th>Key</th><th>Group</th><th>Meaning</th><th>Unit</th></tr>%3</table>")
        .arg(title, section, rows.html());
}

}  // namespace

QString fieldReferenceHtml() {
    return QObject::tr("<h2>Tessera field reference</h2><p>Every field a scenario file or form states. Absent is not zero: "
                       "a field left out is filled from the model's family, the run defaults or other fields, and "
                       "<code>tessera show</code> (and each form's grey placeholder) says which.</p>") +
           table<core::ModelSpec>(QStringLiteral("model"), QObject::tr("Model")) +
           table<core::ExecSpec>(QStringLiteral("exec"), QObject::tr("Execution")) +
           table<core::ClusterSpec>(QStringLiteral("cluster"), QObject::tr("Cluster")) +
           table<core::DeviceSpec>(QStringLiteral("cluster.device"), QObject::tr("Device")) +
           table<core::SearchConstraints>(QStringLiteral("search.constraints"), QObject::tr("Search constraints"));
}

void showFieldReference(QWidget* parent) {
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("fieldReference"));
    dialog->setWindowTitle(QObject::tr("Field reference - Tessera"));
    auto* layout = new QVBoxLayout(dialog);
    auto* browser = new QTextBrowser(dialog);
    browser->setHtml(fieldReferenceHtml());
    layout->addWidget(browser);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(1000, 700);
    dialog->show();
}

void showAbout(QWidget* parent) {
    QMessageBox::about(parent, QObject::tr("About Tessera"),
                       QObject::tr("<h3>Tessera %1</h3><p>A what-if explorer for distributed LLM training: memory per "
                                   "stage, step time and where it goes, and the best strategies.</p>"
                                   "<p>Qt %2 (built with %3) · C++ %4 · compiler %5</p>")
                           .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                                QStringLiteral(QT_VERSION_STR), QString::number(__cplusplus),
                                QString::fromLatin1(__VERSION__)));
}

}  // namespace tessera::ui
