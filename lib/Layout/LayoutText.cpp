//===- LayoutText.cpp - Printing and parsing distributed layouts ----------===//
//
// Part of tilec. Grammar (whitespace is ignored between tokens):
//
//   layout  ::= factor ('*' factor)*
//   factor  ::= prim '(' [int (',' int)*] ')' | 'replicate' '(' int ')'
//             | 'modes' '(' 'dims' '=' '[' dim-list ']' ','
//                           'spatial' '=' '[' ids ']' ','
//                           'local' '=' '[' ids ']' ')'
//   prim    ::= 'local' | 'spatial' | 'column_local' | 'column_spatial'
//   dim-list::= [ '[' [int (',' int)*] ']' (',' '[' ... ']')* ]
//   ids     ::= [ id (',' id)* ]      id ::= int | 'r' int  (replication)
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/DistributedLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tile::layout {

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {
/// One factor of the product form: a primitive over some dimensions.
struct Factor {
  bool isSpatial = false;
  bool isReplicate = false;
  bool columnMajor = false;
  SmallVector<std::pair<int, int64_t>, 4> dimSizes; // (dim, size) in order
};
} // namespace

/// Writes the layout as a product of primitives if one exists. The modes
/// must be emitted in an order compatible with three chains at once: the
/// thread order, the slot order and, per dimension, the significance order.
/// Any mode that is first in all chains it belongs to can go next (a linear
/// extension of a partial order can be built greedily); none exists iff the
/// layout is not a product of primitives.
static bool factorize(const DistributedLayout &l,
                      SmallVectorImpl<Factor> &factors) {
  ArrayRef<Mode> modes = l.modes();
  SmallVector<size_t, 4> dimHead(l.rank(), 0);
  SmallVector<SmallVector<unsigned, 4>, 4> dimModes(l.rank());
  for (auto [id, m] : enumerate(modes)) {
    if (!m.isReplicated())
      dimModes[m.dim].push_back(id);
  }
  size_t sp = 0, lo = 0;
  ArrayRef<unsigned> spatial = l.spatialModes(), local = l.localModes();
  auto available = [&](unsigned id) {
    const Mode &m = modes[id];
    return m.isReplicated() || dimModes[m.dim][dimHead[m.dim]] == id;
  };
  bool lastSpatial = false;
  while (sp < spatial.size() || lo < local.size()) {
    bool canS = sp < spatial.size() && available(spatial[sp]);
    bool canL = lo < local.size() && available(local[lo]);
    if (!canS && !canL)
      return false;
    bool takeS = canS && (!canL || lastSpatial);
    unsigned id = takeS ? spatial[sp++] : local[lo++];
    lastSpatial = takeS;
    const Mode &m = modes[id];
    if (!m.isReplicated())
      ++dimHead[m.dim];
    // Append to the current factor when it stays a row- or column-major
    // primitive of the same kind.
    if (!factors.empty() && !m.isReplicated()) {
      Factor &f = factors.back();
      bool fits =
          !f.isReplicate && f.isSpatial == takeS &&
          none_of(f.dimSizes, [&](auto &p) { return p.first == m.dim; });
      if (fits) {
        int last = f.dimSizes.back().first;
        bool col = m.dim < last;
        if (f.dimSizes.size() == 1 || f.columnMajor == col) {
          f.columnMajor = col;
          f.dimSizes.push_back({m.dim, m.size});
          continue;
        }
      }
    }
    Factor f;
    f.isSpatial = takeS;
    f.isReplicate = m.isReplicated();
    f.dimSizes.push_back({m.dim, m.size});
    factors.push_back(f);
  }
  return true;
}

static void printGeneral(const DistributedLayout &l, raw_ostream &os) {
  os << "modes(dims=[";
  ArrayRef<Mode> modes = l.modes();
  for (unsigned d = 0; d < l.rank(); ++d) {
    if (d)
      os << ", ";
    os << '[';
    bool first = true;
    for (const Mode &m : modes) {
      if (m.dim == static_cast<int>(d)) {
        os << (first ? "" : ",") << m.size;
        first = false;
      }
    }
    os << ']';
  }
  auto printIds = [&](ArrayRef<unsigned> ids) {
    os << '[';
    interleave(
        ids, os,
        [&](unsigned id) {
          if (modes[id].isReplicated()) {
            os << 'r' << modes[id].size;
          } else {
            os << id;
          }
        },
        ",");
    os << ']';
  };
  os << "], spatial=";
  printIds(l.spatialModes());
  os << ", local=";
  printIds(l.localModes());
  os << ')';
}

void DistributedLayout::print(raw_ostream &os) const {
  SmallVector<Factor, 8> factors;
  if (!factorize(*this, factors)) {
    printGeneral(*this, os);
    return;
  }
  bool sep = false;
  bool anyRanked = false;
  for (const Factor &f : factors) {
    os << (sep ? " * " : "");
    sep = true;
    if (f.isReplicate) {
      os << "replicate(" << f.dimSizes[0].second << ')';
      continue;
    }
    anyRanked = true;
    os << (f.columnMajor ? "column_" : "")
       << (f.isSpatial ? "spatial" : "local") << '(';
    SmallVector<int64_t, 4> sizes(rank(), 1);
    for (auto [d, n] : f.dimSizes)
      sizes[d] = n;
    interleave(sizes, os, ",");
    os << ')';
  }
  // A layout without ranked factors still needs to state its rank.
  if (!anyRanked) {
    os << (sep ? " * " : "") << "local(";
    interleave(SmallVector<int64_t, 4>(rank(), 1), os, ",");
    os << ')';
  }
}

std::string DistributedLayout::str() const {
  std::string s;
  raw_string_ostream os(s);
  print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
class LayoutParser {
public:
  explicit LayoutParser(StringRef input) : text(input) {}

  Expected<DistributedLayout> parseLayout() {
    DistributedLayout result;
    bool first = true;
    do {
      auto f = parseFactor();
      if (!f)
        return f.takeError();
      result = first ? *f : result * *f;
      first = false;
      if (result.numThreads() > kMaxSize || result.localSize() > kMaxSize)
        return error("a layout of at most 2^30 threads and slots");
    } while (consumeIf('*'));
    skipSpace();
    if (pos != text.size())
      return error("'*' or end of text");
    return result;
  }

private:
  static constexpr int64_t kMaxSize = int64_t(1) << 30;

  static bool boundedProduct(ArrayRef<int64_t> sizes) {
    int64_t p = 1;
    for (int64_t n : sizes) {
      p *= n;
      if (p > kMaxSize)
        return false;
    }
    return true;
  }

  Error error(const Twine &expected) {
    skipSpace();
    std::string found = pos < text.size()
                            ? "'" + text.substr(pos, 12).str() + "'"
                            : std::string("end of text");
    return createStringError("layout text at position " + std::to_string(pos) +
                             ": expected " + expected.str() + ", found " +
                             found);
  }

  void skipSpace() {
    while (pos < text.size() && isSpace(text[pos]))
      ++pos;
  }

  bool consumeIf(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  Error expect(char c) {
    if (consumeIf(c))
      return Error::success();
    return error(Twine("'") + Twine(c) + "'");
  }

  StringRef identifier() {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() && (isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    return text.slice(start, pos);
  }

  Expected<int64_t> integer(int64_t min) {
    skipSpace();
    size_t start = pos;
    int64_t v = 0;
    while (pos < text.size() && isDigit(text[pos])) {
      v = v * 10 + (text[pos] - '0');
      ++pos;
      if (v > kMaxSize) {
        pos = start;
        return error("an integer of at most 2^30");
      }
    }
    if (pos == start)
      return error("an integer");
    if (v < min) {
      pos = start;
      return error("an integer >= " + Twine(min));
    }
    return v;
  }

  /// '(' [int (',' int)*] ')'
  Expected<SmallVector<int64_t, 4>> intList(char open, char close) {
    SmallVector<int64_t, 4> out;
    if (Error e = expect(open))
      return e;
    if (consumeIf(close))
      return out;
    do {
      auto v = integer(1);
      if (!v)
        return v.takeError();
      out.push_back(*v);
    } while (consumeIf(','));
    if (Error e = expect(close))
      return e;
    return out;
  }

  Error keyword(StringRef word) {
    size_t start = pos;
    if (identifier() == word)
      return Error::success();
    pos = start;
    return error("'" + word + "'");
  }

  /// '[' [id (',' id)*] ']' with id ::= int | 'r' int.
  Expected<SmallVector<int64_t, 8>> idList(bool allowReplication) {
    SmallVector<int64_t, 8> out;
    if (Error e = expect('['))
      return e;
    if (consumeIf(']'))
      return out;
    do {
      skipSpace();
      if (allowReplication && pos < text.size() && text[pos] == 'r') {
        ++pos;
        auto v = integer(1);
        if (!v)
          return v.takeError();
        out.push_back(-*v);
        continue;
      }
      auto v = integer(0);
      if (!v)
        return v.takeError();
      out.push_back(*v);
    } while (consumeIf(','));
    if (Error e = expect(']'))
      return e;
    return out;
  }

  Expected<DistributedLayout> parseModes() {
    size_t start = pos;
    if (Error e = expect('('))
      return e;
    if (Error e = keyword("dims"))
      return e;
    if (Error e = expect('='))
      return e;
    if (Error e = expect('['))
      return e;
    SmallVector<SmallVector<int64_t, 4>, 4> dims;
    skipSpace();
    if (!consumeIf(']')) {
      do {
        auto d = intList('[', ']');
        if (!d)
          return d.takeError();
        dims.push_back(*d);
      } while (consumeIf(','));
      if (Error e = expect(']'))
        return e;
    }
    SmallVector<int64_t, 8> lists[2];
    for (int i = 0; i < 2; ++i) {
      if (Error e = expect(','))
        return e;
      if (Error e = keyword(i == 0 ? "spatial" : "local"))
        return e;
      if (Error e = expect('='))
        return e;
      auto ids = idList(/*allowReplication=*/i == 0);
      if (!ids)
        return ids.takeError();
      lists[i] = *ids;
    }
    if (Error e = expect(')'))
      return e;
    SmallVector<int64_t, 16> all;
    for (auto &d : dims)
      all.append(d.begin(), d.end());
    for (int64_t id : lists[0]) {
      if (id < 0)
        all.push_back(-id);
    }
    if (!boundedProduct(all)) {
      pos = start;
      return error("modes(...) of at most 2^30 threads times slots");
    }
    auto l = DistributedLayout::fromModes(dims, lists[0], lists[1]);
    if (!l) {
      return createStringError(
          "layout text at position " + std::to_string(start) +
          ": invalid modes(...): " + toString(l.takeError()));
    }
    return l;
  }

  Expected<DistributedLayout> parseFactor() {
    skipSpace();
    size_t start = pos;
    StringRef name = identifier();
    if (name == "modes")
      return parseModes();
    if (name == "replicate") {
      if (Error e = expect('('))
        return e;
      auto k = integer(1);
      if (!k)
        return k.takeError();
      if (Error e = expect(')'))
        return e;
      return DistributedLayout::replicate(*k);
    }
    bool known = name == "local" || name == "spatial" ||
                 name == "column_local" || name == "column_spatial";
    if (!known) {
      pos = start;
      return error("a layout primitive (local, spatial, column_local, "
                   "column_spatial, replicate, modes)");
    }
    auto sizes = intList('(', ')');
    if (!sizes)
      return sizes.takeError();
    if (!boundedProduct(*sizes)) {
      pos = start;
      return error("a primitive of at most 2^30 elements");
    }
    if (name == "local")
      return DistributedLayout::local(*sizes);
    if (name == "spatial")
      return DistributedLayout::spatial(*sizes);
    if (name == "column_local")
      return DistributedLayout::columnLocal(*sizes);
    return DistributedLayout::columnSpatial(*sizes);
  }

  StringRef text;
  size_t pos = 0;
};
} // namespace

Expected<DistributedLayout> DistributedLayout::parse(StringRef text) {
  return LayoutParser(text).parseLayout();
}

} // namespace tile::layout
