"""Small single-op cases shared by the frontend and backend tests: (id, fn, inputs, aten op),
and `Fn`, which makes a module of a case's function.

Inputs are fixed tensors from a seeded generator so every run sees the same numbers.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Fn(nn.Module):
    """A function as a module, for torch.export."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


X4 = torch.randn(2, 3, 8, 8)
X3 = torch.randn(2, 6, 20)

# (name, function, inputs, the aten op it must import as)
ELEMENTWISE = [
    ("add", lambda x, y: x + y, (X4, torch.randn(3, 1, 1)), "aten.add"),
    ("add_alpha", lambda x, y: torch.add(x, y, alpha=2), (X4, X4), "aten.add"),
    ("add_scalar", lambda x: x + 1.5, (X4,), "aten.add"),
    ("sub", lambda x, y: x - y, (X4, X4), "aten.sub"),
    ("sub_scalar", lambda x: x - 2.0, (X4,), "aten.sub"),
    ("mul_scalar", lambda x: x * 3, (X4,), "aten.mul"),
    ("div", lambda x, y: x / (y.abs() + 1), (X4, X4), "aten.div"),
    ("div_floor", lambda x: torch.div(x, 0.7, rounding_mode="floor"), (X4,), "aten.div"),
    ("pow_scalar", lambda x: x.pow(2), (X4,), "aten.pow"),
    ("pow_tensor", lambda x, y: x.abs().pow(y), (X4, X4), "aten.pow"),
    ("maximum", torch.maximum, (X4, X4.flip(0)), "aten.maximum"),
    ("minimum", torch.minimum, (X4, X4.flip(0)), "aten.minimum"),
    ("relu", F.relu, (X4,), "aten.relu"),
    ("elu", lambda x: F.elu(x, alpha=0.7), (X4,), "aten.elu"),
    ("gelu", F.gelu, (X4,), "aten.gelu"),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), (X4,), "aten.gelu"),
    ("sigmoid", torch.sigmoid, (X4,), "aten.sigmoid"),
    ("tanh", torch.tanh, (X4,), "aten.tanh"),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.5), (X4,), "aten.hardtanh"),
    ("relu6", F.relu6, (X4,), "aten.hardtanh"),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), (X4,), "aten.leaky_relu"),
    ("hardswish", F.hardswish, (X4,), "aten.hardswish"),
    ("clamp", lambda x: x.clamp(-0.3, 0.6), (X4,), "aten.clamp"),
    ("clamp_min", lambda x: x.clamp(min=0.1), (X4,), "aten.clamp"),
    ("exp", torch.exp, (X4,), "aten.exp"),
    ("log", lambda x: torch.log(x.abs() + 1), (X4,), "aten.log"),
    ("sqrt", lambda x: torch.sqrt(x.abs()), (X4,), "aten.sqrt"),
    ("rsqrt", lambda x: torch.rsqrt(x.abs() + 1), (X4,), "aten.rsqrt"),
    ("abs", torch.abs, (X4,), "aten.abs"),
    ("neg", torch.neg, (X4,), "aten.neg"),
    ("floor", torch.floor, (X4,), "aten.floor"),
    ("ceil", torch.ceil, (X4,), "aten.ceil"),
    ("round", lambda x: torch.round(x * 4), (X4,), "aten.round"),
    ("round_decimals", lambda x: torch.round(x, decimals=2), (X4,), "aten.round"),
    ("sin", torch.sin, (X4,), "aten.sin"),
    ("reciprocal", lambda x: torch.reciprocal(x.abs() + 1), (X4,), "aten.reciprocal"),
    ("where", lambda x, y: torch.where(x > 0, x, y), (X4, X4.flip(1)), "aten.where"),
]

