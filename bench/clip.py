"""A test clip for the decode stand-ins: H.264 (libx264 through PyAV),
1920x1080 at 30 fps, moving gradients and noise so the encoder has real
work (about 4 Mbit/s by default). Encoded on the CPU, so it works on a GPU
without NVENC (the H200 has none).

    python3 bench/clip.py --out /tmp/clip.mp4 --seconds 10
"""
import argparse
import os

import numpy as np


def encode_clip(path, seconds=10.0, fps=30, width=1920, height=1080, bitrate="4M", codec="libx264"):
    """Write the clip to `path` unless it is already there; return `path`."""
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return path
    import av  # PyAV, with libx264 in its wheels

    tmp = path + ".part"
    with av.open(tmp, mode="w", format="mp4") as out:
        stream = out.add_stream(codec, rate=fps)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.bit_rate = int(float(bitrate.rstrip("Mk")) * (1e6 if bitrate.endswith("M") else 1e3))
        stream.options = {"preset": "veryfast"}
        rng = np.random.default_rng(0)
        ys, xs = np.mgrid[0:height, 0:width]
        noise = rng.integers(0, 24, size=(height, width, 3), dtype=np.uint8)
        for i in range(int(seconds * fps)):
            img = np.empty((height, width, 3), dtype=np.uint8)
            img[..., 0] = (xs + 4 * i) % 256
            img[..., 1] = (ys + 3 * i) % 256
            img[..., 2] = ((xs + ys) // 4 + 2 * i) % 256
            img += np.roll(noise, i * 7, axis=1)
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    os.replace(tmp, path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--bitrate", default="4M")
    a = ap.parse_args()
    encode_clip(a.out, seconds=a.seconds, bitrate=a.bitrate)
    print(f"wrote {a.out} ({os.path.getsize(a.out)} bytes)")


if __name__ == "__main__":
    main()
