#pragma once
// Image checks the UI tests share: a picture is "not blank" when it holds several
// colours (sampled on a grid; never pixel comparisons, DESIGN.md).
#include <QImage>
#include <QSet>

namespace tessera::testing {

inline int distinctColours(const QImage& image, int step = 2) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step)
        for (int x = 0; x < image.width(); x += step) colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace tessera::testing
