/* The fork's copy of nvdsinfer_context.h (written for this test): one
 * network type more than NVIDIA's, between instance segmentation and
 * "other". */
#ifndef FORK_NVDSINFER_CONTEXT_H
#define FORK_NVDSINFER_CONTEXT_H

typedef enum {
    NvDsInferNetworkType_Detector,
    NvDsInferNetworkType_Classifier,
    NvDsInferNetworkType_Segmentation,
    NvDsInferNetworkType_InstanceSegmentation,
    /* Boxes with keypoints, parsed by the fork's own output parser. */
    NvDsInferNetworkType_KeypointDetector,
    NvDsInferNetworkType_Other = 100
} NvDsInferNetworkType;

#endif
