#include "style/reviewmode.h"

#include <QApplication>
#include <QFontDatabase>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

static void initFonts() { Q_INIT_RESOURCE(fonts); }  // the resource lives in a static library

namespace tessera::ui {

namespace {

struct Families {
    QString sans, mono;
};

const Families& families() {
    static const Families loaded = [] {
        initFonts();
        Families f;
        for (const char* file : {":/fonts/DejaVuSans.ttf", ":/fonts/DejaVuSans-Bold.ttf"}) {
            const int id = QFontDatabase::addApplicationFont(QString::fromLatin1(file));
            if (id >= 0 && f.sans.isEmpty()) f.sans = QFontDatabase::applicationFontFamilies(id).value(0);
        }
        const int mono = QFontDatabase::addApplicationFont(QStringLiteral(":/fonts/DejaVuSansMono.ttf"));
        if (mono >= 0) f.mono = QFontDatabase::applicationFontFamilies(mono).value(0);
        return f;
    }();
    return loaded;
}

}  // namespace

QFont reviewFont(double pointSize, bool bold) {
    QFont font(families().sans);
    font.setPointSizeF(pointSize);
    font.setBold(bold);
    // No ligatures: "ﬁ" in a PDF reads back as one glyph, and a search for "fits" misses it.
    font.setStyleStrategy(QFont::PreferNoShaping);
    return font;
}

QFont reviewMonoFont(double pointSize) {
    QFont font(families().mono);
    font.setStyleHint(QFont::Monospace);
    font.setPointSizeF(pointSize);
    return font;
}

namespace {
bool reviewMode = false;
}

bool inReviewMode() { return reviewMode; }

QFont fixedFont() { return reviewMode ? reviewMonoFont() : QFontDatabase::systemFont(QFontDatabase::FixedFont); }

namespace {
// A dark palette of the usual desktop greys; every role a view reads is set, so
// nothing falls back to the light default.
QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xee, 0xee, 0xee), button(0x3a, 0x3a, 0x3a);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::ToolTipBase, QColor(0x40, 0x40, 0x40));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Highlight, QColor(0x2a, 0x6f, 0xb8));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4a));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x40));
    p.setColor(QPalette::Mid, QColor(0x30, 0x30, 0x30));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x18));
    p.setColor(QPalette::Shadow, Qt::black);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    return p;
}
}  // namespace

void enterReviewMode(QApplication& app, bool dark) {
    reviewMode = true;
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    // Light whatever the desktop says, unless a dark picture is asked for.
    app.setPalette(dark ? darkPalette() : app.style()->standardPalette());
    app.setFont(reviewFont());
}

}  // namespace tessera::ui
