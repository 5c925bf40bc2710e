"""Writes a PT2E-quantized (XNNPACKQuantizer, per-channel) conv + relu as a .pt2, for
lit_tests/frontend/import-quantized.mlir: python make_quantized_pt2.py OUT.pt2"""

import sys

import torch

from xnnc.examples.quantized_models import quantize

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 1), torch.nn.ReLU()).eval()
torch.export.save(quantize(model, (torch.randn(1, 1, 4, 4),)), sys.argv[1])
