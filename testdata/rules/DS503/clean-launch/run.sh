#!/bin/bash
# The encoder's queue holds one batch and never drops.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 ! nvvideoconvert ! queue max-size-buffers=1 leaky=0 ! nvv4l2h264enc ! h264parse ! qtmux ! filesink location=out.mp4
