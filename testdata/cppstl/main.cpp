// EXPECTED OUTPUT: see tests/it/symbols.rs (CPPSTL_OUT).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "shapes.h"

namespace {

template <typename K, typename V>
V lookup_or(const std::map<K, V>& m, const K& k, V dflt) {
    auto it = m.find(k);
    return it == m.end() ? dflt : it->second;
}

}  // namespace

int main() {
    auto shapes = geo::make_shapes(6);
    std::vector<double> areas;
    std::map<std::string, int> counts;
    for (const auto& s : shapes) {
        areas.push_back(s->area());
        counts[s->name()]++;
    }
    std::sort(areas.begin(), areas.end(), [](double a, double b) { return a > b; });
    int big = static_cast<int>(std::count_if(areas.begin(), areas.end(),
                                             [](double a) { return a > 20; }));
    std::printf("total=%.0f big=%d circles=%d rects=%d\n", geo::total(areas), big,
                lookup_or(counts, std::string("circle"), 0),
                lookup_or(counts, std::string("rect 1"), 0));
    std::printf("a=%d b=%d\n", a_value(3), b_value(3));
    return 0;
}
