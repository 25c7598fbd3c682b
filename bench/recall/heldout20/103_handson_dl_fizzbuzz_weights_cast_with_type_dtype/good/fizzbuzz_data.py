import numpy as np


def to_bits(n, width):
    bits = [int(b) for b in format(n, "b")]
    return [0] * (width - len(bits)) + bits


def from_bits(bits):
    value = 0
    for b in bits:
        value = value * 2 + int(b)
    return value


def label_of(n):
    if n % 15 == 0:
        return "fizzbuzz"
    if n % 5 == 0:
        return "buzz"
    if n % 3 == 0:
        return "fizz"
    return "number"


def one_hot_dataset(width=10, limit=1000, train_fraction=0.9, seed=0):
    names = ["fizzbuzz", "buzz", "fizz", "number"]
    x = np.array([to_bits(i, width) for i in range(limit)], dtype=np.float32)
    y = np.zeros((limit, 4), dtype=np.float32)
    for i in range(limit):
        y[i, names.index(label_of(i))] = 1.0
    order = np.random.default_rng(seed).permutation(limit)
    cut = int(train_fraction * limit)
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]
