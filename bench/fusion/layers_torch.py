#!/usr/bin/env python3
"""layers_torch.py - PyTorch on the CPU on two graphs of the host-speed issue,
the same shapes as their .mlir files, for bench/fusion/vs_torch.sh:

  rfft2    bench/fft/rfft2_images.mlir: rfft2 of 128 x 28 x 28 float32 images;
  fno2d    bench/fusion/fno2d_layer.mlir: the 2-D FNO layer (rfft2, the two
           corners of 12 x 12 modes, channel mixing, zero padding back,
           irfft2, bias, GELU), batch 16, 32 -> 32 channels, 64 x 64.

Prints "NAME MIN_MS MEDIAN_MS" per graph: wall time of the eager forward
pass, inputs already in memory, results left as tensors.

    python3 layers_torch.py [--runs=N] [--threads=T]
"""
import sys
import time

import torch


def timed(fn, runs):
    fn()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[0], times[len(times) // 2]


def fno2d(x, w_low, w_high, bias):
    spectrum = torch.fft.rfft2(x)                      # [16, 32, 64, 33]
    low = spectrum[:, :, :12, :12]
    high = spectrum[:, :, 52:, :12]
    mixed_low = torch.einsum("bixy,ioxy->boxy", low, w_low)
    mixed_high = torch.einsum("bixy,ioxy->boxy", high, w_high)
    full = torch.zeros(16, 32, 64, 33, dtype=spectrum.dtype)
    full[:, :, :12, :12] = mixed_low
    full[:, :, 52:, :12] = mixed_high
    y = torch.fft.irfft2(full, s=(64, 64))
    return torch.nn.functional.gelu(y + bias)


def main(argv):
    runs, threads = 20, 2
    for arg in argv:
        if arg.startswith("--runs="):
            runs = int(arg.split("=", 1)[1])
        elif arg.startswith("--threads="):
            threads = int(arg.split("=", 1)[1])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    images = torch.rand(128, 28, 28) * 2 - 1
    x = torch.rand(16, 32, 64, 64) * 2 - 1
    w_low = torch.randn(32, 32, 12, 12, dtype=torch.complex64) * 0.1
    w_high = torch.randn(32, 32, 12, 12, dtype=torch.complex64) * 0.1
    bias = torch.rand(32, 1, 1)
    with torch.no_grad():
        for name, fn in (("rfft2", lambda: torch.fft.rfft2(images)),
                         ("fno2d", lambda: fno2d(x, w_low, w_high, bias))):
            low, mid = timed(fn, runs)
            print(f"{name} {low:.3f} {mid:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
