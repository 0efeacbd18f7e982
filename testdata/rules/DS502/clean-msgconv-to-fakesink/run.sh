#!/bin/bash
# nvmsgconv writes its payloads into the buffers' metadata and hands them to a fakesink:
# no broker sends them, so the queue in front has no broker to be held by (DS502 silent).
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 ! tee name=t \
  t. ! queue max-size-buffers=4 ! fakesink sync=0 \
  t. ! queue ! nvmsgconv config=msgconv.txt ! fakesink sync=0
