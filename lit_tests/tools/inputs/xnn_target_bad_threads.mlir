// No threads to run on.
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", arch = "x86_64", features = [], threads = 0>} {
}
