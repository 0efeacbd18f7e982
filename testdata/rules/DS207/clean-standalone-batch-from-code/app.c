/* A C app dslint does not read: it sets the batch on the element. */
#include <gst/gst.h>

static void
set_batch (GstElement *pgie, guint num_sources)
{
  g_object_set (G_OBJECT (pgie), "config-file-path", "pgie.txt", NULL);
  g_object_set (G_OBJECT (pgie), "batch-size", num_sources, NULL);
}
