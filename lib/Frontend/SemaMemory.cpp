//===- SemaMemory.cpp - Builtins of memory, tiles and layouts -------------===//
//
// Part of tilec. The type rules of load, store, atomic_add, copy_async,
// wait, barrier, zeros, full, shared, arange and layout (docs/Language.md,
// "Builtins"); SemaBuiltins.cpp dispatches to them.
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "tile/Frontend/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <functional>
#include <set>

using namespace tile::frontend;
using namespace tile::frontend::sema;

/// layout(x, L): L is a product of factors local(n...), spatial(n...),
/// column_local(n...), column_spatial(n...) (one compile-time extent per
/// dimension of x) and replicate(k). The factors must tile x exactly, and
/// the layout's thread count (the spatial extents times the replication)
/// must be warps x 32 or warps x 64; which of the two the target needs is
/// checked once the target is known (tile-infer-layouts).
bool Checker::checkLayoutCall(CallExpr *e) {
  if (!noKwargs(e) || !checkArgCount(e, 2, 2, "layout(x, L)"))
    return false;
  if (!check(e->args[0].get()))
    return false;
  Expr *x = e->args[0].get();
  if (!x->ty.isTile()) {
    error(x->loc, "layout() expects a tile, got " + x->ty.str());
    return false;
  }
  const Shape &shape = x->ty.shape;
  // Running products, capped: the shape product per dimension stops growing
  // past the tile's extent, the thread count past kMaxThreads.
  constexpr int64_t kMaxThreads = 32 * 64;
  Shape covered(shape.size(), 1);
  int64_t threads = 1;
  auto grow = [](int64_t &acc, int64_t by, int64_t cap) {
    acc = acc > cap / by ? cap + 1 : acc * by;
  };
  std::function<bool(Expr *)> checkL = [&](Expr *l) -> bool {
    if (auto *bin = dyn_cast<BinaryExpr>(l)) {
      if (bin->op != BinaryOp::Mul) {
        error(bin->loc, "layouts combine with '*' only");
        return false;
      }
      return checkL(bin->lhs.get()) && checkL(bin->rhs.get());
    }
    auto *c = dyn_cast<CallExpr>(l);
    bool isReplicate = c && c->callee == "replicate";
    bool isSpatial =
        c && (c->callee == "spatial" || c->callee == "column_spatial");
    if (!c || (!isReplicate && !isSpatial && c->callee != "local" &&
               c->callee != "column_local")) {
      error(l->loc, "expected a layout: local(...), spatial(...), "
                    "column_local(...), column_spatial(...) or "
                    "replicate(k) combined with '*'");
      return false;
    }
    if (!noKwargs(c))
      return false;
    size_t want = isReplicate ? 1 : shape.size();
    if (c->args.size() != want) {
      if (isReplicate) {
        error(c->loc, "replicate(k) takes one thread count, got " +
                          llvm::Twine(c->args.size()) + " arguments");
      } else {
        error(c->loc, "layout factor '" + c->callee + "' has " +
                          llvm::Twine(c->args.size()) +
                          (c->args.size() == 1 ? " extent" : " extents") +
                          " but the tile has rank " +
                          llvm::Twine(shape.size()));
      }
      return false;
    }
    for (size_t i = 0; i < c->args.size(); ++i) {
      Expr *a = c->args[i].get();
      if (!check(a))
        return false;
      auto v = requireCtInt(a, isReplicate ? "a replication count"
                                           : "a layout extent");
      if (!v)
        return false;
      if (*v <= 0) {
        error(a->loc, isReplicate ? "the replication count must be positive"
                                  : "layout extents must be positive");
        return false;
      }
      if (isReplicate || isSpatial)
        grow(threads, *v, kMaxThreads);
      if (!isReplicate)
        grow(covered[i], *v, shape[i]);
    }
    c->ty = Ty::of(Ty::Layout);
    return true;
  };
  Expr *l = e->args[1].get();
  if (!checkL(l))
    return false;
  l->ty = Ty::of(Ty::Layout);
  if (covered != shape) {
    // Capped extents print as "more than N".
    auto str = [&](const Shape &s) {
      std::string text = "[";
      for (size_t i = 0; i < s.size(); ++i) {
        text += i ? ", " : "";
        text += s[i] > shape[i] ? "more than " + std::to_string(shape[i])
                                : std::to_string(s[i]);
      }
      return text + "]";
    };
    error(e->loc, "the layout covers a tile of shape " + str(covered) +
                      ", but the tile has shape " + str(shape) +
                      "; the extents of its factors must multiply to the "
                      "tile's shape in every dimension");
    return false;
  }
  int64_t w = out.warps;
  if (threads != w * 32 && threads != w * 64) {
    error(e->loc, "the layout uses " +
                      (threads > kMaxThreads
                           ? "more than " + std::to_string(kMaxThreads)
                           : std::to_string(threads)) +
                      " threads, but 'warps " + std::to_string(w) + "' means " +
                      std::to_string(w * 32) +
                      " threads (warp size 32, NVIDIA) or " +
                      std::to_string(w * 64) +
                      " (warp size 64, AMD); the spatial extents times the "
                      "replication must be one of these");
    return false;
  }
  e->ty = x->ty;
  return true;
}

