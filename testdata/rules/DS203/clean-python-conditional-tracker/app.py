#!/usr/bin/env python3
# dslint test: the tracker is made only when asked for (a condition dslint
# does not evaluate), so it is left out of the pipeline: whether one follows
# the primary is unknown, and DS203 is silent.
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline()
    source = Gst.ElementFactory.make("filesrc", "source")
    parser = Gst.ElementFactory.make("h264parse", "parser")
    decoder = Gst.ElementFactory.make("nvv4l2decoder", "decoder")
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    if args[2] == "track":
        tracker = Gst.ElementFactory.make("nvtracker", "tracker")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    source.set_property("location", args[1])
    streammux.set_property("batch-size", 1)
    pgie.set_property("config-file-path", "pgie.txt")
    pgie.set_property("interval", 2)
    sink.set_property("sync", 0)
    for element in (source, parser, decoder, streammux, pgie, sink):
        pipeline.add(element)
    source.link(parser)
    parser.link(decoder)
    sinkpad = streammux.request_pad_simple("sink_0")
    srcpad = decoder.get_static_pad("src")
    srcpad.link(sinkpad)
    streammux.link(pgie)
    pgie.link(sink)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
