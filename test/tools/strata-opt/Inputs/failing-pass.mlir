func.func @f(%a: memref<4xf32>) -> tensor<4xf32> {
  %0 = bufferization.to_tensor %a : memref<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
