#!/usr/bin/env python3
# Tracks people on one camera; the tracker's settings are read by a helper
# module that takes the file's path (written for DeepStream 6.2).
import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst

from common.settings import apply_tracker_settings


def main():
    Gst.init(None)
    pipeline = Gst.Pipeline()
    mux = Gst.ElementFactory.make("nvstreammux", "batcher")
    mux.set_property("batch-size", 1)
    mux.set_property("batched-push-timeout", 33333)
    tracker = Gst.ElementFactory.make("nvtracker", "tracker")
    apply_tracker_settings("configs/people_tracker.txt", tracker)
    sink = Gst.ElementFactory.make("fakesink", "sink")
    sink.set_property("sync", 0)
    for element in (mux, tracker, sink):
        pipeline.add(element)
    mux.link(tracker)
    tracker.link(sink)


if __name__ == "__main__":
    main()