/// store(SLICE, TILE) and atomic_add(SLICE, TILE): a tile written into (or
/// added to) a slice of a writable tensor; atomic_add only into global
/// tensors of f32, f16, bf16, i32 or u32.
bool Checker::checkStoreLike(CallExpr *e, bool atomicAdd) {
  const char *name = atomicAdd ? "atomic_add()" : "store()";
  if (!noKwargs(e) || !checkArgCount(e, 2, 2,
                                     atomicAdd ? "2: atomic_add(SLICE, TILE)"
                                               : "2: store(SLICE, TILE)"))
    return false;
  Expr *dst = e->args[0].get(), *v = e->args[1].get();
  if (atomicAdd && dst->ty.kind != Ty::GSlice) {
    error(dst->loc, "atomic_add() expects a slice of a global tensor as its "
                    "first argument, got " +
                        dst->ty.str());
    return false;
  }
  if (dst->ty.kind != Ty::GSlice && dst->ty.kind != Ty::SSlice) {
    error(dst->loc, "store() expects a slice of a global tensor or a "
                    "shared buffer as its first argument, got " +
                        dst->ty.str());
    return false;
  }
  if (dst->ty.kind == Ty::GSlice) {
    auto *idx = cast<IndexExpr>(dst);
    auto *base = dyn_cast<NameExpr>(idx->base.get());
    if (base && base->decl && base->decl->kind == Decl::Tensor) {
      for (auto &p : out.params) {
        if (p.decl == base->decl && !p.isMut) {
          error(dst->loc, std::string(atomicAdd ? "cannot add to '"
                                                : "cannot store to '") +
                              base->name + "': it is not declared 'mut'");
          diags.note(base->decl->loc,
                     "declared here; write '" + base->name + ": mut ...'");
          return false;
        }
      }
    }
  }
  if (atomicAdd) {
    ElemType t = dst->ty.elem;
    bool ok = t.kind == ElemType::F32 || t.kind == ElemType::F16 ||
              t.kind == ElemType::BF16 ||
              ((t.kind == ElemType::SInt || t.kind == ElemType::UInt) &&
               t.bits == 32);
    if (!ok) {
      error(dst->loc, "atomic_add() adds into tensors of f32, f16, bf16, i32 "
                      "or u32, not " +
                          t.str());
      return false;
    }
  }
  if (!requireValue(v, name))
    return false;
  if (!convertibleTo(v, dst->ty.elem, v->loc, name))
    return false;
  auto s = broadcast(v->ty.shape, dst->ty.shape, v->loc);
  if (!s)
    return false;
  if (llvm::ArrayRef<int64_t>(*s) != llvm::ArrayRef<int64_t>(dst->ty.shape)) {
    error(v->loc,
          std::string(name) + ": value of shape " + shapeStr(v->ty.shape) +
              " does not fit a slice of shape " + shapeStr(dst->ty.shape));
    return false;
  }
  e->operandElem = dst->ty.elem;
  e->ty = Ty::of(Ty::Void);
  return true;
}

