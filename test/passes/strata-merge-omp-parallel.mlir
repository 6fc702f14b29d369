// strata-merge-omp-parallel: consecutive omp.parallel regions in one block become one, the second
// region's loops after the first's (each omp.wsloop ends in a barrier); what lies between them
// must only allocate or name memory, and it moves in front of the merged region.
// RUN: strata-opt --split-input-file --pass-pipeline='builtin.module(func.func(strata-merge-omp-parallel))' %s | FileCheck %s

// CHECK-LABEL: func.func @two_loops
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[B]][0] [4] [1]
// CHECK:         omp.parallel {
// CHECK:           omp.wsloop {
// CHECK:             memref.store %{{.*}}, %[[A:.*]][%{{.*}}]
// CHECK:           omp.wsloop {
// CHECK:             memref.load %[[A]]
// CHECK:             memref.store %{{.*}}, %[[V]][%{{.*}}]
// CHECK:           omp.terminator
// CHECK-NOT:     omp.parallel
// CHECK:         return %[[B]]
func.func @two_loops(%a: memref<4xf32>, %x: f32) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.store %x, %a[%i] : memref<4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  %b = memref.alloc() : memref<8xf32>
  %view = memref.subview %b[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        %v = memref.load %a[%i] : memref<4xf32>
        memref.store %v, %view[%i] : memref<4xf32, strided<[1]>>
        omp.yield
      }
    }
    omp.terminator
  }
  return %b : memref<8xf32>
}

// -----

// A store between the regions runs after the first and before the second: they stay apart.
// CHECK-LABEL: func.func @store_between
// CHECK:         omp.parallel
// CHECK:         omp.terminator
// CHECK:         memref.store
// CHECK:         omp.parallel
func.func @store_between(%a: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.store %x, %a[%i] : memref<4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  memref.store %x, %a[%c0] : memref<4xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.store %x, %a[%i] : memref<4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region with its own thread count is left as it is.
// CHECK-LABEL: func.func @thread_count
// CHECK:         omp.parallel {
// CHECK:         omp.parallel num_threads
func.func @thread_count(%a: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2 : i32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.store %x, %a[%i] : memref<4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel num_threads(%two : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.store %x, %a[%i] : memref<4xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Regions inside a loop body merge there (one region per iteration instead of two).
// CHECK-LABEL: func.func @in_a_loop
// CHECK:         scf.for
// CHECK-COUNT-1:   omp.parallel
// CHECK-NOT:       omp.parallel
func.func @in_a_loop(%a: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %j = %c0 to %c4 step %c1 {
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
          memref.store %x, %a[%i] : memref<4xf32>
          omp.yield
        }
      }
      omp.terminator
    }
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
          memref.store %x, %a[%i] : memref<4xf32>
          omp.yield
        }
      }
      omp.terminator
    }
  }
  return
}
