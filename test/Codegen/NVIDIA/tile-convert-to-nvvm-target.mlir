// RUN: not tile-opt -tile-convert-to-nvvm=target=gfx942 %s 2>&1 | FileCheck %s

// CHECK: error: tile-convert-to-nvvm: 'gfx942' is not an NVIDIA target
module {
}