/// load, store, atomic_add, copy_async, wait and barrier.
bool Checker::checkMemoryCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
  case Builtin::Load: {
    if (!checkArgCount(e, 1, 1, "1: load(SLICE [, other = VALUE])"))
      return false;
    Expr *src = args[0].get();
    if (src->ty.kind != Ty::GSlice && src->ty.kind != Ty::SSlice) {
      error(src->loc, "load() expects a slice of a global tensor or a shared "
                      "buffer (e.g. A[m0 : m0 + BM, :]), got " +
                          src->ty.str());
      return false;
    }
    for (auto &k : e->kwargs) {
      if (k.name != "other") {
        error(k.loc, "load() has no keyword argument '" + k.name +
                         "'; expected 'other'");
        return false;
      }
      if (src->ty.kind != Ty::GSlice) {
        error(k.loc, "'other' is only valid when loading from a global "
                     "tensor");
        return false;
      }
      Expr *v = k.value.get();
      if (!v->ty.isScalar() || !v->cv.isSet() || v->cv.kind == ConstVal::Type) {
        error(v->loc, "'other' must be a compile-time constant scalar, like "
                      "0 or -inf");
        return false;
      }
      if (src->ty.elem.isStorageOnly()) {
        error(v->loc, "'other' is not supported for the storage-only type " +
                          src->ty.elem.str() +
                          "; cast the loaded tile and use where(...)");
        return false;
      }
      if (!convertibleTo(v, src->ty.elem, v->loc, "'other'"))
        return false;
      if (v->cv.kind == ConstVal::Float && src->ty.elem.isInteger()) {
        error(v->loc, "'other' must be an integer for " + src->ty.elem.str());
        return false;
      }
    }
    if (src->ty.shape.empty()) {
      error(src->loc, "load() needs at least one sliced dimension; use 'a : "
                      "a + 1' instead of an index");
      return false;
    }
    e->ty = Ty::tile(src->ty.elem, src->ty.shape);
    return true;
  }
  case Builtin::Store:
    return checkStoreLike(e, /*atomicAdd=*/false);
  case Builtin::AtomicAdd:
    return checkStoreLike(e, /*atomicAdd=*/true);
  case Builtin::CopyAsync: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2: copy_async(dst, SLICE)"))
      return false;
    Expr *dst = args[0].get(), *src = args[1].get();
    if (dst->ty.kind != Ty::SSlice) {
      error(dst->loc, "copy_async()'s destination must be a slice of a shared "
                      "buffer, got " +
                          dst->ty.str());
      return false;
    }
    if (src->ty.kind != Ty::GSlice) {
      error(src->loc, "copy_async()'s source must be a slice of a global "
                      "tensor, got " +
                          src->ty.str());
      return false;
    }
    if (llvm::is_contained(cast<IndexExpr>(src)->extents, 1) &&
        llvm::any_of(cast<IndexExpr>(src)->entries, [](const IndexEntry &x) {
          return x.kind == IndexEntry::Index;
        })) {
      error(src->loc, "copy_async()'s source must slice every dimension "
                      "(write 'a : a + 1' instead of an index)");
      return false;
    }
    if (dst->ty.elem != src->ty.elem ||
        llvm::ArrayRef<int64_t>(dst->ty.shape) !=
            llvm::ArrayRef<int64_t>(src->ty.shape)) {
      error(e->loc, "copy_async(): destination " + dst->ty.str() +
                        " and source " + src->ty.str() + " differ");
      return false;
    }
    // The copy fills whole trailing dimensions of the buffer: leading
    // dimensions may be indexed, the others must be taken whole (the op
    // addresses its destination by those leading indices only).
    auto *dstIndex = cast<IndexExpr>(dst);
    const Shape &buffer = dstIndex->base->ty.shape;
    bool slicing = false;
    for (size_t d = 0; d < dstIndex->entries.size() && d < buffer.size(); ++d) {
      const IndexEntry &entry = dstIndex->entries[d];
      bool whole =
          entry.kind != IndexEntry::Index && dstIndex->extents[d] == buffer[d];
      if (entry.kind == IndexEntry::Index && !slicing)
        continue;
      slicing = true;
      if (!whole) {
        error(entry.loc.isValid() ? entry.loc : dst->loc,
              "copy_async() fills whole rows of its shared buffer: after the "
              "indexed leading dimensions, take each dimension whole ("
              "dimension " +
                  llvm::Twine(d) + " of " + dstIndex->base->ty.str() + " has " +
                  llvm::Twine(dstIndex->extents[d]) + " of " +
                  llvm::Twine(buffer[d]) + ")");
        return false;
      }
    }
    e->ty = Ty::of(Ty::Void);
    return true;
  }
  case Builtin::Wait: {
    if (!noKwargs(e) || !checkArgCount(e, 1, 1, "1: wait(n)"))
      return false;
    auto n = requireCtInt(args[0].get(), "wait's argument");
    if (!n)
      return false;
    if (*n < 0 || *n > 64) {
      error(args[0]->loc, "wait(n) needs 0 <= n <= 64");
      return false;
    }
    e->ty = Ty::of(Ty::Void);
    return true;
  }
  case Builtin::Barrier:
    if (!noKwargs(e) || !checkArgCount(e, 0, 0, "0"))
      return false;
    e->ty = Ty::of(Ty::Void);
    return true;
  default:
    break;
  }
  return unhandledBuiltin(e);
}

