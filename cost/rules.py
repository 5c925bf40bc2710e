"""The static cost model: per-ISA rules choosing between a layer's equivalent forms, as pure
functions of the target (CPU features, thread count) and the layer's shape and dtype. Each
rule says where its numbers come from. They decide wherever nothing was measured on the
machine the program runs on: cross-compiles, `tune=False`, the stock runtime, and layers
the tuner could not time. The layers each rule decides are defined here too; which rule
decides which form, with the form's choices and the rest of what is known about it, is the
form's entry in `cost.forms`.

This module imports nothing from xDSL or the dialects (the layers are plain values).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from xnnc.target import Target

# With AVX-512, the fewest input channels at which the taps' GEMMs beat XNNPACK's IGEMM:
# on Intel since Sapphire Rapids (and, unmeasured, other AVX-512 CPUs without AVX512-BF16),
# and on Zen 4 (AVX512-BF16 without AMX/AVX512-FP16) at one thread.
AVX512_MIN_INPUT_CHANNELS = 384
ZEN4_MIN_INPUT_CHANNELS = 1024


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


@dataclass(frozen=True)
class UpsampleLayer:
    """A nearest x2 upsample of an NHWC tensor (`transforms/upsample_nearest.py`)."""

    dtype: str
    shape: tuple[int, int, int, int]
    elem_bytes: int

    form = "upsample-nearest"

    def key(self) -> str:
        return f"upsample2x {self.dtype} {'x'.join(map(str, self.shape))}"

    @property
    def macs(self) -> int:  # elements written: what both forms cost
        return 4 * math.prod(self.shape)


@dataclass(frozen=True)
class DeconvLayer:
    """A strided `xnn.deconvolution_2d` that `xnn-polyphase` can rewrite (NHWC)."""

    dtype: str
    shape: tuple[int, int, int, int]  # input
    out_channels: int
    groups: int
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int, int, int]

    form = "polyphase"

    def key(self) -> str:
        return (
            f"deconv {self.dtype} {'x'.join(map(str, self.shape))}->{self.out_channels}"
            f" g{self.groups} k{self.kernel[0]}x{self.kernel[1]}"
            f" s{self.stride[0]}x{self.stride[1]} p{','.join(map(str, self.padding))}"
        )

    @property
    def depthwise(self) -> bool:
        return self.groups > 1

    @property
    def kernel_growth(self) -> float:
        return kernel_growth(self.kernel, self.stride)

    @property
    def macs(self) -> int:
        n, h, w, cin = self.shape
        per_group = (cin // self.groups) * (self.out_channels // self.groups)
        return n * h * w * self.groups * per_group * self.kernel[0] * self.kernel[1]


def kernel_growth(kernel: tuple[int, ...], stride: tuple[int, ...]) -> float:
    """Taps of the kernel zero-padded to a multiple of the stride, per tap of the kernel."""
    padded = math.prod(-(-k // s) * s for k, s in zip(kernel, stride, strict=True))
    return padded / math.prod(kernel)


@dataclass(frozen=True)
class LinearLayer:
    """An fp32/fp16 `xnn.fully_connected` with a constant filter: rows x k @ k x n."""

    dtype: str
    rows: int
    k: int
    n: int

    form = "fc-or-bmm"

    def key(self) -> str:
        return f"linear {self.dtype} {self.rows}x{self.k}->{self.n}"

    @property
    def macs(self) -> int:
        return self.rows * self.k * self.n


@dataclass(frozen=True)
class Fp16Layer:
    """An fp16 layer with weights (convolution, deconvolution, fully-connected, batch matmul)
    that `xnn-fp16-precision` can compute in fp32: `signature` names its kind and shapes."""

    signature: str
    macs: int

    form = "fp16-compute"
    dtype = "f16"

    def key(self) -> str:
        return f"fp16 {self.signature}"


@dataclass(frozen=True)
class Fp16Region:
    """A maximal connected set of fp16 layers and the fp16 nodes between them in one subgraph
    (`legalize/fp16_precision.py: fp16_regions`), decided as a whole. `first` is the
    signature of its first layer, `digest` a hash of every node, shape and edge of the
    region with the converts at its boundary (what the tuner times)."""

    layers: int
    nodes: int
    first: str
    digest: str
    macs: int

    form = "fp16-compute"
    dtype = "f16"

    def key(self) -> str:
        s = "s" * (self.layers != 1)
        return f"fp16 region of {self.layers} layer{s} from {self.first} #{self.digest}"


@dataclass(frozen=True)
class StemLayer:
    """A strided int8 `xnn.convolution_2d` over few input channels (an image model's first
    layer) that `xnn-space-to-depth` can run as a stride-1 convolution over the input's
    stride x stride blocks."""

    dtype: str
    shape: tuple[int, int, int, int]  # input, NHWC
    out_channels: int
    kernel: tuple[int, int]
    stride: int
    padding: tuple[int, int, int, int]  # top, right, bottom, left

    form = "space-to-depth"

    def key(self) -> str:
        return (
            f"stem {self.dtype} {'x'.join(map(str, self.shape))}->{self.out_channels}"
            f" k{self.kernel[0]}x{self.kernel[1]} s{self.stride}"
            f" p{','.join(map(str, self.padding))}"
        )

    @property
    def blocked_kernel(self) -> tuple[int, int]:
        """The stride-1 kernel over blocks: ceil(k / stride) along each axis."""
        return (-(-self.kernel[0] // self.stride), -(-self.kernel[1] // self.stride))

    def packed_macs_per_output(self, kr: int) -> tuple[int, int]:
        """(direct, space-to-depth) multiply-accumulates per output value as XNNPACK's int8
        IGEMM runs them: each tap's input channels padded to a multiple of its kernels' `kr`."""
        cin, s = self.shape[3], self.stride
        kh, kw = self.blocked_kernel
        direct = self.kernel[0] * self.kernel[1] * (-(-cin // kr) * kr)
        return direct, kh * kw * (-(-(s * s * cin) // kr) * kr)

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the direct form, about (the tuner orders layers by it)."""
        n, h, w, cin = self.shape
        outputs = n * (h // self.stride) * (w // self.stride) * self.out_channels
        return outputs * self.kernel[0] * self.kernel[1] * cin


@dataclass(frozen=True)
class RowLayer:
    """A depthwise window over a 1-D signal ([N, 1, W, C], a 1 x k window): a depthwise
    convolution ("dwconv"), max ("maxpool") or average pooling ("avgpool"), which
    `xnn-depthwise-rows` can run over rows instead ([N, W, 1, C], k x 1)."""

    dtype: str
    batch: int
    width: int  # input
    out_width: int
    channels: int
    kernel: int
    stride: int
    dilation: int
    padding: tuple[int, int]  # left, right
    kind: str = "dwconv"

    form = "depthwise-rows"

    def key(self) -> str:
        return (
            f"{self.kind}1d {self.dtype} {self.batch}x{self.width}x{self.channels} k{self.kernel}"
            f" s{self.stride} d{self.dilation} p{self.padding[0]},{self.padding[1]}"
        )

    @property
    def macs(self) -> int:
        return self.batch * self.out_width * self.channels * self.kernel


Layer = (
    ConvLayer | GemmLayer | UpsampleLayer | DeconvLayer | LinearLayer | Fp16Layer | Fp16Region
    | StemLayer | RowLayer
)  # fmt: skip


@dataclass(frozen=True)
class Choice:
    """A static rule's answer: the form, and the rule's reason with its source. `measured`
    is False where the rule's numbers were never measured on the target's kind of CPU (its
    choice is then a guess: `xnn.decision`'s source "unmeasured")."""

    choice: str
    why: str
    measured: bool = True


Rule = TypeVar("Rule", bound=Callable[..., Choice])


def unmeasured_on_arm64(rule: Rule) -> Rule:
    """A rule measured on x86-64 only: on arm64 its choice stands, marked unmeasured. The
    arm64 runs this project has (QEMU user mode, `make test-arm64`) check numerics, not
    time (emulated timings say nothing of a phone's)."""

    @functools.wraps(rule)
    def marked(target: Target, layer: Any) -> Choice:
        choice = rule(target, layer)
        if target.arch != "arm64":
            return choice
        return Choice(choice.choice, f"{choice.why}; unmeasured on arm64", measured=False)

    return marked  # type: ignore[return-value]


def _intel_since_sapphire_rapids(target: Target) -> bool:
    """AMX or AVX512-FP16: Intel since Sapphire Rapids (Zen 4 and 5 have neither), whose two
    512-bit FMA ports change which form wins."""
    return target.has("amx") or target.has("avx512fp16")


def _zen4_like(target: Target) -> bool:
    """AVX512-BF16 without AMX or AVX512-FP16: AMD Zen 4 and 5 (and Intel's Cooper Lake),
    whose 512-bit operations run on two 256-bit FMA pipes on Zen 4."""
    return target.has("avx512bf16") and not _intel_since_sapphire_rapids(target)


@unmeasured_on_arm64
def conv_as_gemm(target: Target, layer: ConvLayer) -> Choice:
    """Direct (IGEMM) or as GEMMs over shifted slices (`transforms/conv_as_gemm.py`).

    - x86-64 AVX2/FMA3 without AVX-512: GEMM at every size. XNNPACK 92a7ad50's fma3 IGEMM
      spills an accumulator (5x16 tile, 17 of 16 registers): 25-33 GFLOP/s against the 6x16
      GEMM's 45-75 (`rewrites_bench` on Zen 2/3, one thread; Mimi 1.9x, DAC 1.7x). The
      1.7-2x kernel gap is far above the few microseconds per extra node a thread pool's
      barrier costs, so the rule holds at any thread count (not measured above one).
    - AVX-512, one thread: GEMM from 384 input channels on (`rewrites_bench` on a Sapphire
      Rapids Xeon: 1.0-1.65x on DAC's and Mimi's wide layers, 0.62-0.94x at <= 256).
    - AVX-512 on Intel since Sapphire Rapids (AMX / AVX512-FP16), two threads too: GEMM from
      384 input channels on, and for one output channel at one thread. Tuned per layer on a
      2-core Sapphire Rapids-class Xeon (every conv layer of the zoo, 1 and 2 threads), direct /
      GEMM: 1.1-2.9x at >= 384 input channels but for three 2-tap layers (0.77-0.99), 0.22-0.92
      at <= 256 but for three 11-tap ones (1.5-1.6); one output channel 1.46-2.5x at one
      thread, 0.92-1.43x at two. Whole DAC at two threads: 625 ms with GEMM on its nine wide
      convolutions, 762 ms all direct.
    - Zen 4 class (AVX512-BF16 without AMX or AVX512-FP16), any thread count: GEMM from 1024
      input channels on and for one output channel, else direct. Tuned per layer on a 2-core
      AMD EPYC Zen 4 (2026-12-04; every conv layer of Mimi, EnCodec, DAC, HiFi-GAN, 1 and 2
      threads), direct / GEMM: 1.23-1.43x at 1024-1536 channels over 87 rows (DAC), 0.9x on
      Mimi's 26-row 1024 -> 4096 2-tap layer; 0.95-1.03x at 512-768; 0.60-0.91x at <= 384.
      One output channel (the depthwise + channel-sum form): 2.9-3.8x at one thread,
      1.0-1.8x at two.
    - Other AVX-512 CPUs, two threads or more: direct. Each tap's GEMM and add is a node, and
      every node ends in a thread-pool barrier: on a 2-core Zen 4 conv-as-gemm slowed Mimi by
      46% and EnCodec by 5% at two threads (issue 10), against 6-12% at one.
    - The one-output-channel form (depthwise + channel sum) elsewhere: measured on AVX2, Intel
      AVX-512 and Zen 4 only; direct.
    """
    x86 = target.arch == "x86_64"
    if not (x86 and target.has("avx2") and target.has("fma3")):
        return Choice("direct", "conv-as-gemm measured on x86-64 AVX2/FMA3 and AVX-512 only")
    if not target.has("avx512f"):
        return Choice("gemm", "AVX2/FMA3: XNNPACK's IGEMM spills, its GEMM does not (1.7-2x)")
    intel = _intel_since_sapphire_rapids(target)
    threads = f"{target.threads} thread" + ("s" if target.threads > 1 else "")
    if _zen4_like(target):
        where = f"AVX-512 (Zen 4 class), {threads}"
        if layer.out_channels == 1:
            return Choice("gemm", f"{where}, one output channel: 1.0-3.8x")
        return _by_input_channels(where, layer, ZEN4_MIN_INPUT_CHANNELS, ": 1.2-1.4x")
    where = f"AVX-512{' (AMX/FP16)' if intel else ''}, {threads}"
    if target.threads > 1 and not intel:
        return Choice("direct", f"{where}: the taps' nodes are thread-pool barriers (Zen 4: "
                      "-46% on Mimi at 2 threads)")  # fmt: skip
    if layer.out_channels == 1:
        if intel and target.threads == 1:
            return Choice("gemm", f"{where}, one output channel: 1.46-2.5x")
        why = "0.92-1.43x, no clear gain" if intel else "not measured on this CPU class"
        return Choice("direct", f"{where}, one output channel: {why}")
    return _by_input_channels(where, layer, AVX512_MIN_INPUT_CHANNELS)


def _by_input_channels(where: str, layer: ConvLayer, least: int, gain: str = "") -> Choice:
    """GEMM from `least` input channels on, else direct; `gain`: said of the GEMM."""
    if layer.in_channels >= least:
        return Choice("gemm", f"{where}, {layer.in_channels} >= {least} input channels{gain}")
    return Choice("direct", f"{where}, {layer.in_channels} < {least} input channels")


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
    if not _intel_since_sapphire_rapids(target):
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
        return Choice("native", "arm64 FP16 arithmetic; unmeasured on arm64", measured=False)
    return Choice("fp32", "no XNNPACK fp16 arithmetic path for this CPU")


def fp16_compute(target: Target, layer: Fp16Layer | Fp16Region) -> Choice:
    """Per region (per layer in IR whose layers' recorded decisions disagree), the
    module-wide fp16 rule (`fp16_native`): measured for whole models only; the tuner finds
    the regions where the other form wins (XNNPACK's fp16 GEMM on AVX512-FP16)."""
    return fp16_native(target)


# nearest x2 upsample: the copies (concatenate + depth-to-space) from this many channels and
# up to this input size.
UPSAMPLE_MIN_CHANNELS = 2
UPSAMPLE_MAX_INPUT_BYTES = 512 * 1024


def copies_are_faster(
    shape: tuple[int, ...],
    elem_bytes: int,
    min_channels: int = UPSAMPLE_MIN_CHANNELS,
    max_input_bytes: int = UPSAMPLE_MAX_INPUT_BYTES,
) -> bool:
    """Whether concatenate + depth_to_space beats the broadcast for an NHWC input, one
    thread (`upsample_nearest`)."""
    return shape[3] >= min_channels and math.prod(shape) * elem_bytes <= max_input_bytes


@unmeasured_on_arm64
def upsample_nearest(target: Target, layer: UpsampleLayer) -> Choice:
    """Concatenate + depth-to-space ("depth-to-space") or the broadcast conversion emits.

    `rewrites_bench --sweep` (C = 1..64, H = W = 16..128, f32 and f16, one thread, on the
    Sapphire Rapids-class Xeon): the copies win up to 512 KiB of input (1.0-1.9x); the
    broadcast wins for one channel (depth-to-space then moves single elements: 0.65-0.98x)
    and often from 1-2 MiB on (the copies write the output's size twice: down to 0.5x).
    Not thread-aware: `xnn-tune` on the same Xeon at 2 threads still found the copies faster
    on 3 of MI-GAN's 4 upsamples (1.25-1.27x; 0.79x on the 64x64x3 one, 0.1 ms).
    """
    c = layer.shape[3]
    size = math.prod(layer.shape) * layer.elem_bytes
    if copies_are_faster(layer.shape, layer.elem_bytes):
        return Choice("depth-to-space", f"{c} channels, {size} <= {UPSAMPLE_MAX_INPUT_BYTES} "
                      "input bytes (1.0-1.9x, Sapphire Rapids)")  # fmt: skip
    if c < UPSAMPLE_MIN_CHANNELS:
        return Choice("broadcast", f"{c} channel: depth-to-space moves single elements")
    return Choice("broadcast", f"{size} > {UPSAMPLE_MAX_INPUT_BYTES} input bytes: the copies "
                  "write the output twice")  # fmt: skip


# Dense kernels padded to a multiple of the stride, measured (polyphase_bench `pad` rows,
# deconvolution / polyphase time, fp32 and fp16): 1-D k7 s4 (8/7 of the taps) 1.19, 1.48;
# 1-D k3 s2 (4/3) 1.06, 1.26; 2-D k5 s2 (36/25) 0.94, 1.21; 2-D k3 s2 (16/9) 0.73, 0.96.
# Depthwise, 2-D k3 s2: 16.8, 13.5.
MAX_KERNEL_GROWTH = 1.4


@unmeasured_on_arm64
def polyphase(target: Target, layer: DeconvLayer) -> Choice:
    """Stride-1 convolutions over the output phases ("polyphase") or XNNPACK's deconvolution.
    The rule never picks "per-phase" (one dense convolution per run of output phases, no
    crop): the rewrite takes it where the single convolution's crop cannot follow a symbolic
    size, and the tuner times it where it fits (`transforms/polyphase.py: forms`).

    `polyphase_bench` (1 thread, fp32 / fp16, this project's x86-64 machines; README's
    per-layer table): 1.15-1.95x on dense upsamplers whose kernel is a multiple of the
    stride, 3.4-16x on depthwise ones (XNNPACK's depthwise deconvolution is a grouped GEMM
    with one channel per group); a dense kernel zero-padded to a multiple of the stride
    pays while it grows by at most `MAX_KERNEL_GROWTH` (above). XNNPACK's deconvolution
    kernels are the same IGEMM family on every ISA, so the rule is not per ISA.
    """
    if layer.depthwise:
        return Choice("polyphase", "depthwise: XNNPACK's depthwise deconvolution is slow (3-16x)")
    growth = layer.kernel_growth
    if growth > MAX_KERNEL_GROWTH:
        return Choice("deconvolution", f"padding the kernel to the stride grows it "
                      f"{growth:.2f}x > {MAX_KERNEL_GROWTH}")  # fmt: skip
    return Choice("polyphase", f"dense, kernel growth {growth:.2f}x <= {MAX_KERNEL_GROWTH} "
                  "(1.15-1.95x)")  # fmt: skip


# Below this many rows a fully-connected layer reads its weights once per call and does
# little arithmetic on each byte (2 x rows flops per fp32 weight): its time is the weights'
# read, from memory wherever the model's weights outgrow the last-level cache.
STREAMING_ROWS = 8


@unmeasured_on_arm64
def fc_or_bmm(target: Target, layer: LinearLayer) -> Choice:
    """A fully-connected node or a batch matmul with a constant (packed) right-hand side.

    Both run XNNPACK's GEMM microkernels on weights packed once; the fully-connected node
    also fuses the bias and clamp, and its packed weights are in the weights cache (a batch
    matmul's are the operator's: not saved with the program, so `load` packs them again).
    Timed on the Sapphire Rapids-class Xeon (1 thread, f32, `xnn-tune{form=fc-or-bmm}`'s
    timer): M x K x N = 1x2048x2048 1.00x, 8x512x512 0.91x, 64x512x256 1.00x, 256x1024x1024
    1.05x (fc / bmm time): bmm at best 5% ahead.

    Fewer rows than `STREAMING_ROWS` are not tuned: timed alone the layer's weights stay in
    the cache between repeats, which in a model larger than the cache they do not. On a
    Zen 4 (AVX-512, 1 thread) the tuner timed 1x2048x2048 at bmm 0.248 / fc 0.270 ms, and 7
    such layers (112 MiB) ran 4.82 ms as batch matmuls against 4.38 as fully-connected nodes
    (median of 30 alternating rounds).
    """
    if layer.rows < STREAMING_ROWS:
        return Choice("fc", f"{layer.rows} < {STREAMING_ROWS} rows: the weights' read, "
                      "from memory in a model larger than the cache (not timed alone)")  # fmt: skip
    return Choice("fc", "same GEMM kernels; the fully-connected node fuses bias and clamp")


# The least gain in packed multiply-accumulates at which the space-to-depth form pays for its
# pad and transpose (below).
MIN_SPACE_TO_DEPTH_GAIN = 1.25


@unmeasured_on_arm64
def space_to_depth(target: Target, layer: StemLayer) -> Choice:
    """A strided int8 convolution over few input channels: direct, or as a stride-1
    convolution over the stride x stride blocks of its padded input
    (`transforms/space_to_depth.py`).

    XNNPACK's int8 IGEMM kernels take each tap's input channels in groups of `kr` (8 in
    92a7ad50's x86 int8 kernels, AVX2 to AVX512-VNNI; 4 in arm64's dot-product ones), so a
    tap over 3 channels computes 8. Over blocks, a 7x7 stride-2 kernel is 4x4 taps of 12
    channels (16): 256 against 392 packed multiply-accumulates per output. Measured (AMD
    EPYC Zen 3, AVX2, 1 thread, `xnnc.compile` of one PT2E layer at 224x224): ResNet's
    7x7/2 3 -> 64, 1.53x fewer: the convolution 6.5-6.9 -> 4.3-4.9 ms, with the pad and
    transpose 7.5-8.0 -> 5.2-5.4 ms; MobileNetV2's 3x3/2 3 -> 32, 1.13x fewer: 0.84 -> 0.77
    ms, no gain with them (1.19 -> 1.22 ms). Takes the blocks from a gain of
    `MIN_SPACE_TO_DEPTH_GAIN` (1.25x) on. arm64: the same count with kr 4, not measured.
    fp32 has no such padding (XNNPACK's fp32 IGEMM takes any channel count) and measured
    slower over blocks (6.5 -> 8.4 ms): the rewrite takes int8 layers only."""
    kr = 4 if target.arch == "arm64" else 8
    direct, blocked = layer.packed_macs_per_output(kr)
    gain = direct / blocked
    why = f"int8 taps padded to {kr} channels: {direct} -> {blocked} MACs per output ({gain:.2f}x)"
    if gain >= MIN_SPACE_TO_DEPTH_GAIN:
        return Choice("space-to-depth", f"{why} >= {MIN_SPACE_TO_DEPTH_GAIN}")
    return Choice("direct", f"{why} < {MIN_SPACE_TO_DEPTH_GAIN}")


@unmeasured_on_arm64
def depthwise_rows(target: Target, layer: RowLayer) -> Choice:
    """A depthwise convolution or a pooling over a 1-D signal: along the width of one row
    ([N, 1, W, C], 1 x k, as converted), or down W rows of one pixel ([N, W, 1, C], k x 1;
    `transforms/depthwise_rows.py`).

    XNNPACK 92a7ad50 splits a depthwise convolution among threads by output rows (batch x
    height) only, so one row runs on one thread whatever the thread count; over rows each
    thread takes a share, but every row is a call of the kernel for one pixel. Measured on
    the AMD EPYC Zen 4 (AVX-512; `xnnc.compile` of one layer, the node's profile, f32
    1x24960x64 k7, Mimi's last layer): 1 thread 0.73 ms in one row, 0.85 over rows; 2
    threads 0.75 in one row, 0.44 over rows. So rows when the threads outnumber the batch
    (the rows of the width form: threads beyond it idle), else the width. Max and average
    pooling split the same way (1x24000x64, same CPU: max k4 s2 0.33 ms, average k3 0.41,
    at 1 and at 2 threads alike; over rows at 2 threads 0.19 and 0.26 ms)."""
    if target.threads > layer.batch:
        return Choice("rows", f"{target.threads} threads > batch {layer.batch}: XNNPACK splits "
                      "depthwise convolutions and poolings by output rows only")  # fmt: skip
    return Choice("width", f"{target.threads} thread(s) <= batch {layer.batch}: the batch "
                  "splits the work; one kernel call per row, not per pixel")  # fmt: skip


LSTM_LOOP_MEASURED = (
    "as fast as unrolled and lighter: EnCodec 24 kHz decoder on AMD EPYC Zen 3 (AVX2), "
    "1 thread, loop / unrolled time 0.99 at 75 frames, 1.01 at 4; compile 12.3 -> 2.2 s"
)


def lstm_loop(target: Target, disable: Collection[str] = ()) -> Choice:
    """A static LSTM: kept whole for xnnc's recurrent loop (`xnnc.program.lstm_loop`: per layer one
    input projection of all frames, then runtimes of 8, 4, 2, 1 unrolled steps sharing one
    packed W_hh) or one `xnn.lstm` in the subgraph, whose serialized blob holds one copy of
    the step's nodes per frame. The loop's runtimes are stock XNNPACK nodes, built where the
    program runs (whatever CPU it was compiled for). On the stock runtime the `.pte` runs
    the LSTM the same way, as calls of one step delegate per frame (`xnnc.pte.lstm_calls`),
    so a program compiled for it loops too, unless `lstm-step-calls` is disabled (the
    `.pte`'s steps are then nodes of one delegate). `disable=("lstm-loop",)` unrolls."""
    if "lstm-loop" in disable:
        return Choice("unrolled", "lstm-loop disabled")
    if target.runtime != "extended" and "lstm-step-calls" in disable:
        return Choice("unrolled", "lstm-step-calls disabled: the stock runtime's .pte unrolls")
    if target.runtime != "extended":
        return Choice("loop", f"as the .pte's calls of one step delegate; {LSTM_LOOP_MEASURED}")
    return Choice("loop", LSTM_LOOP_MEASURED)
