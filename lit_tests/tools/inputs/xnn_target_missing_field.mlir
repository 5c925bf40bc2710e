// Every field is spelled out, in order: runtime, arch, features, threads.
builtin.module attributes {xnn.target = #xnn.target<runtime = "extended", features = [], threads = 1>} {
}
