#!/usr/bin/env python3
"""Counts objects: only the primary reads the mux's pixels."""
import sys

import pyds

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst


def count_objects(pad, info, u_data):
    buf = info.get_buffer()
    batch_meta = pyds.gst_buffer_get_nvds_batch_meta(hash(buf))
    print(batch_meta.num_frames_in_batch)
    return Gst.PadProbeReturn.OK


def main(args):
    Gst.init(None)
    pipeline = Gst.Pipeline()
    streammux = Gst.ElementFactory.make("nvstreammux", "mux")
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    conv = Gst.ElementFactory.make("nvvideoconvert", "conv")
    rgba = Gst.ElementFactory.make("capsfilter", "rgba")
    sink = Gst.ElementFactory.make("fakesink", "sink")
    rgba.set_property("caps", Gst.Caps.from_string("video/x-raw(memory:NVMM), format=RGBA"))
    streammux.set_property("width", 1920)
    streammux.set_property("height", 1080)
    streammux.set_property("batch-size", 2)
    streammux.set_property("batched-push-timeout", 33333)
    pgie.set_property("config-file-path", "pgie.txt")
    sink.set_property("sync", 0)
    for element in (streammux, pgie, conv, rgba, sink):
        pipeline.add(element)
    for i, uri in enumerate(["file://video.mp4", "file://video.mp4"]):
        src = Gst.ElementFactory.make("nvurisrcbin", "src%d" % i)
        src.set_property("uri", uri)
        pipeline.add(src)
    streammux.link(pgie)
    pgie.link(conv)
    conv.link(rgba)
    rgba.link(sink)
    sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, count_objects, 0)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
