#!/bin/bash
# The URI comes from the command line: live or not is unknown.
gst-launch-1.0 -e uridecodebin uri=$1 ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 live-source=1 \
  ! nvinfer batch-size=1 \
  ! fakesink sync=0
