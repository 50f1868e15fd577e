"""Replaces the payload of every kernel cache entry in a directory with bytes
that are no shared object, keeping the entry valid (size and SHA-256 in the
header recomputed): the checksum passes, the load fails.
Entry header (runtime/cache/disk_store.h): magic 8, version 4, header size 4,
payload size 8, key SHA-256 32, payload SHA-256 32, then the payload."""
import hashlib
import pathlib
import struct
import sys

count = 0
for entry in sorted(pathlib.Path(sys.argv[1]).glob("*.bin")):
    header = bytearray(entry.read_bytes()[:88])
    payload = b"not a shared object\n" * 4
    header[16:24] = struct.pack("<Q", len(payload))
    header[56:88] = hashlib.sha256(payload).digest()
    entry.write_bytes(bytes(header) + payload)
    count += 1
print("garbled %d entries" % count)
