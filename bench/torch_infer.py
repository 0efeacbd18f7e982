"""A stand-in for the inference-only pipeline: a ResNet-style convolutional
network in fp16 on the GPU, fed random 3x544x960 frames in batches of
--batch. Prints one `fps=<images per second>` line per window, the format
`dslint measure sweep` reads, until --seconds have passed.

    python3 bench/torch_infer.py --batch 8 --seconds 20
"""
import argparse
import time

import torch
from torch import nn


def block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


def network():
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    widths = [64, 128, 256, 512]
    cin = 64
    for i, w in enumerate(widths):
        layers += [block(cin, w, 1 if i == 0 else 2), block(w, w, 1)]
        cin = w
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 4)]
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--window", type=float, default=1.0, help="seconds per fps line")
    ap.add_argument("--height", type=int, default=544)
    ap.add_argument("--width", type=int, default=960)
    a = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    model = network().cuda().half().eval().to(memory_format=torch.channels_last)
    x = torch.randn(a.batch, 3, a.height, a.width, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    with torch.inference_mode():
        for _ in range(3):
            model(x)
        torch.cuda.synchronize()
        end = time.time() + a.seconds
        while time.time() < end:
            t0 = time.perf_counter()
            n = 0
            while time.perf_counter() - t0 < a.window:
                model(x)
                n += 1
                if n % 4 == 0:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            print(f"batch={a.batch} fps={n * a.batch / dt:.1f}", flush=True)


if __name__ == "__main__":
    main()
