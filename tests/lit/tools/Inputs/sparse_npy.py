"""Writes a .npy file whose header describes SHAPE (comma-separated) float32
and whose data is a hole (a sparse file: no disk space used)."""
import sys

path, shape = sys.argv[1], tuple(int(d) for d in sys.argv[2].split(","))
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
    ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
header += " " * (63 - (10 + len(header)) % 64) + "\n"
count = 1
for d in shape:
    count *= d
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    f.truncate(10 + len(header) + 4 * count)
