#!/usr/bin/env python3
# dslint test: the primary and the tracker are made in two methods, each
# read on its own: the primary's pipeline does not show there is no tracker,
# and DS203 is silent.
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst


class App:
    def make_inference(self):
        self.pgie = Gst.ElementFactory.make("nvinfer", "pgie")
        self.pgie.set_property("config-file-path", "pgie.txt")
        self.pgie.set_property("interval", 2)

    def make_tracker(self):
        self.tracker = Gst.ElementFactory.make("nvtracker", "tracker")
        self.tracker.set_property("ll-lib-file", "/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so")

    def build(self, uri):
        self.pipeline = Gst.Pipeline()
        self.make_inference()
        self.make_tracker()
        self.pipeline.add(self.pgie)
        self.pipeline.add(self.tracker)
        self.pgie.link(self.tracker)


if __name__ == "__main__":
    Gst.init(None)
    App().build(sys.argv[1])
