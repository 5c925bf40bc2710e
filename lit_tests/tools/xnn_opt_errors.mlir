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
// UNKNOWN-PASS: {{^}}xnn-opt: error: unknown pass 'frobnicate'; available passes: {{.*}}canonicalize, {{.*}}cse, dce{{.*$}}
// UNKNOWN-PASS-NOT: {{.}}

// RUN: not xnn-opt %s -p 'canonicalize{foo=1}' 2>&1 | filecheck %s --check-prefix=PASS-OPTION
// PASS-OPTION-NOT: Traceback
// PASS-OPTION: {{^}}xnn-opt: error: canonicalize: unknown option 'foo'; options: disabled-patterns, enabled-patterns{{$}}
// PASS-OPTION-NOT: {{.}}

// A pass option error names the pass, the option (kebab-case), its type and the value.
// RUN: not xnn-opt %s -p 'xnn-polyphase{max-kernel-growth=abc}' 2>&1 | filecheck %s --check-prefix=OPTION-TYPE
// OPTION-TYPE: {{^}}xnn-opt: error: xnn-polyphase: option max-kernel-growth expects a float, got 'abc'{{$}}
// OPTION-TYPE-NOT: {{.}}
// RUN: not xnn-opt %s -p 'xnn-fold-pad{depthwise=1}' 2>&1 | filecheck %s --check-prefix=OPTION-BOOL
// OPTION-BOOL: {{^}}xnn-opt: error: xnn-fold-pad: option depthwise expects a bool (true or false), got 1{{$}}
// RUN: not xnn-opt %s -p 'fold-constants{max_bytes=1.5}' 2>&1 | filecheck %s --check-prefix=OPTION-INT
// OPTION-INT: {{^}}xnn-opt: error: fold-constants: option max-bytes expects an int, got 1.5{{$}}

// Numeric options are range-checked; an integer literal is a valid float.
// RUN: not xnn-opt %s -p 'xnn-polyphase{max-kernel-growth=-1.0}' 2>&1 | filecheck %s --check-prefix=OPTION-RANGE
// OPTION-RANGE: {{^}}xnn-opt: error: xnn-polyphase: option max-kernel-growth must be in [1, inf), got -1.0{{$}}
// OPTION-RANGE-NOT: {{.}}
// RUN: not xnn-opt %s -p 'xnn-conv-as-gemm{min-output-channels=0}' 2>&1 | filecheck %s --check-prefix=OPTION-RANGE-INT
// OPTION-RANGE-INT: {{^}}xnn-opt: error: xnn-conv-as-gemm: option min-output-channels must be in [1, inf), got 0{{$}}
// RUN: xnn-opt %s -p 'xnn-polyphase{max-kernel-growth=2}' | filecheck %s --check-prefix=OPTION-INT-AS-FLOAT
// OPTION-INT-AS-FLOAT: func.func @twice

// A malformed pipeline says where in the spec; a bad target string is caught before any pass.
// RUN: not xnn-opt %s -p 'xnn-polyphase{max-kernel-growth=}' 2>&1 | filecheck %s --check-prefix=SPEC
// SPEC: {{^}}xnn-opt: error: pass-pipeline:1:33: Unknown argument value, {{.*}} in 'xnn-polyphase{max-kernel-growth=}'{{$}}
// SPEC-NOT: {{.}}
// RUN: not xnn-opt %s -p 'canonicalize,xnnc-pipeline{target=bogus}' 2>&1 | filecheck %s --check-prefix=PIPELINE-TARGET
// PIPELINE-TARGET: {{^}}xnn-opt: error: xnnc-pipeline: unknown word 'bogus' in target 'bogus'; valid: {{.*$}}
// PIPELINE-TARGET-NOT: {{.}}

// Bytes that are not text name the file; an empty file is an empty module, as in mlir-opt.
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(b'ab\x96cd')" %t.bin.mlir
// RUN: not xnn-opt %t.bin.mlir 2>&1 | filecheck %s --check-prefix=NOT-TEXT
// NOT-TEXT: {{^}}xnn-opt: error: {{.*}}.bin.mlir: not UTF-8 text: byte 0x96 at offset 2{{$}}
// NOT-TEXT-NOT: {{.}}
// RUN: %python -c "open('%t.empty.mlir', 'w')"
// RUN: xnn-opt %t.empty.mlir | filecheck %s --check-prefix=EMPTY
// EMPTY: {{^}}builtin.module {
// EMPTY-NEXT: {{^}}}

// RUN: cp %s %t.txt
// RUN: not xnn-opt %t.txt 2>&1 | filecheck %s --check-prefix=KIND
// KIND: {{^}}xnn-opt: error: {{.*}}.txt: unknown input kind 'txt'; name it with -f mlir or -f pt2{{$}}
// `-` and no file both read stdin, for every input kind. (lit's builtin `cat` drops
// PYTHONPATH for the rest of the file: input comes by `<` only.)
// RUN: xnn-opt - < %s | filecheck %s --check-prefix=STDIN
// RUN: xnn-opt < %s | filecheck %s --check-prefix=STDIN
// STDIN: func.func @twice
// RUN: not xnn-opt -f pt2 - < %s 2>&1 | filecheck %s --check-prefix=STDIN-PT2
// STDIN-PT2: {{^}}xnn-opt: error: <stdin>: not a torch.export archive (not a zip file){{$}}

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
