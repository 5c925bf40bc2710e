// A symbol range that admits size 0 (lit_tests/dialects/dynamic_shapes.mlir).
builtin.module attributes {xnnc.symbols = #xnnc.symbols<T = [0, 64]>} {
}
