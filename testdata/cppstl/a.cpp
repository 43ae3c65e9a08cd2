#include "shapes.h"

// Same name as b.cpp's: a different function.
static int twice(int x) { return 2 * x; }

int a_value(int x) { return twice(x) + 1; }

namespace geo {

Shape::~Shape() = default;

Rect::Rect(double w_, double h_) : w(w_), h(h_) {}
double Rect::area() const { return w * h; }
std::string Rect::name() const { return "rect " + std::to_string(static_cast<int>(w)); }

Circle::Circle(double r_) : r(r_) {}
double Circle::area() const { return 3 * r * r; }
std::string Circle::name() const { return "circle"; }

std::vector<std::unique_ptr<Shape>> make_shapes(int n) {
    std::vector<std::unique_ptr<Shape>> out;
    for (int i = 1; i <= n; i++) {
        if (i % 2)
            out.push_back(std::make_unique<Rect>(i, 2));
        else
            out.push_back(std::make_unique<Circle>(i));
    }
    return out;
}

}  // namespace geo
