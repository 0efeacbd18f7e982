/* A vendored copy of deepstream-app's key names (written for this test):
 * it reads nothing NVIDIA's parser does not, so a key in the wrong group
 * stays unknown there. */
#define CONFIG_GROUP_STREAMMUX_BATCH_SIZE "batch-size"
#define CONFIG_GROUP_SOURCE_DROP_FRAME_INTERVAL "drop-frame-interval"
