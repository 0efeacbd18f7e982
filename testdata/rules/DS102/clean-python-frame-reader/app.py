#!/usr/bin/env python3
"""Saves a crop of every face it finds: the probe maps each frame of the
batch (pyds.get_nvds_buf_surface) at the mux's size and cuts the face out
in the mux frame's coordinates, so a smaller mux output makes smaller
crops: the primary is not the only reader of the mux's pixels."""
import sys

import cv2
import numpy as np
import pyds

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst


def save_faces(pad, info, u_data):
    buf = info.get_buffer()
    batch_meta = pyds.gst_buffer_get_nvds_batch_meta(hash(buf))
    l_frame = batch_meta.frame_meta_list
    while l_frame is not None:
        frame_meta = pyds.NvDsFrameMeta.cast(l_frame.data)
        l_obj = frame_meta.obj_meta_list
        while l_obj is not None:
            obj = pyds.NvDsObjectMeta.cast(l_obj.data)
            frame = pyds.get_nvds_buf_surface(hash(buf), frame_meta.batch_id)
            r = obj.rect_params
            crop = np.array(frame[int(r.top):int(r.top + r.height), int(r.left):int(r.left + r.width)], copy=True)
            cv2.imwrite("face_%d.jpg" % obj.object_id, crop)
            l_obj = l_obj.next
        l_frame = l_frame.next
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
    sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, save_faces, 0)
    pipeline.set_state(Gst.State.PLAYING)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
