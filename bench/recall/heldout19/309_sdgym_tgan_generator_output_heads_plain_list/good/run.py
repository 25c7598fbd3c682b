import numpy as np

from tgan import TganSynthesizer

META = [{"type": "continuous"}, {"type": "categorical", "size": 4}, {"type": "continuous"}]


def main():
    rng = np.random.default_rng(0)
    data = np.stack([rng.normal(size=5000), rng.integers(0, 4, size=5000), rng.exponential(size=5000)], axis=1)
    synthesizer = TganSynthesizer(META, "runs/tgan", epochs=20)
    synthesizer.fit(data)
    print(synthesizer.sample(1000)[:5])


if __name__ == "__main__":
    main()
