#!/bin/sh
# A [tracker] key-file handed to nvtracker as its low-level
# config of a custom library, which reads what it likes: silent.
gst-launch-1.0 -e \
  filesrc location=video.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 width=1920 height=1080 batched-push-timeout=33333 \
  ! nvtracker ll-lib-file=/opt/tracker/lib/libiou_keyfile_tracker.so ll-config-file=tracker_config.txt \
  ! fakesink sync=0
