func.func @f() {
  %0 = arith.addi %x, %x : i32
}