/// zeros, full, shared and arange: new tiles and buffers.
bool Checker::checkConstructorCall(CallExpr *e) {
  auto &args = e->args;
  Builtin b = e->builtin;
  switch (b) {
  case Builtin::Zeros:
  case Builtin::Full:
  case Builtin::Shared: {
    bool isFull = b == Builtin::Full;
    if (!noKwargs(e) ||
        !checkArgCount(e, isFull ? 3 : 2, isFull ? 3 : 2,
                       isFull ? "3: full(T, [dims], value)"
                              : (b == Builtin::Zeros ? "2: zeros(T, [dims])"
                                                     : "2: shared(T, [dims])")))
      return false;
    auto t =
        requireType(args[0].get(), "the first argument of '" + e->callee + "'");
    if (!t)
      return false;
    auto s = requireShape(args[1].get(), "the shape");
    if (!s)
      return false;
    if (b == Builtin::Shared) {
      e->ty = Ty::of(Ty::Shared);
      e->ty.elem = *t;
      e->ty.shape = *s;
      return true;
    }
    if (t->isStorageOnly() && b == Builtin::Full) {
      error(args[0]->loc, "full() of storage-only type " + t->str() +
                              " is not supported; build it in f32 and cast");
      return false;
    }
    if (isFull) {
      Expr *v = args[2].get();
      if (!requireValue(v, "full()"))
        return false;
      if (!v->ty.isScalar()) {
        error(v->loc, "full()'s value must be a scalar, got " + v->ty.str());
        return false;
      }
      if (!convertibleTo(v, *t, v->loc, "full()"))
        return false;
    }
    e->operandElem = *t;
    e->ty = Ty::tile(*t, *s);
    return true;
  }
  case Builtin::Arange: {
    if (!noKwargs(e) || !checkArgCount(e, 2, 2, "2: arange(a, b)"))
      return false;
    if (!requireIntScalar(args[0].get(), "arange's start") ||
        !requireIntScalar(args[1].get(), "arange's end"))
      return false;
    auto n = sliceExtent(args[0].get(), args[1].get(), e->loc);
    if (!n)
      return false;
    e->ty = Ty::tile(ElemType::sint(32), {*n});
    return true;
  }
  default:
    break;
  }
  return unhandledBuiltin(e);
}
