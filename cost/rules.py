"""The static cost model: per-ISA rules choosing between a layer's equivalent forms, as pure
functions of the target (CPU features, thread count) and the layer's shape and dtype. Each
rule says where its numbers come from. They decide wherever nothing was measured on the
machine the program runs on: cross-compiles, `tune=False`, the stock runtime, and layers
the tuner could not time.

This module imports nothing from xDSL or the dialects (the layers are plain values).
"""

from __future__ import annotations

from dataclasses import dataclass

from xnnc.target import Target

# The forms a layer can take, by decision: the first choice is the layer as converted.
FORMS: dict[str, tuple[str, ...]] = {
    "conv-as-gemm": ("direct", "gemm"),
    "bf16-gemm": ("fp32", "native"),
}

# With AVX-512, the fewest input channels at which the taps' GEMMs beat XNNPACK's IGEMM.
AVX512_MIN_INPUT_CHANNELS = 384


@dataclass(frozen=True)
class ConvLayer:
    """A stride-1 `xnn.convolution_2d` (NHWC) that `xnn-conv-as-gemm` could rewrite."""

    dtype: str
    batch: int
    height: int
    width: int
    in_channels: int
    out_channels: int
    kernel: tuple[int, int]
    dilation: tuple[int, int]
    padding: tuple[int, int, int, int]  # top, right, bottom, left

    form = "conv-as-gemm"

    def key(self) -> str:
        """The layer signature: the tuning database's key and `explain()`'s shape."""
        return (
            f"conv {self.dtype} {self.batch}x{self.height}x{self.width}x{self.in_channels}"
            f"->{self.out_channels} k{self.kernel[0]}x{self.kernel[1]}"
            f" d{self.dilation[0]}x{self.dilation[1]} p{','.join(map(str, self.padding))}"
        )

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the direct convolution (stride 1, output ~ input size)."""
        size = self.batch * self.height * self.width * self.in_channels * self.out_channels
        return size * self.kernel[0] * self.kernel[1]


@dataclass(frozen=True)
class GemmLayer:
    """A bf16 `xnn.fully_connected` or `xnn.batch_matrix_multiply`: [batch,] rows x k @ k x n."""

    kind: str  # "fc" | "bmm"
    batch: int
    rows: int
    k: int
    n: int

    form = "bf16-gemm"
    dtype = "bf16"

    def key(self) -> str:
        return f"{self.kind} bf16 {self.batch}x{self.rows}x{self.k}->{self.n}"

    @property
    def macs(self) -> int:
        return self.batch * self.rows * self.k * self.n


Layer = ConvLayer | GemmLayer


@dataclass(frozen=True)
class Choice:
    """A static rule's answer: the form, and the rule's reason with its source."""

    choice: str
    why: str


def decide(target: Target, layer: Layer) -> Choice:
    """The static choice for `layer` on `target`."""
    if isinstance(layer, ConvLayer):
        return conv_as_gemm(target, layer)
    return bf16_gemm(target, layer)


def conv_as_gemm(target: Target, layer: ConvLayer) -> Choice:
    """Direct (IGEMM) or as GEMMs over shifted slices (`transforms/conv_as_gemm.py`).

    - x86-64 AVX2/FMA3 without AVX-512: GEMM at every size. XNNPACK 92a7ad50's fma3 IGEMM
      spills an accumulator (5x16 tile, 17 of 16 registers): 25-33 GFLOP/s against the 6x16
      GEMM's 45-75 (`rewrites_bench` on Zen 2/3, one thread; Mimi 1.9x, DAC 1.7x). The
      1.7-2x kernel gap is far above the few microseconds per extra node a thread pool's
      barrier costs, so the rule holds at any thread count (not measured above one).
    - AVX-512, one thread: GEMM from 384 input channels on (`rewrites_bench` on a Sapphire
      Rapids Xeon: 1.0-1.65x on DAC's and Mimi's wide layers, 0.62-0.94x at <= 256).
    - AVX-512, two threads or more: direct. Each tap's GEMM and add is a node, and every
      node ends in a thread-pool barrier: on a 2-core Zen 4 conv-as-gemm slowed Mimi by 46%
      and EnCodec by 5% at two threads (issue 10), against 6-12% at one.
    - The one-output-channel form (depthwise + channel sum) and anything else: measured on
      AVX2 only; direct elsewhere.
    """
    x86 = target.arch == "x86_64"
    if not (x86 and target.has("avx2") and target.has("fma3")):
        return Choice("direct", "conv-as-gemm measured on x86-64 AVX2/FMA3 and AVX-512 only")
    if not target.has("avx512f"):
        return Choice("gemm", "AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)")
    if target.threads > 1:
        return Choice("direct", f"AVX-512, {target.threads} threads: the taps' nodes are "
                      "thread-pool barriers (Zen 4: -46% on Mimi at 2 threads)")  # fmt: skip
    if layer.out_channels == 1:
        return Choice("direct", "AVX-512: the one-output-channel form was measured on AVX2 only")
    if layer.in_channels >= AVX512_MIN_INPUT_CHANNELS:
        return Choice("gemm", f"AVX-512, 1 thread, {layer.in_channels} >= "
                      f"{AVX512_MIN_INPUT_CHANNELS} input channels")  # fmt: skip
    return Choice("direct", f"AVX-512, 1 thread, {layer.in_channels} < "
                  f"{AVX512_MIN_INPUT_CHANNELS} input channels")  # fmt: skip


def bf16_gemm(target: Target, layer: GemmLayer) -> Choice:
    """XNNPACK's bf16 x bf16 -> fp32 GEMM ("native", which the extended runtime runs on
    XNNPACK's operator API) or fp32 between converts (`legalize/casts.py`).

    - No AVX512-BF16 (XNNPACK 92a7ad50's only bf16 GEMM kernel, `vdpbf16ps`; no AMX kernel,
      none on arm64): fp32.
    - Zen 4 (AVX512-BF16 without AMX or AVX512-FP16): native, 1.9x at M = 64 (notes/bf16-gemm.md).
    - Intel since Sapphire Rapids (AMX, AVX512-FP16), whose two 512-bit FMA ports keep up with
      `vdpbf16ps`: native for one row only (`bf16_gemm_bench --sweep`, 1 thread, K = N = 2048:
      1.91x at M = 1, 0.69-1.24x at M = 2-32, 0.97x at 64, 0.84x at 256; K = N = 512: 1.19x at
      M = 1, 0.42-0.74x above).
    """
    if not target.bf16_gemm:
        return Choice("fp32", "no bf16 GEMM kernel in XNNPACK 92a7ad50 for this CPU")
    if not (target.has("amx") or target.has("avx512fp16")):
        return Choice("native", "AVX512-BF16 without AMX/AVX512-FP16 (Zen 4: 1.9x at M = 64)")
    if layer.rows == 1:
        return Choice("native", "AMX/AVX512-FP16 CPU, one row: memory-bound, 1.2-1.9x")
    return Choice("fp32", f"AMX/AVX512-FP16 CPU, {layer.rows} rows: fp32 FMA keeps up (0.4-1.2x)")


def fp16_native(target: Target) -> Choice:
    """fp16 computed in XNNPACK's fp16 kernels ("native") or in fp32 (`fp16_precision.py`).
    At XNNPACK 92a7ad50 fp16 arithmetic pays on arm64 with FP16 only. Not on x86, even with
    AVX512-FP16: there `xnn_is_f16_native_supported()` is false and the MI-GAN-like model runs
    1.27-1.32x faster in fp32 (`fp16_precision_bench` on a Sapphire Rapids Xeon, 1 and 2
    threads), although XNNPACK's fp16 GEMM alone peaks 1.8x above its fp32 one there."""
    if target.arch == "arm64" and target.has("fp16"):
        return Choice("native", "arm64 FP16 arithmetic")
    return Choice("fp32", "no XNNPACK fp16 arithmetic path for this CPU")
