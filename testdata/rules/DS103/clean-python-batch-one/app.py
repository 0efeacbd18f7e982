#!/usr/bin/env python3
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst

# A four-second push timeout, in a constant used once, on a mux of batch 1 with
# one source: the first buffer completes the batch, so the timeout never runs
# out (DS103 silent; before: warning).
MUXER_BATCH_TIMEOUT_USEC = 4000000


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline()
    source = Gst.ElementFactory.make("filesrc", "source")
    parser = Gst.ElementFactory.make("h264parse", "parser")
    decoder = Gst.ElementFactory.make("nvv4l2decoder", "decoder")
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    if not streammux:
        sys.stderr.write("Unable to create the mux\n")
    source.set_property("location", args[1])
    streammux.set_property("batch-size", 1)
    streammux.set_property("batched-push-timeout", MUXER_BATCH_TIMEOUT_USEC)
    pgie.set_property("batch-size", 1)
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
