#!/usr/bin/env python3
"""The broker's queue is short and leaky."""
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
    queue = Gst.ElementFactory.make("queue", "queue")
    queue.set_property("max-size-buffers", 2)
    queue.set_property("leaky", 2)
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    sink.set_property("sync", 0)
    conv = Gst.ElementFactory.make("nvmsgconv", "conv")
    broker = Gst.ElementFactory.make("nvmsgbroker", "broker")
    broker.set_property("proto-lib", "libnvds_kafka_proto.so")
    source.set_property("location", args[1])
    streammux.set_property("batch-size", 1)
    streammux.set_property("batched-push-timeout", 33333)
    pgie.set_property("batch-size", 1)
    source.link(parser)
    parser.link(decoder)
    sinkpad = streammux.request_pad_simple("sink_0")
    srcpad = decoder.get_static_pad("src")
    srcpad.link(sinkpad)
    streammux.link(pgie)
    pgie.link(queue)
    queue.link(conv)
    conv.link(broker)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
