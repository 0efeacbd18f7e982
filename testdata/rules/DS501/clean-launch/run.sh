#!/bin/bash
# Four batches deep, bounded by count only.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! queue max-size-buffers=4 max-size-bytes=0 max-size-time=0 ! nvinfer batch-size=1 ! fakesink sync=0
