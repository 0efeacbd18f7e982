#!/usr/bin/env python3
# An RTSP camera; live-source is a gboolean: PyGObject passes True as TRUE.
from gi.repository import Gst

pipeline = Gst.Pipeline()
src = Gst.ElementFactory.make("nvurisrcbin", "src")
src.set_property("uri", "rtsp://192.0.2.1/stream")
mux = Gst.ElementFactory.make("nvstreammux", "mux")
mux.set_property("batch-size", 1)
mux.set_property("batched-push-timeout", 33333)
mux.set_property("live-source", True)
pipeline.add(src)
pipeline.add(mux)
