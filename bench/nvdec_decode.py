"""A stand-in for a decode-only DeepStream pipeline on machines without
DeepStream: N streams (copies of one H.264 clip, looped) decoded on the
GPU's NVDEC engines by NVIDIA's PyNvVideoCodec, one decoder thread per
stream (its decode calls release the GIL). Prints the clip's codec and size
once, then one `fps=<frames decoded per second, all streams>` line per
window: the lines `dslint measure decode` reads.

    python3 bench/nvdec_decode.py --streams 8 --seconds 30
    dslint measure decode --cmd "python3 bench/nvdec_decode.py --streams {streams} --seconds 600"

The clip is encoded first with PyAV/libx264 when it does not exist
(bench/clip.py).
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clip import encode_clip  # noqa: E402


def decode_loop(nvc, path, gpu, counts, i, stop, on_frame=None):
    dec = None
    while not stop.is_set():
        dmx = nvc.CreateDemuxer(filename=path)
        if dec is None:
            dec = nvc.CreateDecoder(gpuid=gpu, codec=dmx.GetNvCodecId(), usedevicememory=True)
        for packet in dmx:
            for frame in dec.Decode(packet):
                counts[i] += 1
                if on_frame is not None:
                    on_frame(i, frame)
            if stop.is_set():
                return


def start_decoders(path, streams, gpu, on_frame=None):
    """Threads decoding `streams` copies of the clip; (counts, stop event,
    threads)."""
    import PyNvVideoCodec as nvc

    # Decode calls release the GIL; hand it back quickly when they return.
    sys.setswitchinterval(0.0005)
    counts = [0] * streams
    stop = threading.Event()
    threads = []
    for i in range(streams):
        t = threading.Thread(target=decode_loop, args=(nvc, path, gpu, counts, i, stop, on_frame), daemon=True)
        t.start()
        threads.append(t)
    return counts, stop, threads


def finish(stop, threads):
    """Stop the decoders before the interpreter exits (a decoder thread
    still running at exit aborts the process)."""
    stop.set()
    for t in threads:
        t.join(timeout=2)
    sys.stdout.flush()
    os._exit(0)


def describe(path):
    import PyNvVideoCodec as nvc

    dmx = nvc.CreateDemuxer(filename=path)
    codec = str(dmx.GetNvCodecId()).split(".")[-1].lower()
    return f"codec={codec} width={dmx.Width()} height={dmx.Height()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, required=True)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--window", type=float, default=1.0, help="seconds per fps line")
    ap.add_argument("--clip", default="/tmp/dslint_clip_1080p_h264.mp4")
    ap.add_argument("--gpu", type=int, default=0)
    a = ap.parse_args()
    encode_clip(a.clip)
    print(f"{describe(a.clip)} streams={a.streams}", flush=True)
    counts, stop, threads = start_decoders(a.clip, a.streams, a.gpu)
    end = time.time() + a.seconds
    last, t0 = 0, time.perf_counter()
    while time.time() < end:
        time.sleep(a.window)
        now, t1 = sum(counts), time.perf_counter()
        print(f"streams={a.streams} fps={(now - last) / (t1 - t0):.1f}", flush=True)
        last, t0 = now, t1
    finish(stop, threads)


if __name__ == "__main__":
    main()
