#!/bin/bash
# The broker branch's queue is short and leaky=1 (upstream): full, it drops
# each incoming buffer and never blocks the tee, but it keeps the oldest
# messages and drops the newest; the preset wants leaky=2.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 ! tee name=t \
  t. ! queue max-size-buffers=4 ! fakesink sync=0 \
  t. ! queue max-size-buffers=2 leaky=1 ! nvmsgconv config=msgconv.txt ! nvmsgbroker proto-lib=libnvds_kafka_proto.so conn-str="localhost;9092" topic=events
