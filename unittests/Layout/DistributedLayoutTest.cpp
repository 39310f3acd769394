//===- DistributedLayoutTest.cpp - The algebra against brute force --------===//

#include "LayoutTestUtils.h"

#include "tile/Layout/DistributedLayout.h"

#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <map>
#include <random>
#include <set>

using namespace tile::layout;
using namespace tile::layout::test;

namespace {

using DL = DistributedLayout;

const std::vector<Sample> &smallSet() {
  static const std::vector<Sample> set =
      products(primitives({1, 2, 3}, {2, 3}), 3, 72);
  return set;
}

const std::vector<Sample> &tinySet() {
  static const std::vector<Sample> set =
      products(primitives({1, 2, 3}, {2}), 2, 24);
  return set;
}

TEST(DistributedLayout, ProductMatchesTableForAllSmallProducts) {
  const auto &set = smallSet();
  ASSERT_GT(set.size(), 15000u);
  for (const Sample &s : set) {
    Table t = tableOf(s.layout);
    ASSERT_EQ(t, s.table) << s.text << " built as " << s.layout.str();
    EXPECT_EQ(s.layout.numThreads(), s.table.threads);
    EXPECT_EQ(s.layout.localSize(), s.table.slots);
  }
}

TEST(DistributedLayout, EqualityIsFunctionalEquality) {
  // Canonical forms are equal exactly when the tables are equal.
  std::map<Table, DL> seen;
  for (const Sample &s : smallSet()) {
    auto [it, inserted] = seen.insert({s.table, s.layout});
    if (!inserted) {
      ASSERT_EQ(it->second, s.layout) << s.text;
      ASSERT_EQ(hash_value(it->second), hash_value(s.layout));
    }
  }
  // Distinct tables, distinct layouts: count structural classes.
  std::set<std::string> texts;
  for (auto &[table, layout] : seen)
    texts.insert(layout.str());
  EXPECT_EQ(texts.size(), seen.size());
}

TEST(DistributedLayout, HoldersInvertTheTable) {
  for (const Sample &s : smallSet()) {
    std::map<Coord, std::vector<ThreadSlot>> ref;
    for (int64_t t = 0; t < s.table.threads; ++t) {
      for (int64_t l = 0; l < s.table.slots; ++l)
        ref[s.table(t, l)].push_back({t, l});
    }
    // Every coordinate of the tile is held (layouts are onto).
    ASSERT_EQ(static_cast<int64_t>(ref.size()), product(s.table.shape))
        << s.text;
    for (auto &[c, hs] : ref) {
      auto got = s.layout.holders(c);
      ASSERT_EQ(std::vector<ThreadSlot>(got.begin(), got.end()), hs) << s.text;
    }
    EXPECT_EQ(s.layout.replication() * product(s.table.shape),
              s.table.threads * s.table.slots);
    // The holders of an element are one per replica index, and the primary
    // replicas (index 0) hold every element exactly once.
    for (auto &[c, hs] : ref) {
      std::set<int64_t> indices;
      for (ThreadSlot h : hs)
        indices.insert(s.layout.replicaIndex(h.thread));
      ASSERT_EQ(static_cast<int64_t>(indices.size()), s.layout.replication());
      ASSERT_EQ(*indices.rbegin(), s.layout.replication() - 1) << s.text;
    }
  }
  DL l = DL::spatial({2, 2});
  EXPECT_TRUE(l.holders({2, 0}).empty());
  EXPECT_TRUE(l.holders({0}).empty());
  EXPECT_TRUE(l.holders({-1, 0}).empty());
}

TEST(DistributedLayout, ProductIsAssociative) {
  const auto &set = tinySet();
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> pick(0, set.size() - 1);
  for (int i = 0; i < 3000; ++i) {
    const Sample &a = set[pick(rng)], &b = set[pick(rng)], &c = set[pick(rng)];
    DL left = (a.layout * b.layout) * c.layout;
    DL right = a.layout * (b.layout * c.layout);
    ASSERT_EQ(left, right) << a.text << " | " << b.text << " | " << c.text;
    ASSERT_EQ(tableOf(left), refProduct(refProduct(a.table, b.table), c.table));
  }
}

/// Brute force: the table A with C = A * B, if one exists.
std::optional<Table> refDivideRight(const Table &c, const Table &bIn) {
  if (bIn.shape.size() > c.shape.size())
    return std::nullopt;
  Table b = padRank(bIn, c.shape.size());
  if (c.threads % b.threads || c.slots % b.slots)
    return std::nullopt;
  Table a;
  for (size_t d = 0; d < c.shape.size(); ++d) {
    if (c.shape[d] % b.shape[d])
      return std::nullopt;
    a.shape.push_back(c.shape[d] / b.shape[d]);
  }
  a.threads = c.threads / b.threads;
  a.slots = c.slots / b.slots;
  for (int64_t ta = 0; ta < a.threads; ++ta) {
    for (int64_t la = 0; la < a.slots; ++la) {
      std::optional<Coord> value;
      for (int64_t tb = 0; tb < b.threads; ++tb) {
        for (int64_t lb = 0; lb < b.slots; ++lb) {
          const Coord &cc = c(ta * b.threads + tb, la * b.slots + lb);
          const Coord &cb = b(tb, lb);
          Coord v(cc.size());
          for (size_t d = 0; d < cc.size(); ++d) {
            int64_t diff = cc[d] - cb[d];
            if (diff < 0 || diff % b.shape[d])
              return std::nullopt;
            v[d] = diff / b.shape[d];
          }
          if (value && *value != v)
            return std::nullopt;
          value = v;
        }
      }
      a.at.push_back(*value);
    }
  }
  return a;
}

TEST(DistributedLayout, DivideRightMatchesBruteForce) {
  const auto &set = tinySet();
  std::mt19937 rng(11);
  std::uniform_int_distribution<size_t> pick(0, set.size() - 1);
  int successes = 0, failures = 0;
  for (int i = 0; i < 20000; ++i) {
    const Sample &c = set[pick(rng)], &b = set[pick(rng)];
    auto got = c.layout.divideRight(b.layout);
    auto ref = refDivideRight(c.table, b.table);
    ASSERT_EQ(got.has_value(), ref.has_value())
        << c.layout.str() << " / " << b.layout.str();
    if (got) {
      ++successes;
      ASSERT_EQ(tableOf(*got), *ref);
      ASSERT_EQ(*got * b.layout, c.layout);
    } else {
      ++failures;
    }
  }
  // Both outcomes must actually be exercised.
  EXPECT_GT(successes, 100);
  EXPECT_GT(failures, 100);
}

TEST(DistributedLayout, DivideUndoesProduct) {
  const auto &set = tinySet();
  for (size_t i = 0; i < set.size(); i += 3) {
    for (size_t j = 0; j < set.size(); j += 5) {
      const DL &a = set[i].layout, &b = set[j].layout;
      DL c = a * b;
      auto right = c.divideRight(b);
      ASSERT_TRUE(right) << c.str() << " / " << b.str();
      EXPECT_EQ(*right, padTo(a, c.rank()));
      auto left = c.divideLeft(a);
      ASSERT_TRUE(left) << a.str() << " \\ " << c.str();
      EXPECT_EQ(*left, padTo(b, c.rank()));
    }
  }
}

TEST(DistributedLayout, DivideLeftMatchesBruteForce) {
  // A with C = B * A: brute force by trying every candidate of the set.
  const auto &set = tinySet();
  std::mt19937 rng(5);
  std::uniform_int_distribution<size_t> pick(0, set.size() - 1);
  std::map<Table, DL> byTable;
  for (const Sample &s : set)
    byTable.insert({padRank(s.table, 2), s.layout});
  for (int i = 0; i < 300; ++i) {
    const Sample &c = set[pick(rng)], &b = set[pick(rng)];
    auto got = c.layout.divideLeft(b.layout);
    if (got) {
      ASSERT_EQ(b.layout * *got, c.layout);
      continue;
    }
    // No candidate of the set may work either.
    for (auto &[t, a] : byTable) {
      ASSERT_NE(refProduct(b.table, t), padRank(c.table, 2))
          << b.layout.str() << " \\ " << c.layout.str() << " = " << a.str();
    }
  }
}

TEST(DistributedLayout, ReduceMatchesProjection) {
  const auto &set = smallSet();
  for (size_t i = 0; i < set.size(); i += 2) {
    const Sample &s = set[i];
    for (unsigned dim = 0; dim < s.layout.rank(); ++dim) {
      for (bool keep : {false, true}) {
        auto r = s.layout.reduce(dim, keep);
        ASSERT_TRUE(static_cast<bool>(r));
        EXPECT_EQ(r->numThreads(), s.layout.numThreads());
        Table rt = tableOf(*r);
        for (int64_t t = 0; t < s.table.threads; ++t) {
          std::set<Coord> want, got;
          for (int64_t l = 0; l < s.table.slots; ++l) {
            Coord c = s.table(t, l);
            if (keep) {
              c[dim] = 0;
            } else {
              c.erase(c.begin() + dim);
            }
            want.insert(c);
          }
          for (int64_t l = 0; l < rt.slots; ++l)
            got.insert(rt(t, l));
          // Each thread holds each reduced element once.
          ASSERT_EQ(static_cast<int64_t>(got.size()), rt.slots) << s.text;
          ASSERT_EQ(got, want) << s.text << " reduce " << dim;
        }
      }
    }
  }
  auto bad = DL::spatial({4, 8}).reduce(2, true);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(toString(bad.takeError()).find("dimension 2"), std::string::npos);
}

TEST(DistributedLayout, PermuteReshapeExpandSqueezeMatchTables) {
  std::set<Table> known;
  for (const Sample &s : smallSet())
    known.insert(padRank(s.table, 2));
  int reshapeFailures = 0;
  size_t sampleIndex = 0;
  for (const Sample &s : smallSet()) {
    if (s.layout.rank() != 2)
      continue;
    auto p = s.layout.permute({1, 0});
    ASSERT_TRUE(static_cast<bool>(p));
    Table pt = tableOf(*p);
    for (size_t i = 0; i < pt.at.size(); ++i)
      ASSERT_EQ(pt.at[i], (Coord{s.table.at[i][1], s.table.at[i][0]}));

    auto e = s.layout.expandDims(1);
    ASSERT_TRUE(static_cast<bool>(e));
    Table et = tableOf(*e);
    for (size_t i = 0; i < et.at.size(); ++i)
      ASSERT_EQ(et.at[i], (Coord{s.table.at[i][0], 0, s.table.at[i][1]}));
    auto sq = e->squeeze(1);
    ASSERT_TRUE(static_cast<bool>(sq));
    EXPECT_EQ(*sq, s.layout);

    // Reshape to every factorization of the element count into 1..3 dims
    // (on an eighth of the samples, to keep the test fast).
    if (sampleIndex++ % 8 != 0)
      continue;
    int64_t n = product(s.table.shape);
    std::vector<std::vector<int64_t>> shapes{{n}};
    for (int64_t a = 1; a <= n; ++a) {
      if (n % a == 0) {
        shapes.push_back({a, n / a});
        for (int64_t b = 1; b <= n / a; ++b) {
          if ((n / a) % b == 0)
            shapes.push_back({a, b, n / a / b});
        }
      }
    }
    for (auto &shape : shapes) {
      auto r = s.layout.reshape(shape);
      // Reference: flatten row-major, unflatten into the new shape. The
      // result exists iff that table is a layout, i.e. iff reshaping the
      // reshaped layout back gives the original.
      if (!r) {
        llvm::consumeError(r.takeError());
        ++reshapeFailures;
        // The reshaped table must then not be any layout we know.
        if (shape.size() == 2) {
          Table ref = s.table;
          ref.shape = shape;
          for (Coord &c : ref.at)
            c = unravel(shape, ravel(s.table.shape, c));
          ASSERT_EQ(known.count(ref), 0u) << s.text << " reshape failed";
        }
        continue;
      }
      Table rt = tableOf(*r);
      for (size_t i = 0; i < rt.at.size(); ++i) {
        ASSERT_EQ(rt.at[i], unravel(shape, ravel(s.table.shape, s.table.at[i])))
            << s.text;
      }
      auto back = r->reshape(s.table.shape);
      ASSERT_TRUE(static_cast<bool>(back));
      ASSERT_EQ(*back, s.layout);
    }
  }
  EXPECT_GT(reshapeFailures, 0);
  // Reshapes that always work: splitting/merging along whole modes.
  auto r = DL::spatial({4, 8}).reshape({32});
  ASSERT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(*r, DL::spatial({32}));
  auto bad = (DL::local({3}) * DL::spatial({2})).reshape({2, 3});
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(toString(bad.takeError()).find("split"), std::string::npos);
  auto wrongCount = DL::spatial({4}).reshape({3});
  ASSERT_FALSE(static_cast<bool>(wrongCount));
  consumeError(wrongCount.takeError());
  auto badSqueeze = DL::spatial({4, 1}).squeeze(0);
  ASSERT_FALSE(static_cast<bool>(badSqueeze));
  consumeError(badSqueeze.takeError());
  auto badPerm = DL::spatial({4, 1}).permute({0, 0});
  ASSERT_FALSE(static_cast<bool>(badPerm));
  consumeError(badPerm.takeError());
}

/// A random layout in the general mode form (most are not products of
/// primitives) and its table computed straight from the definition.
struct RandomModes {
  std::vector<llvm::SmallVector<int64_t, 4>> dims;
  std::vector<int64_t> spatial, local; // mode ids; -k = replication of k
};

RandomModes randomModes(std::mt19937 &rng) {
  RandomModes m;
  unsigned rank = 1 + rng() % 3;
  std::vector<int64_t> ids;
  for (unsigned d = 0; d < rank; ++d) {
    m.dims.emplace_back();
    for (unsigned k = rng() % 3; k > 0; --k) {
      m.dims.back().push_back(2 + rng() % 2);
      ids.push_back(ids.size());
    }
  }
  for (int64_t id : ids)
    (rng() % 2 ? m.spatial : m.local).push_back(id);
  std::shuffle(m.spatial.begin(), m.spatial.end(), rng);
  std::shuffle(m.local.begin(), m.local.end(), rng);
  if (rng() % 3 == 0) {
    m.spatial.insert(m.spatial.begin() + rng() % (m.spatial.size() + 1),
                     -int64_t(2 + rng() % 2));
  }
  return m;
}

Table refModesTable(const RandomModes &m) {
  std::vector<int64_t> sizes;
  Table t;
  for (auto &d : m.dims) {
    t.shape.push_back(1);
    for (int64_t n : d) {
      sizes.push_back(n);
      t.shape.back() *= n;
    }
  }
  auto sizeOf = [&](int64_t id) { return id < 0 ? -id : sizes[id]; };
  for (int64_t id : m.spatial)
    t.threads *= sizeOf(id);
  for (int64_t id : m.local)
    t.slots *= sizeOf(id);
  for (int64_t th = 0; th < t.threads; ++th) {
    for (int64_t l = 0; l < t.slots; ++l) {
      std::vector<int64_t> digit(sizes.size(), 0);
      int64_t rest = th;
      for (size_t i = m.spatial.size(); i-- > 0;) {
        int64_t id = m.spatial[i];
        if (id >= 0)
          digit[id] = rest % sizeOf(id);
        rest /= sizeOf(id);
      }
      rest = l;
      for (size_t i = m.local.size(); i-- > 0;) {
        digit[m.local[i]] = rest % sizeOf(m.local[i]);
        rest /= sizeOf(m.local[i]);
      }
      Coord c;
      size_t id = 0;
      for (auto &d : m.dims) {
        int64_t v = 0;
        for (int64_t n : d)
          v = v * n + digit[id++];
        c.push_back(v);
      }
      t.at.push_back(c);
    }
  }
  return t;
}

TEST(DistributedLayout, GeneralFormsAgainstTheirDefinition) {
  std::mt19937 rng(31);
  std::map<Table, DL> seen;
  auto divisors = products(primitives({1, 2, 3}, {2}), 1, 12);
  int divided = 0, general = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    RandomModes m = randomModes(rng);
    auto l = DL::fromModes(m.dims, m.spatial, m.local);
    ASSERT_TRUE(static_cast<bool>(l)) << toString(l.takeError());
    Table ref = refModesTable(m);
    ASSERT_EQ(tableOf(*l), ref);
    // Text round trip (product form or general form).
    auto parsed = DL::parse(l->str());
    ASSERT_TRUE(static_cast<bool>(parsed)) << l->str();
    general += llvm::StringRef(l->str()).starts_with("modes(");
    ASSERT_EQ(*parsed, *l) << l->str();
    // Canonical forms are unique per table.
    auto [it, inserted] = seen.insert({ref, *l});
    if (!inserted) {
      ASSERT_EQ(it->second, *l);
    }
    // Division by primitives against brute force.
    const Sample &b = divisors[rng() % divisors.size()];
    auto q = l->divideRight(b.layout);
    auto qRef = refDivideRight(ref, b.table);
    ASSERT_EQ(q.has_value(), qRef.has_value())
        << l->str() << " / " << b.layout.str();
    if (q) {
      ++divided;
      ASSERT_EQ(tableOf(*q), *qRef);
    }
  }
  EXPECT_GT(divided, 300);
  EXPECT_GT(general, 300); // many are not products of primitives
  // Distinct tables have distinct printed forms.
  std::set<std::string> texts;
  for (auto &[table, layout] : seen)
    texts.insert(layout.str());
  EXPECT_EQ(texts.size(), seen.size());
}

