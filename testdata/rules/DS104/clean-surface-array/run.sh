#!/bin/bash
# A Jetson pipeline: 4 (surface array) is what 0 selects there, and every element uses it.
gst-launch-1.0 filesrc location=a.mp4 ! qtdemux ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 width=1280 height=720 nvbuf-memory-type=4 \
  ! fakesink sync=false
