from gi.repository import Gst


class Engine:
    def build(self):
        self.pipeline = Gst.Pipeline()
        self.muxer = Gst.ElementFactory.make("nvstreammux", "mux")
        self.muxer.set_property("batch-size", 1)
        self.muxer.set_property("batched-push-timeout", 33333)
        self.sink = Gst.ElementFactory.make("fakesink", "headless-sink")
        self.sink.set_property("sync", False)
        self.pipeline.add(self.muxer)
        self.pipeline.add(self.sink)
        self.muxer.link(self.sink)