STRUCTURAL = [
    ("softmax", lambda x: x.softmax(1), (X4,), "aten._softmax"),
    ("log_softmax", lambda x: x.log_softmax(-1), (X4,), "aten._log_softmax"),
    ("mean", lambda x: x.mean((2, 3), keepdim=True), (X4,), "aten.mean"),
    ("mean_all_dims", lambda x: x.mean(-1), (X3,), "aten.mean"),
    ("sum", lambda x: x.sum(1), (X4,), "aten.sum"),
    ("amax", lambda x: x.amax(-1, keepdim=True), (X4,), "aten.amax"),
    ("mm", torch.mm, (torch.randn(4, 5), torch.randn(5, 6)), "aten.mm"),
    ("bmm", torch.bmm, (torch.randn(2, 4, 5), torch.randn(2, 5, 6)), "aten.bmm"),
    ("addmm", lambda a, b, c: torch.addmm(a, b, c, beta=0.5, alpha=2),
     (torch.randn(6), torch.randn(4, 5), torch.randn(5, 6)), "aten.addmm"),
    ("view", lambda x: x.reshape(2, -1), (X4,), "aten.view"),
    ("permute", lambda x: x.permute(0, 2, 3, 1), (X4,), "aten.permute"),
    ("squeeze", lambda x: x[:, :1].squeeze(1), (X4,), "aten.squeeze"),
    ("unsqueeze", lambda x: x.unsqueeze(1), (X3,), "aten.unsqueeze"),
    ("expand", lambda x: x[:, :1].expand(2, 5, 8, 8), (X4,), "aten.expand"),
    ("slice", lambda x: x[:, :, 1:7:2], (X4,), "aten.slice"),
    ("cat", lambda x, y: torch.cat([x, y, x], 1), (X4, X4), "aten.cat"),
    ("flip", lambda x: torch.flip(x, (1, -1)), (X4,), "aten.flip"),
    ("split", lambda x: torch.split(x, [2, 4], 1)[1], (X3,), "aten.split_with_sizes"),
    ("constant_pad", lambda x: F.pad(x, (1, 2, 0, 3), value=0.5), (X4,), "aten.constant_pad_nd"),
    ("reflect_pad1d", lambda x: F.pad(x, (3, 2), mode="reflect"), (X3,), "aten.reflection_pad1d"),
    ("reflect_pad2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), (X4,),
     "aten.reflection_pad2d"),
    ("replicate_pad2d", lambda x: F.pad(x, (1, 0, 2, 1), mode="replicate"), (X4,),
     "aten.replication_pad2d"),
    ("max_pool", lambda x: F.max_pool2d(x, 3, 2, 1), (X4,), "aten.max_pool2d_with_indices"),
    ("max_pool_ceil", lambda x: F.max_pool2d(x, 3, 2, ceil_mode=True), (X4,),
     "aten.max_pool2d_with_indices"),
    ("avg_pool", lambda x: F.avg_pool2d(x, 2, 2), (X4,), "aten.avg_pool2d"),
    ("adaptive_avg_pool", lambda x: F.adaptive_avg_pool2d(x, (2, 4)), (X4,),
     "aten._adaptive_avg_pool2d"),
    ("upsample_nearest", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (X4,),
     "aten.upsample_nearest2d"),
    ("upsample_bilinear", lambda x: F.interpolate(x, size=(13, 11), mode="bilinear"), (X4,),
     "aten.upsample_bilinear2d"),
    ("upsample_bilinear_ac", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear",
                                                      align_corners=True), (X4,),
     "aten.upsample_bilinear2d"),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), (torch.randn(1, 8, 3, 5),),
     "aten.pixel_shuffle"),
    ("to_f16", lambda x: x.half(), (X4,), "aten._to_copy"),
    ("to_bf16_and_back", lambda x: x.bfloat16().float(), (X4,), "aten._to_copy"),
    ("layer_norm", nn.LayerNorm(20), (X3,), "aten.native_layer_norm"),
    ("prelu", nn.PReLU(6, init=-0.3), (X3,), "aten.prelu"),
    ("prelu_shared", nn.PReLU(init=0.2), (X4,), "aten.prelu"),
    ("embedding", nn.Embedding(10, 4), (torch.tensor([[1, 7, 3]]),), "aten.embedding"),
]  # fmt: skip
