#!/bin/bash
# Four cameras into one batch, recorded to a file.
set -e
gst-launch-1.0 -e \
  uridecodebin uri=rtsp://192.0.2.10/cam1 ! m.sink_0 \
  uridecodebin uri=rtsp://192.0.2.11/cam2 ! m.sink_1 \
  uridecodebin uri=rtsp://192.0.2.12/cam3 ! m.sink_2 \
  uridecodebin uri=rtsp://192.0.2.13/cam4 ! m.sink_3 \
  nvstreammux name=m batch-size=4 width=1920 height=1080 batched-push-timeout=40000 \
  ! queue ! nvinfer config-file-path=pgie_config.txt batch-size=1 \
  ! nvmultistreamtiler width=1920 height=1080 ! nvvideoconvert \
  ! 'video/x-raw(memory:NVMM), format=I420' ! nvv4l2h264enc ! h264parse ! qtmux \
  ! filesink location=out.mp4
