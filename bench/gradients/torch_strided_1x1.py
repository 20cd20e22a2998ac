"""PyTorch's float32 CPU filter gradient of a 1×1 stride-2 convolution whose input is channels-last
(a permuted view, as compare.py's models read ein's NHWC tensors) against its float64 one, on
random data; and the same with a contiguous input, which agrees. compare.py runs PyTorch in float64
for this reason. Prints the largest differences; exits 1 where the float32 channels-last gradient
agrees (the defect is gone and compare.py may go back to float32).

    python3 bench/gradients/torch_strided_1x1.py
"""
import torch


def filter_gradient_error(x, w, seed):
    """The largest difference of the float32 filter gradient from the float64 one."""
    want, = torch.autograd.grad(torch.nn.functional.conv2d(x.double(), w.double(), stride=2), [w], seed.double())
    got, = torch.autograd.grad(torch.nn.functional.conv2d(x, w, stride=2), [w], seed)
    return (got.double() - want).abs().max().item(), want.abs().max().item()


def main():
    torch.manual_seed(0)
    w = torch.randn(8, 4, 1, 1, requires_grad=True)
    seed = torch.randn(2, 8, 4, 4)
    contiguous = torch.randn(2, 4, 8, 8)
    channels_last = torch.randn(2, 8, 8, 4).permute(0, 3, 1, 2)
    for name, x in (("contiguous", contiguous), ("channels-last", channels_last)):
        error, largest = filter_gradient_error(x, w, seed)
        print(f"torch {torch.__version__}, {name:13} input: float32 filter gradient off by {error:.3g} "
              f"(largest magnitude {largest:.3g})")
    error, largest = filter_gradient_error(channels_last, w, seed)
    raise SystemExit(0 if error > 1e-3 * largest else 1)


if __name__ == "__main__":
    main()
