/* The fork's [property] reader (written for this test): it accepts its
 * keypoint detector type beside NVIDIA's. */
#include <glib.h>
#include "nvdsinfer_context.h"

#define CONFIG_GROUP_INFER_NETWORK_TYPE "network-type"

static gboolean
fork_read_network_type (GKeyFile *key_file, NvDsInferNetworkType *type,
    GError **error)
{
  guint val = g_key_file_get_integer (key_file, "property",
      CONFIG_GROUP_INFER_NETWORK_TYPE, error);
  if (*error)
    return FALSE;
  switch ((NvDsInferNetworkType) val) {
    case NvDsInferNetworkType_Detector:
    case NvDsInferNetworkType_Classifier:
    case NvDsInferNetworkType_Segmentation:
    case NvDsInferNetworkType_InstanceSegmentation:
    case NvDsInferNetworkType_KeypointDetector:
    case NvDsInferNetworkType_Other:
      *type = (NvDsInferNetworkType) val;
      return TRUE;
    default:
      return FALSE;
  }
}
