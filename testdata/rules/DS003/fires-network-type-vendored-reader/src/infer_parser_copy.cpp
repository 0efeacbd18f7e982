/* A vendored copy of NVIDIA's [property] reader (written for this test):
 * the stock network types only, so 4 is refused as NVIDIA's parser refuses
 * it. */
#include <glib.h>

typedef enum {
    NvDsInferNetworkType_Detector,
    NvDsInferNetworkType_Classifier,
    NvDsInferNetworkType_Segmentation,
    NvDsInferNetworkType_InstanceSegmentation,
    NvDsInferNetworkType_Other = 100
} NvDsInferNetworkType;

#define CONFIG_GROUP_INFER_NETWORK_TYPE "network-type"

static gboolean
copy_read_network_type (GKeyFile *key_file, NvDsInferNetworkType *type,
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
    case NvDsInferNetworkType_Other:
      *type = (NvDsInferNetworkType) val;
      return TRUE;
    default:
      g_printerr ("Error. Invalid value for network-type: %u\n", val);
      return FALSE;
  }
}
