// RUN: %python -m strata.pipelines linalg-to-nvvm --option chip=sm_90 %s | FileCheck %s --check-prefix=NVVM
// RUN: %python -m strata.pipelines linalg-to-rocdl --option chip=gfx942 %s | FileCheck %s --check-prefix=ROCDL
// RUN: %python -m strata.pipelines linalg-to-nvvm --stop-after=gpu %s | FileCheck %s --check-prefix=LAUNCH
// RUN: not %python -m strata.pipelines linalg-to-nvvm --option chip=sm_99 %s 2>&1 | FileCheck %s --check-prefix=BADCHIP

// Both linalg ops become 32x32-thread blocks over a grid of tiles.
// LAUNCH-LABEL: func.func @matmul
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c32, %{{.*}} = %c1)
// LAUNCH: gpu.launch blocks

// Kernels are outlined into gpu.modules attached to the chip and written with nvvm/rocdl ops.
// NVVM-LABEL: func.func @matmul
// NVVM: gpu.launch_func @matmul_kernel::@matmul_kernel blocks in (%c4, %c2, %c1) threads in (%c32, %c32, %c1)
// NVVM: gpu.launch_func @matmul_kernel_0::@matmul_kernel
// NVVM: gpu.module @matmul_kernel [#nvvm.target<chip = "sm_90">]
// NVVM: llvm.func @matmul_kernel({{.*}}) attributes {gpu.kernel, {{.*}}nvvm.kernel
// NVVM: nvvm.read.ptx.sreg.ctaid.x
// NVVM: nvvm.read.ptx.sreg.tid.x
// NVVM: gpu.module @matmul_kernel_0 [#nvvm.target<chip = "sm_90">]
// NVVM-NOT: unrealized_conversion_cast

// ROCDL-LABEL: func.func @matmul
// ROCDL: gpu.module @matmul_kernel [#rocdl.target<chip = "gfx942">]
// ROCDL: llvm.func @matmul_kernel({{.*}}) attributes {gpu.kernel, {{.*}}rocdl.kernel
// ROCDL: rocdl.workgroup.id.x
// ROCDL: rocdl.workitem.id.x
// ROCDL-NOT: unrealized_conversion_cast

// BADCHIP: error: pipeline 'linalg-to-nvvm': option chip=sm_99 is not one of sm_80, sm_86, sm_89, sm_90
func.func @matmul(%a: tensor<128x256xf32>, %b: tensor<256x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}
