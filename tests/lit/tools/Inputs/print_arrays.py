"""Prints each array of an .npz file or a directory of .npy files, read by
NumPy: name, dtype, shape and values, sorted by name (tests/lit/tools)."""
import os
import sys

import numpy

path = sys.argv[1]
if os.path.isdir(path):
    arrays = {name[:-4]: numpy.load(os.path.join(path, name))
              for name in os.listdir(path) if name.endswith(".npy")}
else:
    with numpy.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
for name in sorted(arrays):
    array = arrays[name]
    print(name, array.dtype, array.shape, array.tolist())
