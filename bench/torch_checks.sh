# torch_checks.sh - sourced by the benchmark scripts that run PyTorch beside
# Spectral: stops the script with a message saying how to fix what is missing.

# need_torch SCRIPT PYTHON: PYTHON must import torch.
need_torch() {
  if ! "$2" -c "import torch" 2>/dev/null; then
    echo "$1: PyTorch is not importable by $2 (python3 -m venv /tmp/torchenv &&" \
         "/tmp/torchenv/bin/pip install torch, then PYTHON=/tmp/torchenv/bin/python)" >&2
    exit 1
  fi
}

# need_binary SCRIPT PATH: the built program PATH must exist.
need_binary() {
  if [ ! -x "$2" ]; then
    echo "$1: $2 is missing: build first (scripts/dev build)" >&2
    exit 1
  fi
}