TEST(DistributedLayout, OrderedPrimitivesAndGeneralForm) {
  // local with an explicit order equals the row/column variants.
  auto row = DL::local({2, 3, 4}, {0, 1, 2});
  ASSERT_TRUE(static_cast<bool>(row));
  EXPECT_EQ(*row, DL::local({2, 3, 4}));
  auto col = DL::spatial({2, 3, 4}, {2, 1, 0});
  ASSERT_TRUE(static_cast<bool>(col));
  EXPECT_EQ(*col, DL::columnSpatial({2, 3, 4}));
  // A 3-d order that is neither: check against the definition.
  auto odd = DL::spatial({2, 3, 4}, {1, 0, 2});
  ASSERT_TRUE(static_cast<bool>(odd));
  for (int64_t t = 0; t < 24; ++t) {
    auto c = odd->apply(t, 0);
    EXPECT_EQ(c[1], t / 8);
    EXPECT_EQ(c[0], t / 4 % 2);
    EXPECT_EQ(c[2], t % 4);
  }
  auto badOrder = DL::local({2, 3}, {0, 0});
  ASSERT_FALSE(static_cast<bool>(badOrder));
  consumeError(badOrder.takeError());
  auto badExtent = DL::local({2, 0}, {0, 1});
  ASSERT_FALSE(static_cast<bool>(badExtent));
  consumeError(badExtent.takeError());

  // fromModes: dims [[4,8]], thread digits reversed against the coordinate.
  auto g = DL::fromModes({{4, 8}}, {1, 0}, {});
  ASSERT_TRUE(static_cast<bool>(g));
  for (int64_t t = 0; t < 32; ++t)
    EXPECT_EQ(g->apply(t, 0)[0], (t % 4) * 8 + t / 4);
  auto twice = DL::fromModes({{4, 8}}, {1, 0}, {0});
  ASSERT_FALSE(static_cast<bool>(twice));
  EXPECT_NE(toString(twice.takeError()).find("exactly once"),
            std::string::npos);
  auto missing = DL::fromModes({{4, 8}}, {1}, {});
  ASSERT_FALSE(static_cast<bool>(missing));
  consumeError(missing.takeError());
  auto outOfRange = DL::fromModes({{4}}, {3}, {});
  ASSERT_FALSE(static_cast<bool>(outOfRange));
  consumeError(outOfRange.takeError());
}

} // namespace
