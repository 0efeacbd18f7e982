#!/bin/sh
# A test app's [tracker] key-file handed to nvtracker as its low-level
# config: NvMultiObjectTracker reads ll-config-file as YAML.
gst-launch-1.0 -e \
  filesrc location=video.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 width=1920 height=1080 batched-push-timeout=33333 \
  ! nvtracker ll-lib-file=/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so ll-config-file=tracker_config.txt \
  ! fakesink sync=0
