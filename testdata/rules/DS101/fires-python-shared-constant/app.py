#!/usr/bin/env python3
"""DS101 case: batch-size comes from a module constant that two calls use, so
no literal is the mux's alone to edit: the message names the expression."""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst

BATCH = 8


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline()
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    streammux.set_property("width", 960)
    streammux.set_property("height", 544)
    streammux.set_property("batch-size", BATCH)
    streammux.set_property("batched-push-timeout", 33333)
    pgie.set_property("config-file-path", "pgie.txt")
    pgie.set_property("batch-size", BATCH)
    sink.set_property("sync", 0)
    for element in (streammux, pgie, sink):
        pipeline.add(element)
    for i, uri in enumerate(["file://video.mp4", "file://video.mp4"]):
        src = Gst.ElementFactory.make("nvurisrcbin", "src%d" % i)
        src.set_property("uri", uri)
        pipeline.add(src)
        sinkpad = streammux.get_request_pad("sink_%u" % i)
    streammux.link(pgie)
    pgie.link(sink)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
