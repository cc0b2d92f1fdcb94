"""The training examples in python/examples, shortened: each loss falls
as far as its docstring says a run of that length takes it."""
import importlib.util
import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_on_two_spirals_learns_them():
    loss, accuracy = load("mlp_spirals").train(steps=400, verbose=False)
    assert loss < 0.05
    assert accuracy >= 0.99


def test_cnn_on_bars_learns_them_with_adam():
    loss, accuracy = load("cnn_bars").train(steps=100, verbose=False)
    assert loss < 0.05
    assert accuracy >= 0.98


def test_data_parallel_mlp_matches_one_device():
    example = load("mlp_data_parallel")
    loss, _, identical, difference = example.train(devices=2, steps=200,
                                                   verbose=False)
    assert identical  # bit for bit on every device
    assert difference < example.TOLERANCE["float64"]
    assert loss < 0.2
    # float32: one ulp a step, before training amplifies it.
    _, _, identical, difference = example.train(devices=4, steps=50,
                                                dtype="float32", verbose=False)
    assert identical
    assert difference < 1e-5
