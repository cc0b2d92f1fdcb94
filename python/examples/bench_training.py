"""One training step of the examples' models, mxla against torch 1.13 in
the same process, at the thread count given (median of the timed steps,
milliseconds).

    MXLA_THREADS=1 PYTHONPATH=build/python python3 python/examples/bench_training.py --threads 1
    MXLA_THREADS=2 PYTHONPATH=build/python python3 python/examples/bench_training.py --threads 2

MLP: mlp_spirals.sgd_step (value_and_grad under jit, the parameters
donated) against the same MLP (2-64-64-2, batch 512, softmax
cross-entropy, SGD) with autograd and in-place updates. CNN:
cnn_bars.adam_step (conv 3x3 1->8, relu, max pool 2x2, dense to 4, batch
64 of 12x12 images, Adam) against the same model and torch.optim.Adam.
"""
import argparse
import importlib.util
import pathlib
import statistics
import time

import numpy as np
import torch

HERE = pathlib.Path(__file__).resolve().parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def median_ms(step, warmup=20, runs=200):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def mlp_steps():
    mlp = load("mlp_spirals")
    x, onehot = mlp.two_spirals(256)
    params = mlp.init_params([2, 64, 64, 2])
    lr = np.float32(0.3)
    state = {"params": params}

    def mxla_step():
        state["params"], _ = mlp.sgd_step(state["params"], x, onehot, lr)

    weights = [torch.tensor(layer[k]).requires_grad_() for layer in
               mlp.init_params([2, 64, 64, 2]) for k in ("w", "b")]
    tx, labels = torch.tensor(x), torch.tensor(onehot.argmax(1))

    def torch_step():
        h = tx
        for i in range(0, len(weights) - 2, 2):
            h = torch.relu(h @ weights[i] + weights[i + 1])
        loss = torch.nn.functional.cross_entropy(h @ weights[-2] + weights[-1], labels)
        for w in weights:
            w.grad = None
        loss.backward()
        with torch.no_grad():
            for w in weights:
                w -= 0.3 * w.grad

    return mxla_step, torch_step


def cnn_steps():
    cnn = load("cnn_bars")
    images, labels = cnn.bars(64, np.random.default_rng(0))
    labels = labels.astype(np.int32)
    params = cnn.init_params()
    state = {"params": params, "adam": cnn.adam_init(params)}

    def mxla_step():
        state["params"], state["adam"], _ = cnn.adam_step(
            state["params"], state["adam"], images, labels)

    conv = torch.nn.Conv2d(1, cnn.FEATURES, 3, padding=1)
    dense = torch.nn.Linear((cnn.SIZE // 2) ** 2 * cnn.FEATURES, cnn.CLASSES)
    optimizer = torch.optim.Adam(list(conv.parameters()) + list(dense.parameters()),
                                 lr=1e-2)
    timages = torch.tensor(images).permute(0, 3, 1, 2).contiguous()
    tlabels = torch.tensor(labels).long()

    def torch_step():
        h = torch.nn.functional.max_pool2d(torch.relu(conv(timages)), 2)
        loss = torch.nn.functional.cross_entropy(dense(h.flatten(1)), tlabels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return mxla_step, torch_step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    threads = parser.parse_args().threads
    torch.set_num_threads(threads)
    for name, steps in [("MLP step (2-64-64-2, batch 512, SGD)", mlp_steps),
                        ("CNN step (conv-relu-pool-dense, batch 64, Adam)", cnn_steps)]:
        mxla_step, torch_step = steps()
        mx, tc = median_ms(mxla_step), median_ms(torch_step)
        print(f"| {name} | {threads} | {mx:.3f} | {tc:.3f} | {mx / tc:.2f} |")


if __name__ == "__main__":
    main()
