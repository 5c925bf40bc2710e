// A target whose runtime is neither stock nor extended.
builtin.module attributes {xnn.target = #xnn.target<runtime = "stocky", arch = "x86_64", features = [], threads = 1>} {
}
