//===- EmulationRewriter.h - GPU LLVM IR rewritten for a CPU emulator -*- C++
//-*-===//
//
// Part of tilec. What the NVIDIA and AMD emulators share on the compiler
// side (lib/Codegen/NVIDIA/Emulation.cpp, lib/Codegen/AMD/Emulation.cpp):
// the optimized GPU LLVM IR is rewritten so that the host backend can compile
// it and the runtime's emulator (runtime/include/tile/runtime/*EmuAbi.h) can
// run it, one work-item per fiber:
//  - vendor intrinsics become calls through the runtime's table of
//    functions (a module-private pointer set by `__tile_emu_bind`);
//  - every load, store, atomic and memory intrinsic on the checked address
//    spaces is preceded by the table's access check; a refused access goes
//    to a scratch sink so that the process survives to report it;
//  - shared memory (NVIDIA dynamic shared, AMD LDS) becomes the block's
//    buffer from the table;
//  - each kernel gets `__tile_emu_entry_<name>(void **args)`.
// A subclass names the table's fields and rewrites its vendor's intrinsics;
// anything it does not know is an error at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_COMMON_EMULATIONREWRITER_H
#define TILE_CODEGEN_COMMON_EMULATIONREWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tile::emu {

/// The table fields every emulator ABI has; a subclass gives their indices.
struct CommonFields {
  unsigned access;      ///< uint32_t (*)(const void *, uint32_t, uint32_t)
  unsigned unsupported; ///< void (*)(const char *)
  unsigned numFields;   ///< all fields, field 0 being the ABI version
};

class EmulationRewriter {
public:
  EmulationRewriter(llvm::Module &module, CommonFields fields);
  virtual ~EmulationRewriter();

  /// Rewrites the module; fails on anything the emulator cannot run.
  llvm::Error run();

protected:
  /// "llvm.nvvm." / "llvm.amdgcn.": calls to these are handed to
  /// rewriteCall(); other declarations are left to the host backend.
  virtual llvm::StringRef intrinsicPrefix() const = 0;
  /// Replaces \p call (to intrinsic \p name); the base erases it afterwards.
  /// Returns the replacement value (null for a call without uses).
  virtual llvm::Expected<llvm::Value *> rewriteCall(llvm::CallInst *call,
                                                    llvm::StringRef name) = 0;
  /// Rewrites a call of inline assembly \p text that is the target's own
  /// (NVIDIA: wgmma.mma_async): sets \p replacement (null for a call
  /// without uses) and returns true, or returns false when \p text is not
  /// the target's; the base erases the call afterwards.
  virtual llvm::Expected<bool> rewriteTargetAsm(llvm::CallInst *call,
                                                llvm::StringRef text,
                                                llvm::Value *&replacement) {
    (void)call;
    (void)text;
    (void)replacement;
    return false;
  }
  /// Rewrites the target's inline assembly that accesses memory into plain
  /// LLVM memory operations, before the accesses are checked (NVIDIA:
  /// red.global.add.noftz.f16x2 into two atomicrmw fadd).
  virtual llvm::Error rewriteMemoryAsm() { return llvm::Error::success(); }
  /// Replaces the shared-memory globals (address space sharedSpace()).
  virtual llvm::Error rewriteSharedGlobals() = 0;
  /// Whether \p function is a kernel (gets an entry).
  virtual bool isKernel(const llvm::Function &function) const = 0;
  /// Adds what the runtime needs besides the entry of \p kernel.
  virtual void addKernelExports(llvm::Function &kernel) { (void)kernel; }
  /// The checked address spaces: generic/flat, global, shared.
  virtual bool isCheckedSpace(unsigned space) const {
    return space == 0 || space == 1 || space == sharedSpace();
  }
  virtual unsigned sharedSpace() const { return 3; }

  /// Loads field \p field of the table and calls it.
  llvm::CallInst *callOps(llvm::IRBuilderBase &b, unsigned field,
                          llvm::Type *result,
                          llvm::ArrayRef<llvm::Value *> args);
  /// \p pointer in address space 0.
  llvm::Value *generic(llvm::IRBuilderBase &b, llvm::Value *pointer);
  /// A 16-byte aligned stack slot of at least \p n i32 at the entry of \p f,
  /// one per role and function, as large as the role's largest request
  /// (the runtime reads it during the call only).
  llvm::Value *scratch(llvm::Function &f, llvm::StringRef role, unsigned n);
  /// Stores 32-bit values (or vectors of them, flattened) into \p slot.
  void storeWords(llvm::IRBuilderBase &b, llvm::Value *slot,
                  llvm::ArrayRef<llvm::Value *> values);
  /// Rebuilds a value of \p type (a 32-bit scalar, a vector of 32-bit words'
  /// worth, or a struct of them) from the words in \p slot.
  llvm::Value *loadWords(llvm::IRBuilderBase &b, llvm::Value *slot,
                         llvm::Type *type);
  /// Number of 32-bit words of \p type (0 when not a whole number).
  unsigned wordsOf(llvm::Type *type) const;
  /// Replaces every use of \p global with (a pointer of its type to)
  /// `base + offset`, where base is the result of the table's field
  /// \p baseField (a `void *(*)(void)`), called once per function.
  void replaceWithBase(llvm::GlobalVariable *global, unsigned baseField,
                       uint64_t offset);
  /// A string constant for messages.
  llvm::Constant *message(llvm::IRBuilderBase &b, llvm::StringRef text);
  static llvm::Error error(const llvm::Twine &message);

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  llvm::IntegerType *i32;
  llvm::Type *f32, *voidTy;
  llvm::PointerType *ptr;

private:
  void instrumentAccesses(llvm::Function &f);
  llvm::Error rewriteInlineAsm();
  void addEntries();
  llvm::GlobalVariable *sink();

  CommonFields fields;
  llvm::StructType *opsType;
  llvm::GlobalVariable *opsVar;
  llvm::GlobalVariable *sinkVar = nullptr;
  llvm::DenseMap<std::pair<llvm::Function *, llvm::StringRef>, llvm::Value *>
      scratchSlots;
  llvm::DenseMap<std::pair<llvm::Function *, unsigned>, llvm::Value *> bases;
};

} // namespace tile::emu

#endif // TILE_CODEGEN_COMMON_EMULATIONREWRITER_H
