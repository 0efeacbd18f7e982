#!/usr/bin/env python3
"""A pipeline string: the mux batches one frame, the engine two."""
from gi.repository import Gst

PIPELINE = (
    "filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 "
    "nvstreammux name=m batch-size=1 batched-push-timeout=33333 "
    "! nvinfer batch-size=2 ! fakesink sync=0"
)


def main():
    Gst.init(None)
    pipeline = Gst.parse_launch(PIPELINE)
    pipeline.set_state(Gst.State.PLAYING)
