#!/bin/bash
# nvvideoencfilesinkbin encodes and writes a file (gst-nvdsbins): its queue
# holds 200 buffers.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 ! nvvideoconvert ! queue ! nvvideoencfilesinkbin output-file=out.mp4 container=1
