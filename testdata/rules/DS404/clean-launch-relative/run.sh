#!/bin/sh
# ll-lib-file is handed to nvtracker as written and dlopen()ed from the
# directory the script is run in, not this file's folder: not judged.
gst-launch-1.0 -e \
  filesrc location=video.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 width=1920 height=1080 batched-push-timeout=33333 \
  ! nvtracker ll-lib-file=lib/libnvds_nvmultiobjecttracker.so \
  ! fakesink sync=0
