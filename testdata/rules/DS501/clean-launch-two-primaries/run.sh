#!/bin/bash
# Two primaries back to back: the queue between them is fed by the first
# nvinfer's output thread, not by the mux.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 unique-id=1 ! queue ! nvinfer batch-size=1 unique-id=2 ! fakesink sync=0
