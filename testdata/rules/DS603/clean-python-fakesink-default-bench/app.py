#!/usr/bin/env python3
# A probe app that only reads metadata: its fakesink never sets sync, and a
# fakesink does not sync unless told to (gst_fake_sink_init: DEFAULT_SYNC
# FALSE), unlike GstBaseSink's other sinks.
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst

MUXER_BATCH_TIMEOUT_USEC = 33333


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline.new("meta-probe")
    source = Gst.ElementFactory.make("filesrc", "file-source")
    parser = Gst.ElementFactory.make("h264parse", "h264-parser")
    decoder = Gst.ElementFactory.make("nvv4l2decoder", "decoder")
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    queue = Gst.ElementFactory.make("queue", "queue")
    sink = Gst.ElementFactory.make("fakesink", "fakesink")
    source.set_property("location", args[1])
    streammux.set_property("batch-size", 1)
    streammux.set_property("batched-push-timeout", MUXER_BATCH_TIMEOUT_USEC)
    pgie.set_property("batch-size", 1)
    for element in (source, parser, decoder, streammux, pgie, queue, sink):
        pipeline.add(element)
    source.link(parser)
    parser.link(decoder)
    sinkpad = streammux.request_pad_simple("sink_0")
    decoder.get_static_pad("src").link(sinkpad)
    streammux.link(pgie)
    pgie.link(queue)
    queue.link(sink)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
