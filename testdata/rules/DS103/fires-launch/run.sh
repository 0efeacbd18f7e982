#!/bin/bash
# A four-second push timeout on a mux of batch 2 fed by two files.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  filesrc location=b.h264 ! h264parse ! nvv4l2decoder ! m.sink_1 \
  nvstreammux name=m batch-size=2 batched-push-timeout=4000000 \
  ! nvinfer batch-size=2 \
  ! fakesink sync=0
