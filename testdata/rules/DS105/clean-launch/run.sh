#!/bin/bash
# An RTSP camera, the mux in live mode.
gst-launch-1.0 -e uridecodebin uri=rtsp://192.0.2.1/stream ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 live-source=1 \
  ! nvinfer batch-size=1 \
  ! fakesink sync=0
