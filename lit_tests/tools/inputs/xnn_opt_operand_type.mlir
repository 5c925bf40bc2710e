// aten.relu takes a tensor; the custom syntax names an i32.
func.func @f(%x: i32) -> i32 {
  %0 = aten.relu %x : (i32) -> i32
  func.return %0 : i32
}
