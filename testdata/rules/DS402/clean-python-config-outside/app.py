import sys

from gi.repository import Gst

# The low-level config lives outside the project under a name that is not
# one of NVIDIA's presets: it may be IOU (as its name suggests), whose
# tracker nvtracker scales no frame for. dslint cannot read it: silent.


def build(pipeline):
    source = Gst.ElementFactory.make("filesrc", "file-source")
    source.set_property("location", sys.argv[1])
    streammux = Gst.ElementFactory.make("nvstreammux", "Stream-muxer")
    streammux.set_property("batch-size", 1)
    nvtracker = Gst.ElementFactory.make("nvtracker", "tracker")
    nvtracker.set_property("tracker-width", 640)
    nvtracker.set_property("tracker-height", 480)
    nvtracker.set_property("gpu_id", 0)
    nvtracker.set_property("ll-lib-file", "/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so")
    nvtracker.set_property("ll-config-file", "/opt/nvidia/deepstream/deepstream-7.1/apps/deepstream-test1/iou_config.yml")
    for element in (source, streammux, nvtracker):
        pipeline.add(element)
    streammux.link(nvtracker)


build(Gst.Pipeline())
