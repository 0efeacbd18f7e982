// Tracks vehicles on one file source; the tracker's settings come from a
// key-file read here (written against DeepStream 6.2).
#include <glib.h>
#include <gst/gst.h>

#define TRACKER_SETTINGS "configs/vehicle_tracker.txt"
#define CONFIG_GROUP_TRACKER "tracker"
#define CONFIG_GROUP_TRACKER_WIDTH "tracker-width"
#define CONFIG_GROUP_TRACKER_HEIGHT "tracker-height"
#define CONFIG_GROUP_TRACKER_ENABLE_BATCH_PROCESS "enable-batch-process"

static gboolean
apply_tracker_settings (GstElement *tracker)
{
  GKeyFile *settings = g_key_file_new ();
  gchar **keys = NULL;
  if (!g_key_file_load_from_file (settings, TRACKER_SETTINGS, G_KEY_FILE_NONE, NULL))
    return FALSE;
  keys = g_key_file_get_keys (settings, CONFIG_GROUP_TRACKER, NULL, NULL);
  for (gchar **key = keys; key && *key; key++) {
    gint value = g_key_file_get_integer (settings, CONFIG_GROUP_TRACKER, *key, NULL);
    if (!g_strcmp0 (*key, CONFIG_GROUP_TRACKER_WIDTH))
      g_object_set (G_OBJECT (tracker), "tracker-width", value, NULL);
    else if (!g_strcmp0 (*key, CONFIG_GROUP_TRACKER_HEIGHT))
      g_object_set (G_OBJECT (tracker), "tracker-height", value, NULL);
    else if (!g_strcmp0 (*key, CONFIG_GROUP_TRACKER_ENABLE_BATCH_PROCESS))
      g_object_set (G_OBJECT (tracker), "enable_batch_process", value, NULL);
  }
  g_strfreev (keys);
  g_key_file_free (settings);
  return TRUE;
}
