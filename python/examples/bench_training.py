"""One training step of the examples' models, mxla against torch 1.13 in
the same process, at the thread count given (median of the timed steps,
milliseconds).

    MXLA_THREADS=1 PYTHONPATH=build/python python3 python/examples/bench_training.py --threads 1
    MXLA_THREADS=2 PYTHONPATH=build/python python3 python/examples/bench_training.py --threads 2

mxla's step is mlp_spirals.sgd_step (value_and_grad under jit, the
parameters donated); torch's is the same MLP (2-64-64-2, batch 512,
softmax cross-entropy, SGD) with autograd and in-place updates.
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    threads = parser.parse_args().threads
    torch.set_num_threads(threads)
    mxla_step, torch_step = mlp_steps()
    mx, tc = median_ms(mxla_step), median_ms(torch_step)
    print(f"| MLP step (2-64-64-2, batch 512) | {threads} | {mx:.3f} | "
          f"{tc:.3f} | {mx / tc:.2f} |")


if __name__ == "__main__":
    main()
