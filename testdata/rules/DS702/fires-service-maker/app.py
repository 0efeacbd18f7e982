#!/usr/bin/env python3
"""pyservicemaker: two files into a mux that batches one frame."""
from pyservicemaker import Pipeline


def main():
    pipeline = Pipeline("two-files")
    pipeline.add("nvstreammux", "mux", {"batch-size": 1, "batched-push-timeout": 33333})
    for i, uri in enumerate(["file:///a.mp4", "file:///b.mp4"]):
        pipeline.add("uridecodebin", f"src_{i}", {"uri": uri})
        pipeline.link((f"src_{i}", "mux"), ("", "sink_%u"))
    pipeline.add("nvinfer", "infer", {"batch-size": 1})
    pipeline.add("fakesink", "sink", {"sync": False})
    pipeline.link("mux", "infer", "sink")
    pipeline.start().wait()
