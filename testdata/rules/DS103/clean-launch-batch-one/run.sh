#!/bin/bash
# A four-second push timeout on a mux of batch 1 with one source: the legacy nvstreammux pushes a batch once it is complete, and the first buffer completes a batch of 1, so the timeout never runs out: neither latency nor partial batches follow from it (DS103 silent; before: warning)
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=4000000 \
  ! nvinfer batch-size=1 \
  ! fakesink sync=0
