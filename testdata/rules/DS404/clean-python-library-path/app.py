import sys

from gi.repository import Gst

# A bare library name: nvtracker dlopen()s it as written, so it is looked up
# on the library path (LD_LIBRARY_PATH, ld.so.cache), not next to this file.
TRACKER_LIB = "libnvds_nvmultiobjecttracker.so"


def main(config_path):
    pipeline = Gst.Pipeline()
    mux = Gst.ElementFactory.make("nvstreammux", "mux")
    mux.set_property("batch-size", 1)
    mux.set_property("batched-push-timeout", 33333)
    tracker = Gst.ElementFactory.make("nvtracker", "tracker")
    tracker.set_property("ll-lib-file", TRACKER_LIB)
    tracker.set_property("ll-config-file", "/opt/nvidia/deepstream/deepstream/samples/configs/deepstream-app/config_tracker_NvDCF_perf.yml")
    pipeline.add(mux)
    pipeline.add(tracker)
    mux.link(tracker)


main(sys.argv[1])
