// testdata/cppstl: an optimised (-O2) C++ program using the STL, templates,
// lambdas, virtual calls and two file-static functions with the same name
// (`twice(int)` in a.cpp and in b.cpp), for the per-object symbol tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace geo {

struct Shape {
    virtual ~Shape();
    virtual double area() const = 0;
    virtual std::string name() const = 0;
};

struct Rect : Shape {
    Rect(double w, double h);
    double area() const override;
    std::string name() const override;
    double w, h;
};

struct Circle : Shape {
    explicit Circle(double r);
    double area() const override;
    std::string name() const override;
    double r;
};

template <typename T>
T total(const std::vector<T>& xs) {
    T sum{};
    for (const T& x : xs) sum += x;
    return sum;
}

std::vector<std::unique_ptr<Shape>> make_shapes(int n);

}  // namespace geo

int a_value(int x);
int b_value(int x);
