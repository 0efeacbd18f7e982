/* The fork's [ds-example] reader (written for this test): it reads a
 * camera-id list there, a name NVIDIA's parser reads only in [sourceN]
 * (CONFIG_GROUP_SOURCE_CAMERA_ID). Its define says which group it is for. */
#include <glib.h>

#define CONFIG_GROUP_DSEXAMPLE_CAMERA_ID "camera-id"

static gboolean
parse_fork_dsexample_key (GKeyFile *key_file, const gchar *group, gchar **key,
    gint **ids, gsize *n_ids, GError **error)
{
  if (!g_strcmp0 (*key, CONFIG_GROUP_DSEXAMPLE_CAMERA_ID)) {
    *ids = g_key_file_get_integer_list (key_file, group,
        CONFIG_GROUP_DSEXAMPLE_CAMERA_ID, n_ids, error);
    return *error == NULL;
  }
  return TRUE;
}
