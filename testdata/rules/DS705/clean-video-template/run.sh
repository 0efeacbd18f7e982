#!/bin/bash
# nvdsvideotemplate's custom library detects the objects (under its own id, 5) that the
# classifier works on: which ids objects carry is not in the files, so DS705 is silent.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvdsvideotemplate customlib-name=libcustom_detector.so \
  ! nvinfer config-file-path=sgie.txt ! fakesink sync=0
