// xnn-tune times both forms of each undecided layer on this machine's XNNPACK and records the
// choice with both times; a second run with cached=true reads the database and times nothing.
// RUN: rm -f %t.json
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{form=conv-as-gemm db="%t.json"}' | filecheck %s --check-prefix=TUNED
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{form=conv-as-gemm db="%t.json" cached=true}' | filecheck %s --check-prefix=TUNED
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{form=conv-as-gemm db="%t.json"},xnn-conv-as-gemm' | filecheck %s --check-prefix=FOLLOWED
// RUN: %python -c "import json,sys; e=json.load(open(sys.argv[1]))['entries']; print(len(e), *e)" %t.json | filecheck %s --check-prefix=DB
// RUN: not xnn-opt %s -p 'xnn-set-target{target="stock,arm64"},xnn-tune' 2>&1 | filecheck %s --check-prefix=CROSS
// RUN: not xnn-opt %s -p 'xnn-tune' 2>&1 | filecheck %s --check-prefix=NOTARGET
// RUN: not xnn-opt %s -p 'xnn-tune{form=winograd}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not xnn-opt %s -p 'xnnc-pipeline{tune=bogus}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not xnn-opt %s -p 'xnnc-pipeline{tune=true}' 2>&1 | filecheck %s --check-prefix=BARE
// RUN: rm -f %t.budget.json
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnn-tune{form=conv-as-gemm db="%t.budget.json" budget-ms=0},xnn-conv-as-gemm' | filecheck %s --check-prefix=BUDGET
// RUN: not test -e %t.budget.json || %python -c "import json,sys; print(len(json.load(open(sys.argv[1]))['entries']))" %t.budget.json | filecheck %s --check-prefix=NOENTRY
// RUN: not xnn-opt %s -p 'xnn-tune{budget-ms=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// The whole pipeline takes the budget too (CompileOptions' tune_budget_ms; no bound by default).
// RUN: rm -f %t.pipeline.json
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnnc-pipeline{tuning-db="%t.pipeline.json" tune-budget-ms=0}' | filecheck %s --check-prefix=BUDGET
// RUN: xnn-opt %s -p 'xnn-set-target{target="extended,host"},xnnc-pipeline{tuning-db="%t.pipeline.json"}' | filecheck %s --check-prefix=FOLLOWED
// RUN: not xnn-opt %s -p 'xnnc-pipeline{tune-budget-ms=-1}' 2>&1 | filecheck %s --check-prefix=PIPELINE-NEGATIVE

// TUNED:    xnn.convolution_2d {{.*}}xnn.decision = {form = "conv-as-gemm", choice = "{{direct|gemm}}", source = "tuned", layer = "conv f32 1x1x32x64->32 k1x3 d1x1 p0,1,0,1", times_ms = {direct = {{.*}} : f64, gemm = {{.*}} : f64}}
// The pass owning the form follows the recorded choice; the decision sits on the result.
// FOLLOWED: source = "tuned", layer = "conv f32 1x1x32x64->32 k1x3 d1x1 p0,1,0,1"
// FOLLOWED: func.return
// The key ends in conv-as-gemm's revision (its entry in cost.forms): times of an older form miss.
// DB:       1 {{.*}}|threads=1|conv f32 1x1x32x64->32 k1x3 d1x1 p0,1,0,1|r3{{$}}
// CROSS:    xnn-tune: the module's target 'stock,arm64' is not this machine's CPU on the extended runtime; tuning times layers here (cross-compiles use the static rules)
// NOTARGET: xnn-opt: error: xnn-tune: the module has no #xnn.target; set this machine's first: -p 'xnn-set-target,xnn-tune'
// FORM:     xnn-tune: unknown form 'winograd'; valid: conv-as-gemm, bf16-gemm, upsample-nearest, polyphase, fc-or-bmm, fp16-compute
// With no budget nothing is timed: the static rule decides, and nothing enters the database.
// BUDGET:   source = "rule"
// NOENTRY:  0
// NEGATIVE: xnn-tune: option budget-ms
// PIPELINE-NEGATIVE: xnn-opt: error: xnnc-pipeline: option tune-budget-ms must be in [0, inf), got -1.0
// MODE:     xnn-opt: error: xnnc-pipeline: tune: unknown mode 'bogus'; valid: true, false, auto, cached
// A bare true is the string "true" for a string option (it was 'expects a string, got true').
// BARE: xnn-opt: error: tune=True: the target 'extended,x86_64' is not this machine's CPU
func.func @conv(%x: tensor<1x1x32x64xf32>) -> tensor<1x1x32x32xf32> {
  %r = xnn.subgraph(%x) : (tensor<1x1x32x64xf32>) -> tensor<1x1x32x32xf32> {
  ^bb0(%a: tensor<1x1x32x64xf32>):
    %w = xnn.constant dense<5.000000e-01> : tensor<32x1x3x64xf32>
    %y = xnn.convolution_2d %a, %w {padding_right = 1, padding_left = 1, kernel_height = 1, kernel_width = 3, group_input_channels = 64, group_output_channels = 32} : (tensor<1x1x32x64xf32>, tensor<32x1x3x64xf32>) -> tensor<1x1x32x32xf32>
    xnn.output %y : tensor<1x1x32x32xf32>
  }
  func.return %r : tensor<1x1x32x32xf32>
}
