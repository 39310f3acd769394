//===- KernelInfo.cpp - Kernel signatures and tune spaces -----------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/KernelInfo.h"
#include "tile/Frontend/Diagnostics.h"
#include "tile/Frontend/Parser.h"
#include "tile/Frontend/Sema.h"
#include "llvm/Support/SourceMgr.h"

using namespace tile::frontend;

/// Source text of an expression, from its location to the matching end.
static std::string exprText(const Expr *e) {
  // Re-print a small expression tree; enough for dimensions.
  if (auto *i = llvm::dyn_cast<IntLitExpr>(e))
    return std::to_string(i->value);
  if (auto *n = llvm::dyn_cast<NameExpr>(e))
    return n->name;
  if (auto *b = llvm::dyn_cast<BinaryExpr>(e)) {
    return "(" + exprText(b->lhs.get()) + " " + spelling(b->op) + " " +
           exprText(b->rhs.get()) + ")";
  }
  if (auto *u = llvm::dyn_cast<UnaryExpr>(e))
    return std::string(spelling(u->op)) + exprText(u->operand.get());
  if (auto *c = llvm::dyn_cast<CallExpr>(e)) {
    std::string s = c->callee + "(";
    for (size_t i = 0; i < c->args.size(); ++i)
      s += (i ? ", " : "") + exprText(c->args[i].get());
    return s + ")";
  }
  return "?";
}

bool tile::frontend::listKernels(
    llvm::SourceMgr &sm, std::vector<KernelInfo> &kernels,
    llvm::raw_ostream *diagOS,
    const std::map<std::string, std::string> &defines, TargetFacts target) {
  DiagEngine diags(sm, diagOS);
  auto mod = parseModule(sm, sm.getMainFileID(), diags);
  if (diags.getNumErrors())
    return false;
  for (auto &k : mod->kernels) {
    KernelInfo info;
    info.name = k->name;
    info.line = sm.getLineAndColumn(k->loc).first;
    std::vector<std::pair<std::string, ConstVal>> values;
    if (!evaluateCtParams(*k, defines, diags, values, target)) {
      // Parameters without defaults are reported; list them anyway.
    }
    for (auto &p : k->ctParams) {
      KernelInfo::CtParam cp;
      cp.name = p.name;
      cp.kind = p.kind == CtParamDecl::Int    ? "int"
                : p.kind == CtParamDecl::Bool ? "bool"
                                              : "type";
      for (auto &v : values) {
        if (v.first == p.name) {
          cp.hasDefault = true;
          cp.defaultValue = v.second.str();
        }
      }
      info.ctParams.push_back(cp);
    }
    for (auto &p : k->rtParams) {
      KernelInfo::RtParam rp;
      rp.name = p.name;
      rp.type = p.typeName;
      rp.isTensor = p.isTensor;
      rp.isMut = p.isMut;
      for (auto &d : p.dims) {
        std::string s = exprText(d.get());
        if (s.size() > 2 && s.front() == '(' && s.back() == ')')
          s = s.substr(1, s.size() - 2);
        rp.dims.push_back(s);
      }
      info.rtParams.push_back(rp);
    }
    for (auto &t : k->tune) {
      KernelInfo::TuneDim td;
      td.name = t.name;
      // Tune values are compile-time constants over the defaults.
      for (auto &v : t.values) {
        if (v->cv.isSet()) {
          td.values.push_back(v->cv.str());
        } else {
          td.values.push_back(exprText(v.get()));
        }
      }
      info.tune.push_back(td);
    }
    kernels.push_back(std::move(info));
  }
  return diags.getNumErrors() == 0;
}
