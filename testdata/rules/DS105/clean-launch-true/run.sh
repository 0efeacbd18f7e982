#!/bin/bash
# An RTSP camera; gst-launch reads a gboolean with gst_value_deserialize_boolean
# (true/yes/t/1 in any case): TRUE and yes are both on.
gst-launch-1.0 rtspsrc location=rtsp://192.0.2.1/1 ! rtph264depay ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 live-source=TRUE width=1280 height=720 \
  ! fakesink sync=false
gst-launch-1.0 rtspsrc location=rtsp://192.0.2.1/2 ! rtph264depay ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 live-source=yes width=1280 height=720 \
  ! fakesink sync=false
