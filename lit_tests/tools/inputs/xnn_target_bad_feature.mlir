// An arm64 feature on an x86_64 target.
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = ["avx2", "neon"], threads = 1>} {
}
