#!/usr/bin/env python3
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst

# A four-second push timeout, in a constant used once, on a mux of batch 2
# fed by two files.
MUXER_BATCH_TIMEOUT_USEC = 4000000


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline()
    source0 = Gst.ElementFactory.make("filesrc", "source0")
    parser0 = Gst.ElementFactory.make("h264parse", "parser0")
    decoder0 = Gst.ElementFactory.make("nvv4l2decoder", "decoder0")
    source1 = Gst.ElementFactory.make("filesrc", "source1")
    parser1 = Gst.ElementFactory.make("h264parse", "parser1")
    decoder1 = Gst.ElementFactory.make("nvv4l2decoder", "decoder1")
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    if not streammux:
        sys.stderr.write("Unable to create the mux\n")
    source0.set_property("location", args[1])
    source1.set_property("location", args[2])
    streammux.set_property("batch-size", 2)
    streammux.set_property("batched-push-timeout", MUXER_BATCH_TIMEOUT_USEC)
    pgie.set_property("batch-size", 2)
    sink.set_property("sync", 0)
    for element in (source0, parser0, decoder0, source1, parser1, decoder1, streammux, pgie, sink):
        pipeline.add(element)
    source0.link(parser0)
    parser0.link(decoder0)
    source1.link(parser1)
    parser1.link(decoder1)
    decoder0.get_static_pad("src").link(streammux.request_pad_simple("sink_0"))
    decoder1.get_static_pad("src").link(streammux.request_pad_simple("sink_1"))
    streammux.link(pgie)
    pgie.link(sink)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
