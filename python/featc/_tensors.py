"""NumPy arrays as torch tensors, for featc.torch and featc.torch_segments."""
import numpy as np
import torch

# PyTorch before 2.3 has no uint16 tensor: a column `as uint16` is widened
# to int32 there (the same values; a copy).
WIDEN_U16 = not hasattr(torch, "uint16")


def tensor(a):
    """a as a tensor over its memory (a uint16 array widened, see above);
    anything else as it is."""
    if isinstance(a, np.ndarray) and WIDEN_U16 and a.dtype == np.uint16:
        a = a.astype(np.int32)
    return torch.from_numpy(a) if isinstance(a, np.ndarray) else a
