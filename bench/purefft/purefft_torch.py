"""PureFFT on Fashion-MNIST in PyTorch eager mode: the same model, data and
schedule as examples/purefft (rfft2 features standardised with the training
set's statistics, cosine x 0.02 initialisation, per-layer softmax pattern
selection, cross-entropy, Adam, batches of a seeded shuffle, the last
partial batch left out, test accuracy after every epoch), for
bench/purefft/compare.sh to time side by side with Spectral.

--form=seed (the default) writes each layer as the seed states it: the
features [B, 1, F] times the weighted patterns [P, F], summed over P, which
forms a B x P x F tensor per layer; the class scores likewise form
B x 10 x F. That is the graph Spectral's simplifier rewrites. --form=scale
writes by hand what the simplifier finds: each layer a scale of the
features, the class scores a matmul.

Prints one line per epoch, "epoch N: ... S s (R examples/s)", and
"seconds per epoch: S" (the mean) at the end.

  python3 bench/purefft/purefft_torch.py [--epochs=1] [--form=seed|scale] [--data=DIR]
Needs PyTorch (pip install torch); no numpy.
"""
import argparse
import gzip
import math
import os
import struct
import sys
import time
import warnings

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # not needed here
try:
    import torch
except ImportError:
    sys.exit("purefft_torch.py: PyTorch is not installed for %s (python3 -m venv /tmp/torchenv && "
             "/tmp/torchenv/bin/pip install torch, then PYTHON=/tmp/torchenv/bin/python)" % sys.executable)

CLASSES, ROWS, COLS = 10, 28, 28
FEATURES = 2 * ROWS * (COLS // 2 + 1)  # 840
EVAL_BATCH = 500


def read_idx(path, magic, header):
    """The payload of a gzip-compressed IDX file after its header."""
    try:
        with gzip.open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        sys.exit("purefft_torch.py: %s: %s (install dataset-fashion-mnist or pass --data=DIR)" %
                 (path, error))
    fields = struct.unpack(">%dI" % header, data[:4 * header])
    if fields[0] != magic:
        sys.exit("purefft_torch.py: %s: not an IDX file of this kind" % path)
    return fields, data[4 * header:]


def load(directory, split):
    (_, count, rows, cols), pixels = read_idx(
        os.path.join(directory, split + "-images-idx3-ubyte.gz"), 2051, 4)
    (_, labels_count), labels = read_idx(
        os.path.join(directory, split + "-labels-idx1-ubyte.gz"), 2049, 2)
    if (rows, cols) != (ROWS, COLS) or labels_count != count:
        sys.exit("purefft_torch.py: %s: unexpected shapes" % split)
    images = torch.frombuffer(bytearray(pixels), dtype=torch.uint8).reshape(count, ROWS, COLS)
    return images, torch.frombuffer(bytearray(labels), dtype=torch.uint8).long()


def features(images):
    spectrum = torch.fft.rfft2(images.float() / 255.0)
    return torch.cat([spectrum.real, spectrum.imag], dim=1).reshape(len(images), FEATURES)


def cosine_init(rows):
    i = torch.arange(rows, dtype=torch.float64).reshape(rows, 1)
    f = torch.arange(FEATURES, dtype=torch.float64).reshape(1, FEATURES)
    return (torch.cos(2 * math.pi * i * f / rows) * 0.02).float().requires_grad_()


def scores(x, pool, layers, classes, form):
    if form == "scale":
        h = x
        for l in range(layers.shape[0]):
            weights = torch.softmax((pool * layers[l:l + 1]).sum(1, keepdim=True), dim=0)
            h = h * (pool * weights).sum(0)
        return h @ classes.t()
    h = x.reshape(len(x), 1, FEATURES)
    for l in range(layers.shape[0]):
        selector = layers[l:l + 1]
        weights = torch.softmax((pool * selector).sum(1, keepdim=True), dim=0)  # [P, 1]
        weighted = pool * weights                                                # [P, F]
        h = (h * weighted).sum(1, keepdim=True)                                  # [B, 1, F]
    return (h * classes).sum(2)                                                  # [B, 10]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--patterns", type=int, default=32)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--form", choices=["seed", "scale"], default="seed")
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    train_images, train_labels = load(args.data, "train")
    test_images, test_labels = load(args.data, "t10k")
    train_x, test_x = features(train_images), features(test_images)
    mean = train_x.double().mean(0)
    deviation = train_x.double().std(0, unbiased=False)
    scale = torch.where(deviation > 1e-6, 1.0 / deviation, torch.zeros_like(deviation))
    train_x = ((train_x - mean) * scale).float()
    test_x = ((test_x - mean) * scale).float()

    params = [cosine_init(args.patterns), cosine_init(args.layers), cosine_init(CLASSES)]
    optimizer = torch.optim.Adam(params, lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    steps = len(train_x) // args.batch
    print("PyTorch %s eager on the CPU (%d threads), form=%s" %
          (torch.__version__, torch.get_num_threads(), args.form), flush=True)
    total = 0.0
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        order = torch.randperm(len(train_x))
        loss_sum = 0.0
        for s in range(steps):
            rows = order[s * args.batch:(s + 1) * args.batch]
            loss = torch.nn.functional.cross_entropy(
                scores(train_x[rows], *params, args.form), train_labels[rows])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item()
        correct = 0
        with torch.no_grad():
            for first in range(0, len(test_x), EVAL_BATCH):
                predicted = scores(test_x[first:first + EVAL_BATCH], *params, args.form).argmax(1)
                correct += int((predicted == test_labels[first:first + EVAL_BATCH]).sum())
        seconds = time.perf_counter() - start
        total += seconds
        print("epoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s (%.0f examples/s)" %
              (epoch, loss_sum / steps, 100.0 * correct / len(test_x), seconds,
               steps * args.batch / seconds), flush=True)
    print("seconds per epoch: %.2f" % (total / args.epochs))


if __name__ == "__main__":
    main()
