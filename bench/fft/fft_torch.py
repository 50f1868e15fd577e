#!/usr/bin/env python3
"""fft_torch.py - PyTorch's FFT (cuFFT on a GPU) on the shapes spectral-fft-bench
times (C2C of lengths 256 to 2^22 and 2-D 1024 x 1024, R2C of lengths 256 to
65536; 2^22 points each). Prints, per shape, the median milliseconds of the
transform alone (CUDA events) with the GB/s it reaches counting bytes read and
written, a device-to-device copy of the input's bytes with its GB/s, and the
transform with the input copied in and the result copied out (what
spectral-fft-bench's figure includes).

    python3 fft_torch.py [--device=cuda|cpu] [--runs=N] [--threads=T] [--library=torch|pocketfft]

--threads sets torch's CPU threads (torch.set_num_threads), to compare with
the host device and FFTW on as many. On the CPU, PyTorch's FFT is MKL's where
torch was built with MKL (PyPI's x86-64 wheels are: the first line says which)
and pocketfft's otherwise; --library=pocketfft times pocketfft itself, through
SciPy's scipy.fft with --threads workers (the copy columns are then 0).
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
    library, workers = "torch", 1
    for arg in sys.argv[1:]:
        if arg.startswith("--device="):
            device = arg.split("=", 1)[1]
        elif arg.startswith("--runs="):
            runs = int(arg.split("=", 1)[1])
        elif arg.startswith("--threads="):
            workers = int(arg.split("=", 1)[1])
            torch.set_num_threads(workers)
        elif arg.startswith("--library="):
            library = arg.split("=", 1)[1]
            if library not in ("torch", "pocketfft"):
                sys.exit(f"fft_torch.py: --library takes torch or pocketfft, not {library!r}")
        else:
            sys.exit(f"fft_torch.py: unknown argument {arg!r}")
    if library == "pocketfft":
        device = "cpu"
    name = torch.cuda.get_device_name() if device == "cuda" else \
        f"cpu ({torch.get_num_threads()} threads)"
    if library == "pocketfft":
        import numpy
        import scipy
        import scipy.fft
        print(f"pocketfft (scipy {scipy.__version__}'s scipy.fft) on cpu ({workers} workers)")
    elif device == "cpu":
        backend = "MKL" if torch.backends.mkl.is_available() else "pocketfft"
        print(f"torch {torch.__version__} on {name}: its CPU FFT is {backend}'s")
    else:
        print(f"torch {torch.__version__} on {name}")
    print(f"{'transform':<22} {'fft ms':>9} {'GB/s':>7} {'copy ms':>9} {'GB/s':>7}"
          f" {'with h2d+d2h ms':>16}")
    cases = [  # the shapes spectral-fft-bench times: 2^22 points each
        ("c2c 256 x 16384", False, (16384, 256), (1,)),
        ("c2c 4096 x 1024", False, (1024, 4096), (1,)),
        ("c2c 65536 x 64", False, (64, 65536), (1,)),
        ("c2c 4194304 x 1", False, (1, 4194304), (1,)),
        ("c2c 1024x1024 x 4", False, (4, 1024, 1024), (1, 2)),
        ("r2c 256 x 16384", True, (16384, 256), (1,)),
        ("r2c 4096 x 1024", True, (1024, 4096), (1,)),
        ("r2c 65536 x 64", True, (64, 65536), (1,)),
    ]
    for label, real, shape, dims in cases:
        dtype = torch.float32 if real else torch.complex64
        host = torch.randn(*shape, dtype=dtype)
        if library == "pocketfft":
            x = host.numpy()
            transform = (lambda a: scipy.fft.rfftn(a, axes=dims, workers=workers)) if real else \
                (lambda a: scipy.fft.fftn(a, axes=dims, workers=workers))
            y = transform(x)
            assert y.dtype == numpy.complex64, f"pocketfft gave {y.dtype}, not complex64"
            fft = timed(lambda: transform(x), runs, "cpu")
            fft_bytes = (x.nbytes + y.nbytes) / 1e9
            print(f"{label:<22} {fft:>9.3f} {fft_bytes / fft * 1e3:>7.0f} {0:>9.3f} {0:>7.0f}"
                  f" {fft:>16.3f}")
            continue
        if device == "cuda":
            host = host.pin_memory()
        x = host.to(device)
        transform = (lambda t: torch.fft.rfftn(t, dim=dims)) if real else \
            (lambda t: torch.fft.fftn(t, dim=dims))
        y = transform(x)
        out = torch.empty_like(x)
        fft = timed(lambda: transform(x), runs, device)
        copy = timed(lambda: out.copy_(x), runs, device)
        whole = timed(lambda: transform(host.to(device)).cpu(), runs, device)
        fft_bytes = (x.numel() * x.element_size() + y.numel() * y.element_size()) / 1e9
        copy_bytes = 2 * x.numel() * x.element_size() / 1e9
        print(f"{label:<22} {fft:>9.3f} {fft_bytes / fft * 1e3:>7.0f} {copy:>9.3f}"
              f" {copy_bytes / copy * 1e3:>7.0f} {whole:>16.3f}")

if __name__ == "__main__":
    main()
