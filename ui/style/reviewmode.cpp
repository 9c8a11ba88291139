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

void enterReviewMode(QApplication& app) {
    reviewMode = true;
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    app.setPalette(app.style()->standardPalette());  // light, whatever the desktop says
    app.setFont(reviewFont());
}

}  // namespace tessera::ui
