// Exercises the C++ standard library's templates (std::map, std::unordered_map,
// std::vector, std::string, std::sort, std::stable_sort, std::priority_queue),
// compiled at -O2 with the program: the optimised C++ the bench traces with
// BENCH_PROGRAM=cxx. Each round indexes WORDS generated words (default
// 2,000); prints a checksum of the results. Usage: cxx-work ROUNDS [WORDS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

struct Posting {
    std::string word;
    int count;
    bool operator<(const Posting &o) const { return count < o.count; }
};

std::string make_word(unsigned long long &seed) {
    static const char letters[] = "etaoinshrdlucmfw";
    std::string w;
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    int len = 3 + (seed >> 60);
    for (int i = 0; i < len; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        w.push_back(letters[(seed >> 33) % 16]);
    }
    return w;
}

long round_of(int r, int n, unsigned long long &seed) {
    std::map<std::string, int> counts;
    std::unordered_map<std::string, std::vector<int>> where;
    std::vector<std::string> words;
    for (int i = 0; i < n; i++) {
        std::string w = make_word(seed);
        counts[w] += 1;
        where[w].push_back(i + r);
        words.push_back(std::move(w));
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::vector<std::pair<int, std::string>> by_count;
    for (const auto &kv : counts) by_count.emplace_back(kv.second, kv.first);
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    std::priority_queue<Posting> top;
    for (const auto &kv : where) top.push(Posting{kv.first, (int)kv.second.size()});
    long sum = (long)words.size() + (long)by_count.front().first;
    for (int i = 0; i < 10 && !top.empty(); i++) {
        sum += top.top().count * (long)top.top().word.size();
        top.pop();
    }
    return sum;
}

} // namespace

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int words = argc > 2 ? atoi(argv[2]) : 2000;
    unsigned long long seed = 1;
    long sum = 0;
    for (int r = 0; r < rounds; r++) sum += round_of(r, words < 1 ? 1 : words, seed);
    printf("%ld\n", sum);
    return 0;
}
