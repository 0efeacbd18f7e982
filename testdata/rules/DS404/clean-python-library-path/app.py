import sys

from gi.repository import Gst

# A bare library name: nvtracker dlopen()s it as written, so it is looked up
# on the library path (LD_LIBRARY_PATH, ld.so.cache), not next to this file.
LOW_LEVEL_LIB = "libnvds_nvmultiobjecttracker.so"


def build(uri):
    pipe = Gst.Pipeline()
    src = Gst.ElementFactory.make("nvurisrcbin", "src")
    src.set_property("uri", uri)
    batcher = Gst.ElementFactory.make("nvstreammux", "batcher")
    batcher.set_property("batch-size", 1)
    trk = Gst.ElementFactory.make("nvtracker", "trk")
    trk.set_property("ll-lib-file", LOW_LEVEL_LIB)
    for e in (src, batcher, trk):
        pipe.add(e)
    batcher.link(trk)
    return pipe


build(sys.argv[1])
