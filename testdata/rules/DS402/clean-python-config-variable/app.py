import sys

from gi.repository import Gst

# The low-level config comes from the command line: IOU or NvDCF, unknown.
TRACKER_LIB = "/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so"


def main(config_path):
    pipeline = Gst.Pipeline()
    mux = Gst.ElementFactory.make("nvstreammux", "mux")
    mux.set_property("batch-size", 1)
    mux.set_property("batched-push-timeout", 33333)
    tracker = Gst.ElementFactory.make("nvtracker", "tracker")
    tracker.set_property("ll-lib-file", TRACKER_LIB)
    tracker.set_property("ll-config-file", config_path)
    tracker.set_property("tracker-width", 960)
    tracker.set_property("tracker-height", 544)
    pipeline.add(mux)
    pipeline.add(tracker)
    mux.link(tracker)


main(sys.argv[1])
