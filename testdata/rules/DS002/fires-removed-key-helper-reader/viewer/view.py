#!/usr/bin/env python3
# Shows the same camera with its tracks; this app reads its own tracker
# file with deepstream-test2's loop of DeepStream 6.1.
import configparser

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst


def main():
    Gst.init(None)
    pipeline = Gst.Pipeline()
    mux = Gst.ElementFactory.make("nvstreammux", "batcher")
    mux.set_property("batch-size", 1)
    mux.set_property("batched-push-timeout", 33333)
    tracker = Gst.ElementFactory.make("nvtracker", "tracker")
    settings = configparser.ConfigParser()
    settings.read("view_tracker.txt")
    for key in settings["tracker"]:
        if key == "tracker-width":
            tracker.set_property("tracker-width", settings.getint("tracker", key))
        if key == "tracker-height":
            tracker.set_property("tracker-height", settings.getint("tracker", key))
        if key == "enable-batch-process":
            tracker.set_property("enable_batch_process", settings.getint("tracker", key))
    sink = Gst.ElementFactory.make("fakesink", "sink")
    sink.set_property("sync", 0)
    for element in (mux, tracker, sink):
        pipeline.add(element)
    mux.link(tracker)
    tracker.link(sink)


if __name__ == "__main__":
    main()
