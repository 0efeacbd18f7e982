/* The fork's nvinfer property reader (written for this test): a key of its
 * own, compared and read by its name. */
#include <glib.h>

static gboolean
parse_fork_keys (GKeyFile *key_file, const gchar *group, gchar **key,
    gchar **func_name, GError **error)
{
  if (!g_strcmp0 (*key, "parse-bbox-landmark-func-name")) {
    *func_name = g_key_file_get_string (key_file, group,
        "parse-bbox-landmark-func-name", error);
    return *error == NULL;
  }
  return TRUE;
}
