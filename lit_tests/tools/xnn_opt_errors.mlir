// xnn-opt's errors are one line on stderr with exit code 1, never a Python traceback.
// The inputs that fail to parse or verify live in inputs/.

// RUN: not xnn-opt %S/inputs/xnn_opt_malformed.mlir 2>&1 | filecheck %s --check-prefix=MALFORMED
// MALFORMED-NOT: Traceback
// MALFORMED: {{^}}{{.*}}xnn_opt_malformed.mlir:3:41: error: Expected '->'{{$}}
// MALFORMED-NOT: {{.}}

// RUN: not xnn-opt %S/inputs/xnn_opt_unknown_op.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP-NOT: Traceback
// UNKNOWN-OP: {{^}}{{.*}}xnn_opt_unknown_op.mlir:3:{{[0-9]+}}: error: Operation aten.frobnicate is not registered{{$}}
// UNKNOWN-OP-NOT: {{.}}

// A verifier failure names the op and where it is.
// RUN: not xnn-opt %S/inputs/xnn_opt_verify_error.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY-NOT: Traceback
// VERIFY: {{^}}{{.*}}xnn_opt_verify_error.mlir:3:3: error: 'aten.relu' op result shape [3, 3] differs from input shape [2, 3]{{$}}
// VERIFY-NOT: {{.}}

// RUN: not xnn-opt %s -p frobnicate 2>&1 | filecheck %s --check-prefix=UNKNOWN-PASS
// UNKNOWN-PASS-NOT: Traceback
// UNKNOWN-PASS: {{^}}xnn-opt: error: Unrecognized passes: ['frobnicate']; available passes: canonicalize, {{.*}}cse, dce{{.*$}}
// UNKNOWN-PASS-NOT: {{.}}

// RUN: not xnn-opt %s -p 'canonicalize{foo=1}' 2>&1 | filecheck %s --check-prefix=PASS-OPTION
// PASS-OPTION-NOT: Traceback
// PASS-OPTION: {{^}}xnn-opt: error: {{.*}}"foo"{{.*$}}
// PASS-OPTION-NOT: {{.}}

// RUN: not xnn-opt %t.does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=NO-FILE
// NO-FILE-NOT: Traceback
// NO-FILE: {{^}}xnn-opt: error: {{.*}}does-not-exist.mlir: no such file{{$}}
// NO-FILE-NOT: {{.}}

// RUN: not xnn-opt %s --weights %t.does-not-exist.npz 2>&1 | filecheck %s --check-prefix=NO-WEIGHTS
// NO-WEIGHTS-NOT: Traceback
// NO-WEIGHTS: {{^}}xnn-opt: error: {{.*}}does-not-exist.npz: no such file{{$}}
// NO-WEIGHTS-NOT: {{.}}

// The flags that show what the tool does; their checks follow the error cases.
// RUN: xnn-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: xnn-opt %s -p canonicalize,cse --print-between-passes | filecheck %s --check-prefix=BETWEEN
// RUN: xnn-opt %s -p canonicalize,cse --time-passes | filecheck %s --check-prefix=TIME

// RUN: cp %s %t.pt2
// RUN: not xnn-opt %t.pt2 2>&1 | filecheck %s --check-prefix=PT2
// PT2-NOT: Traceback
// PT2: {{^}}xnn-opt: error: {{.*}}.pt2: not a torch.export archive{{.*$}}
// PT2-NOT: {{.}}

// An operand type the op's constraint rejects, met while parsing the custom syntax.
// RUN: not xnn-opt %S/inputs/xnn_opt_operand_type.mlir 2>&1 | filecheck %s --check-prefix=OPERAND-TYPE
// OPERAND-TYPE-NOT: Traceback
// OPERAND-TYPE: {{^}}{{.*}}xnn_opt_operand_type.mlir:3:{{[0-9]+}}: error: {{.*}}i32 should be of base attribute tensor{{$}}
// OPERAND-TYPE-NOT: {{.}}

// GENERIC:      "builtin.module"() ({
// GENERIC-NEXT:   "func.func"() <{sym_name = "twice", function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>}> ({
// GENERIC-NEXT:   ^bb0(%x: tensor<2x3xf32>):
// GENERIC-NEXT:     %0 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:     %1 = "aten.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:     %2 = "aten.add"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT:     "func.return"(%2) : (tensor<2x3xf32>) -> ()
// GENERIC-NEXT:   }) : () -> ()
// GENERIC-NEXT: }) : () -> ()

// The IR after canonicalize still has both relus; the final IR, after cse, has one.
// BETWEEN:      IR after canonicalize:
// BETWEEN-NEXT: builtin.module {
// BETWEEN-NEXT:   func.func @twice(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
// BETWEEN-NEXT:     %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// BETWEEN-NEXT:     %1 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// BETWEEN-NEXT:     %2 = aten.add %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// BETWEEN:      builtin.module {
// BETWEEN-NEXT:   func.func @twice(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
// BETWEEN-NEXT:     %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
// BETWEEN-NEXT:     %1 = aten.add %0, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// BETWEEN-NEXT:     func.return %1 : tensor<2x3xf32>
// BETWEEN-NOT:  IR after

// TIME:      Pass canonicalize took {{[0-9.e-]+}} seconds
// TIME-NEXT: Pass cse took {{[0-9.e-]+}} seconds
// TIME-NEXT: builtin.module {
// TIME:        %1 = aten.add %0, %0
func.func @twice(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = aten.add %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}
