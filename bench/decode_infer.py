"""A stand-in for a decode-and-infer pipeline: --batch streams (copies of
one H.264 1080p clip, looped) decoded on NVDEC by PyNvVideoCodec, each
frame's luma downscaled on the GPU and batched (one frame per stream, as
nvstreammux batches) through a small fp16 network. The streams are shared
among worker processes (one Python interpreter cannot feed thousands of
frames a second), each batching the frames of its own streams; the parent
prints `fps=<frames through the network per second, all workers>` per
window, like torch_infer.py, so `dslint measure sweep` reads it. With this
small network, many streams make the decoders the limit (dmon `dec` high).

    python3 bench/decode_infer.py --batch 16 --seconds 30
"""
import argparse
import multiprocessing as mp
import os
import queue
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import encode_clip  # noqa: E402
from nvdec_decode import describe, start_decoders  # noqa: E402


def network(nn):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, 2, 1), nn.ReLU(inplace=True),
        nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(inplace=True),
        nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 4),
    )


def worker(streams, clip, gpu, height, done, stop):
    import torch
    from torch import nn

    torch.cuda.set_device(gpu)
    frames = queue.Queue(maxsize=4 * streams)

    def on_frame(i, frame):
        try:
            t = torch.from_dlpack(frame)
        except Exception:
            t = torch.as_tensor(frame.cuda()[0], device="cuda")
        # The Y plane, downscaled 4x (strided), copied out of the decoder's surface.
        frames.put(t.reshape(-1, t.shape[-1])[:height:4, ::4].contiguous())

    model = network(nn).cuda().half().eval()
    _, dec_stop, _ = start_decoders(clip, streams, gpu, on_frame)
    with torch.inference_mode():
        while not stop.is_set():
            batch = torch.stack([frames.get() for _ in range(streams)]).unsqueeze(1).half()
            model(batch)
            torch.cuda.synchronize()
            with done.get_lock():
                done.value += streams
    dec_stop.set()
    os._exit(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, required=True, help="streams, and frames per batch")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--window", type=float, default=1.0)
    ap.add_argument("--clip", default="/tmp/dslint_clip_1080p_h264.mp4")
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--workers", type=int, default=0, help="default: min(batch, cores/2, 8)")
    a = ap.parse_args()
    encode_clip(a.clip)
    info = describe(a.clip)
    print(f"{info} streams={a.batch}", flush=True)
    height = int(info.split("height=")[1].split()[0])
    n = a.workers or max(1, min(a.batch, (os.cpu_count() or 2) // 2, 8))
    share = [a.batch // n + (1 if w < a.batch % n else 0) for w in range(n)]
    ctx = mp.get_context("spawn")
    done = ctx.Value("q", 0)
    stop = ctx.Event()
    procs = [ctx.Process(target=worker, args=(s, a.clip, a.gpu, height, done, stop), daemon=True) for s in share if s]
    for p in procs:
        p.start()
    end = time.time() + a.seconds
    last, t0 = 0, time.perf_counter()
    while time.time() < end:
        time.sleep(a.window)
        now, t1 = done.value, time.perf_counter()
        print(f"batch={a.batch} fps={(now - last) / (t1 - t0):.1f}", flush=True)
        last, t0 = now, t1
    stop.set()
    for p in procs:
        p.join(timeout=3)
        if p.is_alive():
            p.kill()


if __name__ == "__main__":
    main()
