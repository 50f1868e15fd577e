#!/usr/bin/env python3
"""fft_torch.py - PyTorch's FFT (cuFFT on a GPU) on the shapes spectral-fft-bench
times: batches of complex64 transforms totalling 2^22 points, lengths 256, 4096
and 65536. Prints, per length, the median milliseconds of the transform alone
(CUDA events), of the transform with the input copied in and the result copied
out (what spectral-fft-bench's figure includes), and a device-to-device copy of
the same bytes, with the GB/s each reaches counting bytes read and written.

    python3 fft_torch.py [--device=cuda|cpu] [--runs=N]
"""
import sys
import time

import torch


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def timed(fn, runs, device):
    fn()  # warm-up (plans, allocations)
    times = []
    for _ in range(runs):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1e3)
    return median(times)


def main():
    device, runs = ("cuda" if torch.cuda.is_available() else "cpu"), 20
    for arg in sys.argv[1:]:
        if arg.startswith("--device="):
            device = arg.split("=", 1)[1]
        elif arg.startswith("--runs="):
            runs = int(arg.split("=", 1)[1])
        else:
            sys.exit(f"fft_torch.py: unknown argument {arg!r}")
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    print(f"torch {torch.__version__} on {name}")
    print(f"{'length':>8} {'batch':>6} {'fft ms':>9} {'GB/s':>7} {'copy ms':>9} {'GB/s':>7}"
          f" {'with h2d+d2h ms':>16}")
    for n in (256, 4096, 65536):
        batch = max(1, (1 << 22) // n)
        host = torch.randn(batch, n, dtype=torch.complex64).pin_memory() if device == "cuda" \
            else torch.randn(batch, n, dtype=torch.complex64)
        x = host.to(device)
        out = torch.empty_like(x)
        fft = timed(lambda: torch.fft.fft(x, dim=1), runs, device)
        copy = timed(lambda: out.copy_(x), runs, device)
        whole = timed(lambda: torch.fft.fft(host.to(device), dim=1).cpu(), runs, device)
        moved = 2 * x.numel() * x.element_size() / 1e9
        print(f"{n:>8} {batch:>6} {fft:>9.3f} {moved / fft * 1e3:>7.0f} {copy:>9.3f}"
              f" {moved / copy * 1e3:>7.0f} {whole:>16.3f}")


if __name__ == "__main__":
    main()
