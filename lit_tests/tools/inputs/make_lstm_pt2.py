"""Writes a 1-layer LSTM (4 -> 8, 3 frames) as a .pt2, for
lit_tests/tools/xnn_opt_loop_lstms.mlir: python make_lstm_pt2.py OUT.pt2"""

import sys

import torch


class Lstm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lstm(x)[0]


torch.manual_seed(0)
torch.export.save(torch.export.export(Lstm().eval(), (torch.randn(3, 1, 4),)), sys.argv[1])
