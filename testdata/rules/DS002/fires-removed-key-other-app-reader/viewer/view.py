#!/usr/bin/env python3
# Shows one camera with its tracks (DeepStream 6.3 and later).
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
    settings.read("tracker_config.txt")
    for key in settings["tracker"]:
        if key == "tracker-width":
            tracker.set_property("tracker-width", settings.getint("tracker", key))
        if key == "tracker-height":
            tracker.set_property("tracker-height", settings.getint("tracker", key))
        if key == "ll-lib-file":
            tracker.set_property("ll-lib-file", settings.get("tracker", key))
    sink = Gst.ElementFactory.make("fakesink", "sink")
    sink.set_property("sync", 0)
    for element in (mux, tracker, sink):
        pipeline.add(element)
    mux.link(tracker)
    tracker.link(sink)


if __name__ == "__main__":
    main()
