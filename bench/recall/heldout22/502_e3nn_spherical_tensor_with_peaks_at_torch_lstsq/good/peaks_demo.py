import torch

from spherical_tensor import SphericalTensor


def main():
    s = SphericalTensor(2, p_val=1, p_arg=-1)
    positions = torch.tensor([[1.0, 0.0, 0.0], [0.0, 3.0, 4.0]])
    coefficients = s.with_peaks_at(positions)
    print("coefficients:", coefficients)
    print("signal at the peaks:", s.signal_xyz(coefficients, positions))

    heights = torch.tensor([-1.5, 2.0])
    coefficients = s.with_peaks_at(positions, heights)
    print("signal with given heights:", s.signal_xyz(coefficients, positions))


if __name__ == "__main__":
    main()
