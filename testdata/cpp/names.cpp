// names - a small C++ program whose demangled function names contain
// templates, namespaces, operators, const qualifiers, commas, spaces,
// quotes, braces and '#': < > : , & " ( ) { } # and ' '.
// Only <cstdio> is used so that no standard-library template code is
// instrumented: every traced function is defined in this file.
//
// Build (from the repository root; g++ compiles the runtime as C++, which it
// supports):
//   g++ -g -finstrument-functions testdata/cpp/names.cpp runtime/calltrace.c -o names
// or compile the runtime as C first:
//   gcc -g -finstrument-functions -c runtime/calltrace.c -o calltrace.o
//   g++ -g -finstrument-functions testdata/cpp/names.cpp calltrace.o -o names
//
/* EXPECTED CALLS: (single thread; caller -> callee xN; names as printed by c++filt / nm -C)
 *   main -> ns::Box<int>::Box(int)                                      x1
 *   main -> ns::Box<int>::get() const                                   x2
 *   main -> ns::Box<int>::set(int)                                      x1
 *   main -> ns::Box<double>::Box(double)                                x1
 *   main -> ns::Box<double>::get() const                                x1
 *   main -> int ns::twice<int>(int)                                     x1
 *   main -> double ns::twice<double>(double)                            x1
 *   main -> ns::Pair<int, double>::Pair(int, double)                    x1
 *   main -> ns::Pair<int, double>::sum() const                          x1
 *   main -> ns::Point::Point(int, int)                                  x2
 *   main -> ns::operator+(ns::Point const&, ns::Point const&)           x1
 *   main -> ns::operator==(ns::Point const&, ns::Point const&)          x1
 *   main -> main::{lambda(int)#1}::operator()(int) const                x1
 *   main -> ns::Printer::operator<<(char const*)                        x2
 *   main -> ns::operator<<(ns::Printer&, ns::Point const&)              x1
 *   main -> ns::Point::norm2() const                                    x1
 *   main -> ns::detail::count_chars(char const*, char)                  x1
 *   main -> (anonymous namespace)::helper(int)                          x1
 *   main -> operator"" _km(unsigned long long)                          x1
 *   ns::operator+(ns::Point const&, ns::Point const&) -> ns::Point::x() const        x2
 *   ns::operator+(ns::Point const&, ns::Point const&) -> ns::Point::y() const        x2
 *   ns::operator+(ns::Point const&, ns::Point const&) -> ns::Point::Point(int, int)  x1
 *   ns::operator==(ns::Point const&, ns::Point const&) -> ns::Point::x() const       x2
 *       (x differs, so && short-circuits and y() is not called)
 *   ns::operator<<(ns::Printer&, ns::Point const&) -> ns::Printer::operator<<(char const*)  x3
 *   ns::operator<<(ns::Printer&, ns::Point const&) -> ns::Printer::operator<<(int)          x2
 *   ns::operator<<(ns::Printer&, ns::Point const&) -> ns::Point::x() const                  x1
 *   ns::operator<<(ns::Printer&, ns::Point const&) -> ns::Point::y() const                  x1
 *   ns::Point::norm2() const -> int ns::twice<int>(int)                 x2
 *   (anonymous namespace)::helper(int) -> ns::Box<int>::Box(int)        x1
 *   (anonymous namespace)::helper(int) -> ns::Box<int>::get() const     x1
 * Totals: 23 distinct functions, 41 calls including main (82 E/X lines).
 * Constructors: gcc emits the complete (C1) and base (C2) constructor at the
 *   same address; both demangle to the same name.
 * The order of the last printf's arguments is unspecified, so the order of
 *   norm2/count_chars/helper/_km calls may vary between compilers (not runs).
 * Output is deterministic:
 *   r = (4, 6)
 *   ti=42 td=3.0 ps=2.5 n2=52 same=0 sq=1764 colons=4 helper=21 km=3000
 */
#include <cstdio>

namespace ns {

template <typename T>
class Box {
public:
    explicit Box(T v);
    T get() const;
    void set(T v);

private:
    T value_;
};

template <typename T>
Box<T>::Box(T v) : value_(v) {}

template <typename T>
T Box<T>::get() const
{
    return value_;
}

template <typename T>
void Box<T>::set(T v)
{
    value_ = v;
}

template <typename T>
T twice(T v)
{
    return v + v;
}

template <typename A, typename B>
struct Pair {
    Pair(A a_, B b_);
    double sum() const;
    A a;
    B b;
};

template <typename A, typename B>
Pair<A, B>::Pair(A a_, B b_) : a(a_), b(b_) {}

template <typename A, typename B>
double Pair<A, B>::sum() const
{
    return static_cast<double>(a) + static_cast<double>(b);
}

class Point {
public:
    Point(int x, int y);
    int x() const;
    int y() const;
    int norm2() const;

private:
    int x_;
    int y_;
};

Point::Point(int x, int y) : x_(x), y_(y) {}

int Point::x() const
{
    return x_;
}

int Point::y() const
{
    return y_;
}

int Point::norm2() const
{
    return twice(x_ * x_) / 2 + twice(y_ * y_) / 2;
}

Point operator+(const Point &l, const Point &r)
{
    return Point(l.x() + r.x(), l.y() + r.y());
}

bool operator==(const Point &l, const Point &r)
{
    return l.x() == r.x() && l.y() == r.y();
}

class Printer {
public:
    Printer &operator<<(const char *s);
    Printer &operator<<(int v);
};

Printer &Printer::operator<<(const char *s)
{
    std::fputs(s, stdout);
    return *this;
}

Printer &Printer::operator<<(int v)
{
    std::printf("%d", v);
    return *this;
}

Printer &operator<<(Printer &out, const Point &p)
{
    return out << "(" << p.x() << ", " << p.y() << ")";
}

namespace detail {

int count_chars(const char *s, char c)
{
    int n = 0;
    for (; *s; ++s)
        if (*s == c)
            ++n;
    return n;
}

} // namespace detail
} // namespace ns

namespace {

int helper(int v)
{
    ns::Box<int> tmp(v);
    return tmp.get() * 3;
}

} // namespace

unsigned long long operator"" _km(unsigned long long v)
{
    return v * 1000;
}

int main()
{
    ns::Printer out;

    ns::Box<int> bi(20);
    bi.set(bi.get() + 1);
    ns::Box<double> bd(1.5);
    int ti = ns::twice(bi.get());
    double td = ns::twice(bd.get());

    ns::Pair<int, double> pr(2, 0.5);
    double ps = pr.sum();

    ns::Point p(1, 2);
    ns::Point q(3, 4);
    ns::Point r = p + q;
    bool same = (r == p);

    auto square = [](int v) { return v * v; };
    int sq = square(ti);

    out << "r = " << r << "\n";
    std::printf("ti=%d td=%.1f ps=%.1f n2=%d same=%d sq=%d colons=%d helper=%d km=%llu\n",
                ti, td, ps, r.norm2(), same ? 1 : 0, sq,
                ns::detail::count_chars("a::b::c", ':'), helper(7), 3_km);
    return 0;
}
